import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { aged, gitRepo, handoff, helper, sha } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

// One verdict on a memory file's bytes, through every verb (docs/design.md#one-verdict-on-a-files-bytes): a NUL
// makes the file unsafe for all of them; invalid UTF-8 and code points write refuses are loaded, never silently
// (shown as <0xNN> / <U+XXXX>, with read's warning on stderr); write refuses them all. The verbs run in this
// process (12 verbs x 11 inputs as processes took most of this file's time); the built bundle is checked to agree
// on two inputs below.

const ARCHIVE = "HANDOFF-2026-11-20T10-00-00Z-1-0123abcd.md";
const OLD = "2026-11-20T10:00:00Z";
const WARNING = /^warning: (?:HANDOFF\.md|(?:archive\/)?HANDOFF-\S+\.md) holds \d+ invisible or control character\(s\) or invalid UTF-8 byte\(s\) that write would refuse, shown as <U\+XXXX> \/ <0xNN>; the token covers the bytes on disk$/m;
const UNSAFE = /HANDOFF\.md holds a NUL byte \(at byte \d+\): it is unsafe and was not loaded; tell the user/;

interface Odd {
  name: string;
  bytes: Buffer;
  verdict: "unsafe" | "shown";
  /** Invalid UTF-8 (validate's utf-8 error; the merge driver leaves git's conflict). */
  invalid?: boolean;
  /** How read shows it. */
  shown?: string;
}

const b = (...xs: number[]) => Buffer.from(xs);
const ODD: Odd[] = [
  { name: "a NUL byte", bytes: b(0x61, 0x00, 0x62), verdict: "unsafe" },
  { name: "a lone 0xFF byte", bytes: b(0xff), verdict: "shown", invalid: true, shown: "<0xFF>" },
  { name: "a truncated sequence", bytes: b(0xe2, 0x82), verdict: "shown", invalid: true, shown: "<0xE2><0x82>" },
  { name: "a lone surrogate encoded as UTF-8 (CESU)", bytes: b(0xed, 0xa0, 0x80), verdict: "shown", invalid: true, shown: "<0xED><0xA0><0x80>" },
  { name: "an overlong encoding of /", bytes: b(0xc0, 0xaf), verdict: "shown", invalid: true, shown: "<0xC0><0xAF>" },
  { name: "a BOM in the middle", bytes: Buffer.from("x\uFEFFy"), verdict: "shown", shown: "x<U+FEFF>y" },
  { name: "a C0 control (ESC)", bytes: Buffer.from("\x1b[31mred"), verdict: "shown", shown: "<U+001B>[31mred" },
  { name: "a C1 control (NEL)", bytes: Buffer.from("a\u0085b"), verdict: "shown", shown: "a<U+0085>b" },
  { name: "a bidi override", bytes: Buffer.from("a\u202Eb"), verdict: "shown", shown: "a<U+202E>b" },
  { name: "U+2028", bytes: Buffer.from("a\u2028b"), verdict: "shown", shown: "a<U+2028>b" },
  { name: "U+2029", bytes: Buffer.from("a\u2029b"), verdict: "shown", shown: "a<U+2029>b" },
];

/** A valid handoff whose goal holds `odd` between two words. */
function oddHandoff(odd: Buffer): Buffer {
  const [before, after] = aged(handoff("Goal @@ end"), OLD).split("@@") as [string, string];
  return Buffer.concat([Buffer.from(before), odd, Buffer.from(after)]);
}

