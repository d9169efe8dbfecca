// `--help` as an agent and a user meet it: every verb's help is one page of at most 60 lines
// and 80 columns with an example that works, the overview names the kill switch, an unknown
// verb gets a "did you mean", and no verb is a usage error on stderr.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { HELP_WIDTH, nearest, wrapHelp } from "../../src/help.ts";
import { VERBS } from "../../src/verbs/index.ts";
import { HARNESS_VERBS, SESSION_VERBS } from "../../src/verbs/types.ts";
import { cleanEnv, gitRepo, helper, HELPER } from "../helpers.ts";

const VERB_NAMES = Object.keys(VERBS);
const EXAMPLES = Object.fromEntries(VERB_NAMES.map((v) => [v, VERBS[v]!.example]));
// Columns are characters (code points), not bytes: `…` is one column.
const tooWide = (text: string): string[] => text.split("\n").filter((l) => [...l].length > HELP_WIDTH);

describe("wrapHelp", () => {
  const long = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");

  it.each([
    ["a short line is kept as written", "exit: 0 ok\n      2 refused", "exit: 0 ok\n      2 refused"],
    ["a paragraph reflows into its next line", `${"x ".repeat(42)}end\nnext line`, `${"x ".repeat(40).trimEnd()}\nx x end next line`],
    ["a label's overflow hangs under its text", `exit:   ${"y ".repeat(40)}z`, `exit:   ${"y ".repeat(36).trimEnd()}\n        ${"y ".repeat(4)}z`],
    ["a column's overflow hangs under the column", `  --json   ${"q ".repeat(40)}`, `  --json   ${"q ".repeat(35).trimEnd()}\n           ${"q ".repeat(5).trimEnd()}`],
    ["a line ending in ':' keeps its list apart", `${"a ".repeat(40)}list:\n  - item`, `${"a ".repeat(40).trimEnd()}\nlist:\n  - item`],
    ["the next numbered item is not joined", `      2 ${"r ".repeat(37)}error\n      3 next`, `      2 ${"r ".repeat(36).trimEnd()}\n        r error\n      3 next`],
    ["a word longer than the line stays whole", `${"z".repeat(90)}`, `${"z".repeat(90)}`],
    ["a long word breaks after its last , that fits", `  claude  {"a":"${"b".repeat(50)}","c":"${"d".repeat(20)}"}`, `  claude  {"a":"${"b".repeat(50)}",\n          "c":"${"d".repeat(20)}"}`],
    ["a path broken after / rejoins without a space", `${"p ".repeat(38)}under ~/.config/x/\ninstalls/ so that`, `${"p ".repeat(38).trimEnd()}\nunder ~/.config/x/installs/ so that`],
    // The sentences a verb prints, listed one per line under the same prefix: each stays its own
    // line, and its overflow hangs two columns in (a newcomer read them run together).
    [
      "a list of prefixed lines keeps each line apart",
      `  out: ${"s ".repeat(40)}end.\n  out: next one.`,
      `  out: ${"s ".repeat(37).trimEnd()}\n    ${"s ".repeat(3)}end.\n  out: next one.`,
    ],
    [
      "a prefixed item wrapped twice does not swallow the next item",
      `  out: ${"t ".repeat(80)}end.\n  out: next one.`,
      `  out: ${"t ".repeat(37).trimEnd()}\n    ${"t ".repeat(38).trimEnd()}\n    ${"t ".repeat(5)}end.\n  out: next one.`,
    ],
  ])("%s", (_name, input, output) => {
    expect(wrapHelp(input)).toBe(output);
  });

  it("a prose line that starts with a number is not a list item: its overflow stays at the margin", () => {
    const out = wrapHelp(`${"p ".repeat(36)}bytes at\n1000 of them are kept ${"w ".repeat(30)}end\nand more prose here`);
    expect(out.split("\n").filter((l) => l.startsWith(" "))).toEqual([]);
    expect(tooWide(out)).toEqual([]);
    // Indented under a label, a number still starts an item (an exit code's line).
    expect(wrapHelp(`exit: 0 ok\n      2 ${"r ".repeat(40)}end`).split("\n")[2]).toMatch(/^ {8}r/);
  });

  it("keeps every word, in order, and fits the width whenever words allow", () => {
    for (const n of [10, 30, 60, 200]) {
      const text = `intro: ${long(n)}\n\n  col   ${long(n)}\n- ${long(n)}`;
      const out = wrapHelp(text);
      expect(tooWide(out)).toEqual([]);
      expect(out.split(/\s+/).filter(Boolean)).toEqual(text.split(/\s+/).filter(Boolean));
    }
  });
});

describe("nearest", () => {
  it.each([
    ["breif", "brief"],
    ["raed", "read"],
    ["wirte", "write"],
    ["Read", "read"],
    ["chekc", "check"],
    ["recovr", "recover"],
    ["anchor", "anchors"],
    ["dirft", "drift"],
    ["hok", "hook"],
    ["promot", "promote"],
    ["readtarget", "read-target"],
    ["redac", "redact"],
    ["xyzzy", null],
    ["commit", null],
    ["", null],
  ])("%s -> %s", (word, want) => {
    expect(nearest(word, ["read", "write", "read-target", "promote", "check", "recover", "anchors", "drift", "brief", "hook", "redact"])).toBe(want);
  });
});

