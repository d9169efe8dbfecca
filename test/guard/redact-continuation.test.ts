// A token split by a line continuation (a backslash ending the line) is joined as a shell joins
// it and redacted, by `redact` and by `promote` (docs/design.md#redaction), in the built helper.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, helper } from "../helpers.ts";
import { githubToken } from "../fixtures/redaction/attacks.ts";

const token = githubToken(71);
const head = token.slice(0, 17);
const tail = token.slice(17);

describe("tokens split by a line continuation", () => {
  it.each([
    ["LF", "\n"],
    ["CRLF", "\r\n"],
  ])("redact joins a %s continuation and redacts both halves", (_name, eol) => {
    const r = helper(["redact"], { input: `x ${head}\\${eol}${tail} y\nkept\\${eol}too\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain(head);
    expect(r.stdout).not.toContain(tail);
    expect(r.stdout).toContain("<redacted: github-token>");
    expect(r.stdout).toContain(`kept\\${eol}too\n`);
  });

  it("promote appends no half of it", () => {
    const root = gitRepo();
    const r = helper(["promote", "--root", root, "--target", "AGENTS.md", "--expected-current-sha256", "absent"], {
      input: `- Deploy with ${head}\\\n${tail} set.\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(path.join(root, "AGENTS.md"), "utf8");
    expect(text).not.toContain(head);
    expect(text).not.toContain(tail);
  });
});