describe("one verdict on a memory file's bytes, through every verb", () => {
  it.each(ODD.map((o) => [o.name, o] as const))("%s", async (_name, odd) => {
    const helper = inProcess;
    const root = gitRepo();
    const memory = path.join(root, ".ai", "memory");
    mkdirSync(path.join(memory, "archive"), { recursive: true });
    const bytes = oddHandoff(odd.bytes);
    writeFileSync(path.join(memory, "HANDOFF.md"), bytes);
    writeFileSync(path.join(memory, "archive", ARCHIVE), bytes);
    const unsafe = odd.verdict === "unsafe";

    const check = await helper(["check"], { cwd: root });
    const hookInput = JSON.stringify({ cwd: root, source: "startup", session_id: "odd" });
    const hook = await helper(["hook", "--mode", "session"], { input: hookInput });
    const read = await helper(["read", "handoff"], { cwd: root });
    const brief = await helper(["brief"], { cwd: root });
    const briefJson = await helper(["brief", "--json"], { cwd: root });
    const drift = await helper(["drift"], { cwd: root });
    const validate = await helper(["validate", "handoff"], { cwd: root });
    const list = await helper(["archives", "list"], { cwd: root });
    const listJson = await helper(["archives", "list", "--json"], { cwd: root });
    const show = await helper(["archives", "show", ARCHIVE], { cwd: root });
    const write = await helper(["write", "handoff", "--expected-current-sha256", sha(bytes)], { cwd: root, input: bytes });
    const readers = { read, brief, briefJson, drift, validate, show };

    // write refuses every one of them, and nothing changes on disk.
    expect(write.code).toBe(2);
    expect(readFileSync(path.join(memory, "HANDOFF.md"))).toEqual(bytes);

    if (unsafe) {
      expect(check.code).toBe(3);
      expect(hook.stdout).toContain("HANDOFF.md failed memory safety or schema checks; do not load it");
      for (const [verb, r] of Object.entries(readers)) {
        expect({ verb, code: r.code }).toEqual({ verb, code: 2 });
        expect(r.stdout).toBe("");
        expect(r.stderr).toMatch(verb === "show" ? /archive\/\S+ holds a NUL byte/ : UNSAFE);
      }
      expect(read.stderr).toBe(
        `memory operation refused: HANDOFF.md holds a NUL byte (at byte ${bytes.indexOf(0)}): it is unsafe and was not loaded; tell the user (another program wrote it: remove the byte or move the file away, then check again)\n`,
      );
      expect(JSON.parse(listJson.stdout)).toEqual({ archives: [{ name: ARCHIVE, stateTime: null, goal: null, unsafe: true }] });
      expect(list.stdout).toBe(`${ARCHIVE}  (holds a NUL byte: unsafe, not read)\n`);
    } else {
      expect(check.code).toBe(2);
      expect(hook.stdout).toContain("a parked handoff exists (.ai/memory/HANDOFF.md");
      for (const [verb, r] of Object.entries(readers)) {
        // Loaded, never silently: every reader says on stderr what it showed.
        expect({ verb, warned: WARNING.test(r.stderr) }).toEqual({ verb, warned: true });
        // Nothing hidden reaches the output: no raw refused character, no U+FFFD in its place.
        expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\uFFFD]|.\uFEFF/su);
      }
      expect(read.code).toBe(0);
      expect(read.stdout).toContain(`Goal ${odd.shown} end`);
      expect(show.code).toBe(0);
      expect(brief.code).toBe(0);
      expect(brief.stdout).toContain(`Goal: Goal ${odd.shown} end`);
      expect(drift.code).toBe(0);
      // The brief's JSON fields are its lines; archives list's JSON goal is exact, the refused
      // code points as \uXXXX escapes (docs/design.md#verdicts-and-the-brief); invalid bytes as <0xNN>.
      expect(briefJson.code).toBe(0);
      expect((JSON.parse(briefJson.stdout) as { brief: { goal: string } }).brief.goal).toBe(`Goal ${odd.shown} end`);
      const listed = (JSON.parse(listJson.stdout) as { archives: { goal: string }[] }).archives[0]!.goal;
      expect(listed).toBe(odd.invalid ? `Goal ${odd.shown} end` : `Goal ${odd.bytes.toString("utf8")} end`);
      expect(listJson.stdout.trimEnd()).not.toMatch(/[\u0000-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\uFEFF\uFFFD]/u);
      if (odd.invalid) {
        expect(validate.code).toBe(2);
        expect(validate.stdout).toMatch(/^error: line 6: utf-8: byte <0x[0-9A-F]{2}> at column 6 is not UTF-8(?: \(\d+ invalid bytes in all\))?: a memory file is UTF-8; write refuses it$/m);
      } else {
        expect(validate.stdout).toMatch(/^finding: line 6: invisible: U\+[0-9A-F]{4} at column \d+: write refuses it$/m);
      }
      expect(listJson.code).toBe(0);
      expect(JSON.parse(listJson.stdout)).toMatchObject({ archives: [{ name: ARCHIVE, stateTime: OLD, unsafe: false }] });
      expect(list.stdout).toBe(`${ARCHIVE}  ${OLD}  "Goal ${odd.shown} end"\n`);
      expect(list.stderr).toMatch(WARNING);
    }

    // The merge driver: an odd side is merged with its bytes kept exactly, or not at all.
    const theirs = path.join(root, "theirs.md");
    const ours = path.join(root, "ours.md");
    const base = path.join(root, "base.md");
    writeFileSync(ours, bytes);
    writeFileSync(base, bytes);
    writeFileSync(theirs, aged(handoff("Their later goal."), "2026-11-25T10:00:00Z"));
    const before = new Set(readdirSync(path.join(memory, "archive")));
    const merge = await helper(["merge-driver", base, ours, theirs, ".ai/memory/HANDOFF.md"], { cwd: root });
    const made = readdirSync(path.join(memory, "archive")).filter((n) => !before.has(n));
    if (unsafe || odd.invalid) {
      expect(merge.code).toBe(1);
      expect(readFileSync(ours)).toEqual(bytes);
      expect(made).toEqual([]);
    } else {
      expect(merge.code).toBe(0);
      expect(made).toHaveLength(1);
      expect(readFileSync(path.join(memory, "archive", made[0]!))).toEqual(bytes);
    }
  });
});