describe("the help the bundle prints", () => {
  // One page each: the long explanations live in references/verbs.md, which the help names.
  it.each(["", ...VERB_NAMES])("%s --help is at most 60 lines", (verb) => {
    const r = helper(verb === "" ? ["--help"] : [verb, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/\n$/, "").split("\n").length).toBeLessThanOrEqual(60);
    // Output passes through redaction: a help line it takes for a secret would print garbled.
    expect(r.stdout.replaceAll("<redacted: KIND>", "")).not.toContain("<redacted");
  });

  it.each(VERB_NAMES)("%s --help fits 80 columns, in both spellings, and ends with an example", (verb) => {
    for (const args of [[verb, "--help"], ["--help", verb]]) {
      const r = helper(args);
      expect(r.code).toBe(0);
      expect(tooWide(r.stdout)).toEqual([]);
      expect(r.stdout).toMatch(/\nexample:\n/);
    }
  });

  // The layout the wrapper makes: exit codes read as one block, and a wrapped prose line that
  // happens to start with a number is not indented as a list item.
  it.each(["", ...VERB_NAMES])("%s --help: its exit codes are one block, its paragraphs start at the margin", (verb) => {
    const lines = helper(verb === "" ? ["--help"] : [verb, "--help"]).stdout.split("\n");
    const exit = lines.findIndex((l) => /^exit:/.test(l));
    if (exit >= 0) {
      let last = exit;
      for (let i = exit + 1; i < lines.length && lines[i]!.trim() !== ""; i++) if (/^\s+\d+ /.test(lines[i]!)) last = i;
      expect(lines.slice(exit + 1, last + 1).filter((l) => !l.startsWith(" ")), "a line at the margin inside the exit codes").toEqual([]);
    }
    const hung = lines.filter((l, i) => i > 0 && /^\d+(?!\. )/.test(lines[i - 1]!) && /^ +\S/.test(l));
    expect(hung, "a line indented under a prose line that starts with a number").toEqual([]);
  });

  it("the overview fits 80 columns and names every kill switch file and variable", () => {
    const r = helper(["--help"]);
    expect(r.code).toBe(0);
    expect(tooWide(r.stdout)).toEqual([]);
    for (const name of [".ai/memory/PAUSE", "SESSION_HANDOFF_PAUSE", "session-handoff/PAUSE", "XDG_CONFIG_HOME", "SESSION_HANDOFF_DISABLE", "exit 4"]) {
      expect(r.stdout).toContain(name);
    }
    expect(r.stdout).toContain("read handoff");
    // Wrapped at 80 columns: the example's words, in order.
    expect(r.stdout.replace(/\s+/g, " ")).toContain("write handoff --from-draft <draft> --expected-current-sha256 <token>");
  });

  it("no verb: the usage on stderr, nothing on stdout, exit 2", () => {
    const r = helper([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^usage error: no verb given\n/);
    expect(r.stderr).toContain("usage: node memory_io.mjs <verb>");
  });

  it.each([
    [["breif"], "unknown verb \"breif\"; did you mean brief?"],
    [["wirte", "handoff"], "unknown verb \"wirte\"; did you mean write?"],
    [["--help", "breif"], "no help for \"breif\": not a verb; did you mean brief?"],
    [["xyzzy"], "unknown verb \"xyzzy\"\n"],
  ])("%j: exit 2 with a suggestion only when one is near", (args, message) => {
    const r = helper(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`usage error: ${message}`);
  });
});

describe("the examples", () => {
  it("every verb has one; the session and harness lists name verbs of the table", () => {
    expect(VERB_NAMES.filter((v) => VERBS[v]!.example.length === 0)).toEqual([]);
    expect([...SESSION_VERBS, ...HARNESS_VERBS].filter((v) => !VERB_NAMES.includes(v))).toEqual([]);
  });

  it("run as written, in order, in a fresh repository (the root found by the helper)", () => {
    const root = gitRepo();
    // What the examples name that a fresh repository lacks.
    writeFileSync(path.join(root, "notes.txt"), "notes\n");
    // The draft `validate --stdin` checks: the handoff of write's own example.
    const body = EXAMPLES.write ?? [];
    writeFileSync(path.join(root, "draft.md"), `${body.slice(body.findIndex((l) => l.endsWith("<<'EOF'")) + 1, body.lastIndexOf("EOF")).join("\n")}\n`);
    const order = ["write", "read", "promote", "read-target", "check", "recover", "anchors", "brief", "validate", "archives", "hook", "redact", "install", "uninstall", "doctor", "publish", "checkpoint"];
    expect([...order, "drift"].sort()).toEqual(Object.keys(EXAMPLES).sort().filter((v) => [...order, "drift"].includes(v)));
    const run = (verb: string) => {
      const script = (EXAMPLES[verb] ?? []).join("\n").replaceAll("node memory_io.mjs", `node ${JSON.stringify(HELPER)}`);
      return spawnSync("sh", ["-c", script], { cwd: root, env: cleanEnv(), encoding: "utf8", timeout: 30_000 });
    };
    for (const verb of order) {
      const r = run(verb);
      expect(r.status, `${verb} example\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
    }
    const saved = helper(["read", "handoff", "--root", root]);
    const doc = saved.stdout.split("\n").slice(2, -2).join("\n");
    writeFileSync(path.join(root, "pasted-handoff.md"), `${doc}\n`);
    const drift = run("drift");
    expect(drift.status, drift.stderr).toBe(0);
    // write filled what the example left out: the time and the anchors.
    expect(doc).toMatch(/^Saved: \d{4}-/m);
    expect(doc).toMatch(/^- HEAD: [0-9a-f]{40}$/m);
  });
});
