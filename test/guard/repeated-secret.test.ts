// A value found to be a secret in one place is redacted wherever else the same text holds it
// (docs/design.md#redaction), through the built bundle: write, redact and checkpoint.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, helper } from "../helpers.ts";
import { checkpoint, cpText } from "../verbs/support.ts";

// Two parts, so no scanner of this repository reads a literal password.
const PASSWORD = "Tr0ub4dor" + "-x9";
const LINE = `Raw psql postgres://admin:${PASSWORD}@db.example.com/prod timed out, as the password ${PASSWORD} is rotated`;

describe("a secret's value repeated elsewhere in the same text", () => {
  it("write redacts every occurrence and reports each", () => {
    const root = gitRepo();
    const doc = handoff("Make the importer fast.").replace("## Failed approaches\n- none\n",
      `## Failed approaches\n- ${LINE}\n- Then ${PASSWORD} again on its own line\n`);
    const r = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: doc });
    expect(r.code).toBe(0);
    const saved = readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), "utf8");
    expect(saved).not.toContain(PASSWORD);
    expect(saved).toContain("as the password <redacted: url-password> is rotated");
    expect(saved).toContain("- Then <redacted: url-password> again on its own line");
    expect(r.stderr).toMatch(/redacted 3 secret\(s\): url-password \(line \d+\), url-password \(line \d+\), url-password/);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  });

  it("redact gives a finding per occurrence; a value under 8 characters is left alone elsewhere", () => {
    const short = "k7Q" + "x2";
    const input = `${LINE}\nx://u:${short}@host and ${short} again\n`;
    const r = helper(["redact", "--json"], { input });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { text: string; findings: Array<{ kind: string; line: number; column: number }> };
    expect(out.text).not.toContain(PASSWORD);
    expect(out.findings.filter((f) => f.line === 1).map((f) => f.kind)).toEqual(["url-password", "url-password"]);
    expect(out.findings[1]!.column).toBe(LINE.lastIndexOf(PASSWORD) + 1);
    expect(out.text.split("\n")[1]).toBe(`x://u:<redacted: url-password>@host and ${short} again`);
  });

  it("a password that is a plain word is not blanked where the text uses the word (found by a breaker)", () => {
    const word = "post" + "gres";
    const input = `Point at postgres://${word}:${word}@localhost:5432/app\nKeep ${word}; src/${word}/client.ts\n`;
    const r = helper(["redact"], { input });
    expect(r.stdout).toBe(`Point at postgres://${word}:<redacted: url-password>@localhost:5432/app\nKeep ${word}; src/${word}/client.ts\n`);
    // Letters alone from 16 on, or any value with a digit or a sign, is looked for inside words too.
    const long = "correcthorse" + "batterystaple";
    const input2 = `postgres://u:${long}@db.example.com said ${long}, x${PASSWORD}; postgres://u:${PASSWORD}@db.example.com\n`;
    const red = "<redacted: url-password>";
    const want = `postgres://u:${red}@db.example.com said ${red}, x${red}; postgres://u:${red}@db.example.com\n`;
    expect(helper(["redact"], { input: input2 }).stdout).toBe(want);
  });

  it("checkpoint redacts the repeat in the transcript's text", () => {
    const root = gitRepo();
    const file = path.join(root, "t.jsonl");
    const base = { sessionId: "s", version: "2.1.80", cwd: root, timestamp: "2026-11-30T09:00:00.000Z" };
    const user = { ...base, type: "user", uuid: "u1", parentUuid: null, message: { role: "user", content: LINE } };
    const call = { type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } };
    const tool = { ...base, type: "assistant", uuid: "a1", message: { role: "assistant", content: [call] } };
    writeFileSync(file, `${JSON.stringify(user)}\n${JSON.stringify(tool)}\n`);
    const r = checkpoint(root, { transcript_path: file });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("checkpoint: redacted 2 secret(s): url-password, url-password from the transcript");
    const text = cpText(root, "sess-1") ?? "";
    expect(text).toContain("<redacted: url-password>");
    expect(text).not.toContain(PASSWORD);
  });
});
