// `--help` as an agent and a user meet it: every verb's help is one page of at most 60 lines
// and 80 columns with an example that works, the overview names the kill switch, an unknown
// verb gets a "did you mean", and no verb is a usage error on stderr.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { suggestion, usageText } from "../../src/usage.ts";
import { VERBS } from "../../src/verbs/index.ts";
import { HARNESS_VERBS, SESSION_VERBS } from "../../src/verbs/types.ts";
import { gitRepo, helper, HELPER } from "../helpers.ts";
import { inProcess, shellInProcess } from "../in-process.ts";

const VERB_NAMES = Object.keys(VERBS);
const EXAMPLES = Object.fromEntries(VERB_NAMES.map((v) => [v, VERBS[v]!.example]));
// Columns are characters (code points), not bytes: `…` is one column.
const tooWide = (text: string): string[] => text.split("\n").filter((l) => [...l].length > 80);

// Nothing wraps help at run time: every line is written to fit.
describe("the help texts as written", () => {
  it.each(VERB_NAMES)("%s: its help and example fit 80 columns", async (verb) => {
    const v = VERBS[verb]!;
    expect(tooWide(`${(await v.load()).help}\n${v.example.join("\n")}`)).toEqual([]);
  });

  it("the overview fits 80 columns", () => {
    expect(tooWide(usageText())).toEqual([]);
  });
});

describe("suggestion", () => {
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
    ["arch", "archives"],
    ["rd", null],
  ])("%s -> %s", (word, want) => {
    const verbs = ["read", "write", "read-target", "promote", "check", "recover", "anchors", "drift", "brief", "hook", "redact", "archives"];
    expect(suggestion(word, verbs)).toBe(want === null ? "" : `; did you mean ${want}?`);
  });
});

describe("the help the bundle prints", () => {
  // One page each: the long explanations live in references/verbs/, which the help names. One
  // spawn per spelling: every check below reads the same page.
  it.each(["", ...VERB_NAMES])("%s --help: one page of 80 columns, an example, exit codes in one block", async (verb) => {
    const r = helper(verb === "" ? ["--help"] : [verb, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/\n$/, "").split("\n").length).toBeLessThanOrEqual(60);
    expect(tooWide(r.stdout)).toEqual([]);
    // Output passes through redaction: a help line it takes for a secret would print garbled.
    expect(r.stdout.replaceAll("<redacted: KIND>", "")).not.toContain("<redacted");
    // Every page it names ships with the skill: an agent told to read it finds it.
    const named = [...r.stdout.matchAll(/references\/verbs\/([a-z-]+)\.md/g)].map((m) => m[1]!);
    const root = path.resolve(__dirname, "..", "..");
    expect(named.filter((n) => !existsSync(path.join(root, "references", "verbs", `${n}.md`)))).toEqual([]);
    if (verb !== "") {
      expect(r.stdout).toMatch(/\nexample:\n/);
      // The other spelling, run in this process: both spellings load the whole CLI (src/entries/memory_io.ts).
      const other = await inProcess(["--help", verb]);
      expect(other.code).toBe(0);
      expect(other.stdout).toBe(r.stdout);
    }
    // The layout: exit codes read as one block, and a prose line that happens to start with a
    // number is not indented as a list item.
    const lines = r.stdout.split("\n");
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
    // Continued with a backslash, so that it still runs when copied.
    expect(r.stdout.replace(/ \\\n\s*/g, " ")).toContain("write handoff --from-draft <draft> --expected-current-sha256 <token>");
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

  // Through sh as written; each call of the helper runs in this process (shellInProcess), the root found from its cwd.
  it("run as written, in order, in a fresh repository (the root found by the helper)", async () => {
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
      return shellInProcess(script, { cwd: root });
    };
    for (const verb of order) {
      const r = await run(verb);
      expect(r.status, `${verb} example\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
    }
    const saved = await inProcess(["read", "handoff", "--root", root]);
    const doc = saved.stdout.split("\n").slice(2, -2).join("\n");
    writeFileSync(path.join(root, "pasted-handoff.md"), `${doc}\n`);
    const drift = await run("drift");
    expect(drift.status, drift.stderr).toBe(0);
    // write filled what the example left out: the time and the anchors.
    expect(doc).toMatch(/^Saved: \d{4}-/m);
    expect(doc).toMatch(/^- HEAD: [0-9a-f]{40}$/m);
  });
});
