// Read -> write changes nothing: for documents that `write` accepts,
// `read` prints their exact bytes, and writing them back with the new token leaves the file
// byte-identical: the second write prints `unchanged`. Through the built bundle, on
// real folders.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, helper, MARKER, sha, unstamped } from "../helpers.ts";
import { prngOf, randomAcceptedText } from "../fixtures/scripts.ts";

/** The envelope's body: what lies between the BEGIN and END lines. */
function body(stdout: string): string {
  const m = /^CURRENT-SHA256: [0-9a-f]{64}\n<<<BEGIN UNTRUSTED (\S+) ([0-9a-f]{16})>>>\n([\s\S]*)<<<END UNTRUSTED \1 \2>>>\n$/.exec(stdout);
  if (!m) throw new Error(`not an envelope: ${stdout.slice(0, 200)}`);
  return m[3]!;
}

// What read says on stderr besides its own draft name (docs/decisions/drafts.md).
const notes = (stderr: string): string => stderr.replace(/^DRAFT: \S+\n/m, "");

function roundTrip(root: string, kind: string, doc: string): void {
  const file = path.join(root, ".ai", "memory", kind === "handoff" ? "HANDOFF.md" : "LESSONS.md");
  const read = helper(["read", kind, "--root", root]);
  expect(read.code, read.stderr).toBe(0);
  expect(notes(read.stderr)).toBe("");
  // What is on disk: the document, with a handoff's Saved: line stamped by write.
  const onDisk = readFileSync(file, "utf8");
  expect(body(read.stdout)).toBe(onDisk);
  expect(unstamped(onDisk)).toBe(unstamped(doc));
  const token = /^CURRENT-SHA256: (\S+)/.exec(read.stdout)![1]!;
  expect(token).toBe(sha(readFileSync(file)));
  const again = helper(["write", kind, "--root", root, "--expected-current-sha256", token], { input: body(read.stdout) });
  expect(again.code, again.stderr).toBe(0);
  expect(again.stdout).toBe(`unchanged ${path.basename(file)}\nCURRENT-SHA256: ${token}\n`);
  expect(again.stderr).not.toMatch(/invisible|redacted|converted|dropped/);
  expect(readFileSync(file, "utf8")).toBe(onDisk);
}

describe("property: read then write with the new token changes no byte", () => {
  it("20 random handoffs mixing Persian, Devanagari, Sinhala, Hebrew, emoji sequences, flags and CJK", () => {
    const rand = prngOf(1130);
    for (let n = 0; n < 20; n++) {
      const root = gitRepo();
      const doc = handoff(randomAcceptedText(rand, 30).replace(/\n$/, ""));
      const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: doc });
      expect(w.code, `${w.stderr} ${JSON.stringify(doc)}`).toBe(0);
      roundTrip(root, "handoff", doc);
    }
  });

  it("a ledger another program wrote with Persian text reads back without <U+200C> and saves unchanged", () => {
    const root = gitRepo();
    const mem = path.join(root, ".ai", "memory");
    mkdirSync(mem, { recursive: true, mode: 0o700 });
    // An entry heading as references/lessons-schema.md writes it (a malformed one is refused).
    const doc = `${MARKER}\n# Lessons\n\n## L-0001: کتاب\u200Cها\n- می\u200Cخواهم: run \`npm test\` first\n`;
    writeFileSync(path.join(mem, "LESSONS.md"), doc);
    chmodSync(path.join(mem, "LESSONS.md"), 0o600);
    const read = helper(["read", "lessons", "--root", root]);
    expect(read.stdout).not.toContain("<U+200C>");
    roundTrip(root, "lessons", doc);
  });
});

describe("write refuses controls with line, column and code point; read shows them", () => {
  it.each([
    ["ESC (an ANSI colour)", "\u001b[31m", "U+001B"],
    ["NUL-free C0 (BEL)", "\u0007", "U+0007"],
    ["DEL", "\u007f", "U+007F"],
    ["a C1 control (NEL)", "\u0085", "U+0085"],
    ["LINE SEPARATOR", "\u2028", "U+2028"],
    ["PARAGRAPH SEPARATOR", "\u2029", "U+2029"],
    ["a lone CR", "\r", "U+000D"],
  ])("%s", (_name, c, code) => {
    const root = gitRepo();
    const doc = `${MARKER}\n# Session Handoff\n\n## Current goal\nship ${c}it\n`;
    const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: doc });
    expect(w.code).toBe(2);
    expect(w.stderr).toBe(`memory operation refused: the document contains invisible or control characters (line 5, column 6: ${code} (${code === "U+2028" || code === "U+2029" ? "line or paragraph separator" : "control character"})); remove them and retry\n`);
    expect(helper(["check", "--root", root]).code).toBe(0);
    // Planted on disk by another program: read shows it visibly, warns, and the token covers the bytes.
    const mem = path.join(root, ".ai", "memory");
    mkdirSync(mem, { recursive: true, mode: 0o700 });
    writeFileSync(path.join(mem, "HANDOFF.md"), doc, { mode: 0o600 });
    const read = helper(["read", "handoff", "--root", root]);
    expect(read.code).toBe(0);
    expect(body(read.stdout)).toBe(doc.replace(c[0]!, `<${code}>`));
    expect(read.stdout.startsWith(`CURRENT-SHA256: ${sha(doc)}\n`)).toBe(true);
    expect(notes(read.stderr)).toBe(
      "warning: HANDOFF.md holds 1 invisible or control character(s) or invalid UTF-8 byte(s) that write would refuse, shown as <U+XXXX> / <0xNN>; the token covers the bytes on disk\n",
    );
  });

  it("a CRLF document is normalised by write; a CRLF file on disk is printed as it is, with no warning", () => {
    const root = gitRepo();
    const crlf = handoff("ship").replace(/\n/g, "\r\n");
    const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: crlf });
    expect(w.code).toBe(0);
    expect(w.stderr).toMatch(/converted CRLF/);
    writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), crlf);
    const read = helper(["read", "handoff", "--root", root]);
    expect(body(read.stdout)).toBe(crlf);
    expect(notes(read.stderr)).toBe("");
  });
});