// The built bundle's entries (the session one runs the hook) give the same verdicts as the verbs run above.
describe("the built bundle agrees", () => {
  it.each([ODD[0]!, ODD[1]!].map((o) => [o.name, o] as const))("%s", (_name, odd) => {
    const root = gitRepo();
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), oddHandoff(odd.bytes));
    const unsafe = odd.verdict === "unsafe";
    const hook = helper(["hook", "--mode", "session"], { input: JSON.stringify({ cwd: root, source: "startup" }) });
    expect(hook.stdout).toContain(unsafe ? "failed memory safety or schema checks" : "a parked handoff exists");
    const read = helper(["read", "handoff"], { cwd: root });
    expect(read.code).toBe(unsafe ? 2 : 0);
    expect(read.stderr).toMatch(unsafe ? UNSAFE : WARNING);
  });
});

// A pasted handoff holding a NUL is refused as a file is, but stdin has no file to move away: the advice is the sender's.
describe("brief and drift --stdin with a NUL byte", () => {
  it.each([["brief"], ["drift"]])("%s --stdin names stdin, not a file", (verb) => {
    const root = gitRepo();
    const pasted = Buffer.from(handoff("Goal step\u0000one"));
    const r = helper([verb, "--stdin"], { cwd: root, input: pasted });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`memory operation refused: the pasted handoff holds a NUL byte (at byte ${pasted.indexOf(0)}): ` +
      "it is not text and was not loaded; send the handoff's text without that byte on stdin, or leave out --stdin to " +
      "read the project's handoff\n");
  });
});

// search reads many files (docs/design.md#one-verdict-on-a-files-bytes): like `archives list`, it
// skips an unsafe one with a line on stderr and goes on; an odd one is searched as read shows it.
describe("search by the one verdict on bytes", () => {
  it("skips a HANDOFF.md holding a NUL with a stderr line, and searches the others", () => {
    const root = gitRepo();
    const memory = path.join(root, ".ai", "memory");
    mkdirSync(path.join(memory, "archive"), { recursive: true });
    const nul = Buffer.from(aged(handoff("Goal step\u0000one"), OLD));
    writeFileSync(path.join(memory, "HANDOFF.md"), nul);
    writeFileSync(path.join(memory, "archive", ARCHIVE), aged(handoff("Goal step two"), OLD));
    const r = helper(["search", "step"], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`warning: HANDOFF.md holds a NUL byte (at byte ${nul.indexOf(0)}): unsafe, not searched\n`);
    expect(r.stdout).toContain("Goal step two");
    expect(r.stdout).not.toMatch(/U\+0000|\u0000|step.one/u);
    const json = helper(["search", "step", "--json"], { cwd: root });
    expect(json.stderr).toContain("HANDOFF.md holds a NUL byte");
    expect((JSON.parse(json.stdout) as { results: { file: string }[] }).results.map((x) => x.file)).toEqual([`archive/${ARCHIVE}`]);
  });

  it("shows invalid UTF-8 as <0xNN> with read's warning, never U+FFFD", () => {
    const root = gitRepo();
    const memory = path.join(root, ".ai", "memory");
    mkdirSync(memory, { recursive: true });
    writeFileSync(path.join(memory, "HANDOFF.md"), oddHandoff(b(0xff)));
    const r = helper(["search", "goal"], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(WARNING);
    expect(r.stdout).toContain("Goal <0xFF> end");
    expect(r.stdout).not.toContain("\uFFFD");
  });
});

// The merge driver reads every path's sides the same way (docs/design.md#one-verdict-on-a-files-bytes).
describe("merge driver: a journal month side by the one verdict on bytes", () => {
  const entry = (time: string, id: string, goal: string) => `## ${time} save ${id}\n- Goal: ${goal}\n\n`;
  const head = "<!-- memory-schema: v1 -->\n# Journal 2026-12\n\n";
  it.each([
    ["a NUL byte", b(0x00)],
    ["a lone 0xFF byte", b(0xff)],
    ["both", b(0xff, 0x00)],
  ])("%s: not merged (exit 1), ours left as it was", (_name, odd) => {
    const dir = gitRepo();
    const shared = entry("2026-12-01T09:00:00Z", "0000000000000001", "shared");
    const ours = Buffer.concat([Buffer.from(`${head}## 2026-12-01T10:00:00Z save 00000000000000a1\n- Goal: a`), odd, Buffer.from(" b\n\n")]);
    const files = { base: path.join(dir, "O"), ours: path.join(dir, "A"), theirs: path.join(dir, "B") };
    writeFileSync(files.base, head + shared);
    writeFileSync(files.ours, ours);
    writeFileSync(files.theirs, head + shared + entry("2026-12-02T10:00:00Z", "00000000000000b1", "theirs"));
    const r = helper(["merge-driver", files.base, files.ours, files.theirs, ".ai/memory/journal/2026-12.md"], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^session-handoff merge driver: our side (?:holds a NUL byte|is not valid UTF-8)/);
    expect(readFileSync(files.ours)).toEqual(ours);
  });
});
