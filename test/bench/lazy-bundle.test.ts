// The start-up scheme of build.mjs, checked on the built file: what the hot verbs parse and
// load, that cold verbs still work through their chunk, and that an error raised in a chunk
// keeps its exit code (one error class shared across the boundary).
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { HELPER, cleanEnv, gitRepo, handoff, save, tempDir } from "../helpers.ts";

const text = readFileSync(HELPER, "utf8");

const MARK = "\n/*@@session-handoff chunks ";

/** The bundle's code without the chunk table that ends it (one comment): what V8 parses at start-up. */
function parsedPart(): string {
  return text.slice(0, text.lastIndexOf(MARK));
}

/** The chunk table: name → deflated code as base64. */
function chunkTable(bundle: string): Map<string, string> {
  const lines = bundle.slice(bundle.lastIndexOf(MARK) + 1).split("\n").slice(1, -2);
  return new Map(lines.map((l) => [l.slice(0, l.indexOf(" ")), l.slice(l.indexOf(" ") + 1)]));
}

/** Runs the helper with a preload that records the chunks compiled and the builtins loaded. */
function traced(args: string[], opts: { cwd?: string; input?: string } = {}) {
  const dir = tempDir("sh-lazy-");
  const report = path.join(dir, "report.json");
  const preload = path.join(dir, "preload.mjs");
  writeFileSync(
    preload,
    [
      'import { writeFileSync } from "node:fs";',
      'import vm from "node:vm";',
      "const chunks = [];",
      // The bundle reads vm.compileFunction when it compiles a chunk: record each chunk's name.
      "const compile = vm.compileFunction;",
      "vm.compileFunction = (code, params, opts) => { const m = /chunk=(\\S+)$/.exec(opts?.filename ?? \"\"); if (m) chunks.push(m[1]); return compile(code, params, opts); };",
      `process.on("exit", () => writeFileSync(${JSON.stringify(report)}, JSON.stringify({ chunks, modules: process.moduleLoadList })));`,
    ].join("\n"),
  );
  const r = spawnSync(process.execPath, ["--import", preload, HELPER, ...args], { cwd: opts.cwd, input: opts.input ?? "", env: cleanEnv(), encoding: "utf8" });
  const { chunks, modules } = JSON.parse(readFileSync(report, "utf8")) as { chunks: string[]; modules: string[] };
  const loaded = (name: string) => modules.includes(`NativeModule ${name}`);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, chunks, loaded };
}

describe("lazy chunks (build.mjs)", () => {
  it("is plain ASCII, so that Node decodes it into a one-byte string (half the pages of a two-byte one)", () => {
    const bytes = readFileSync(HELPER);
    const first = bytes.findIndex((b) => b > 0x7f);
    expect(first === -1 ? "ascii" : JSON.stringify(bytes.subarray(Math.max(0, first - 60), first + 20).toString("utf8"))).toBe("ascii");
  });

  it("keeps every npm package out of the parsed part, which imports only node:module", () => {
    const parsed = parsedPart();
    expect(parsed).not.toMatch(/^\/\/ node_modules\//m);
    expect([...parsed.matchAll(/^import\b.*$/gm)].map((m) => m[0])).toEqual(['import { createRequire as __shCreateRequire } from "node:module";']);
    expect(text.startsWith("#!/usr/bin/env node\n")).toBe(true);
    // The cold verbs are there, as chunk text after the code.
    expect(text).toMatch(/__shChunk\("src\/cold\/verbs\/drift\.ts", /);
    // Every chunk is a file of the cold tier (src/cold/); hot code imports no npm package (a build error).
    expect([...chunkTable(text).keys()].filter((k) => !/^src\/cold\/[\w/.-]+\.ts$/.test(k))).toEqual([]);
    expect(text.endsWith("\n*/\n")).toBe(true);
    // What V8 parses at every start-up stays small, whatever the cold chunks weigh. Issue 15
    // raised it from 130,000: the hook, check and read handoff speak of checkpoints at every
    // session start (about 22,000 characters: the listing, the sentences, the strict time
    // parser), and must do so without compiling the cold chunk (15-25 ms), whereas V8
    // pre-parses those characters in well under a millisecond. Issue 10 raised it to 160,000:
    // write, promote and checkpoint redact before anything touches disk, and the guard grew by
    // about 12,300 characters (PEM blocks read line by line; tables, cookies, XML and
    // command-line passwords; gitleaks v8's other default families), its help text kept in the
    // cold chunk and its patterns compiled on first use. Issue 11 raised it to 163,000: bounded
    // stdin, repeated flags as usage errors, the NUL scan and archive/ check of check and the
    // hook, the sanitiser for write's note, and their help text (about 3,600 characters); the
    // invisible-character rules and their Unicode tables (about 9,000) went to a lazy chunk.
    // Issue 9 added about 6,750: every
    // verb, the hook first, finds its root by the same walk (about 2,400 characters) and the
    // hook states the handoff's age from its own state time, read by the same line reader as
    // drift and brief (about 3,600, plus 750 to read the file whole through the descriptor it
    // already opened), never the file's modification time. Issue 11's store half added about
    // 4,900: check and the hook tell a planted private name from an interrupted save (counting
    // the links the protocol makes), publish hands back a non-regular claim and rolls back step
    // by step, promote finds lines already there, a refused link names its target, and the
    // help text saying so; the repair itself went to the cold chunk (about 3,000), loaded only
    // after an interrupted save. Write's schema checks moved from the cold verbs' chunk to one
    // of their own (write compiled all 220,000 characters of the cold verbs before); the
    // import's facade costs about 200. Then the redaction rules became a chunk of their own
    // (now src/cold/redaction.ts: write, promote and the sanitiser compile it when they first
    // redact; hook, read and check never do), giving back about 34,500 characters. The
    // checkpoint verb's face (options, help getter, its printed lines: about 700 characters)
    // joined the hot part so that a compaction hook compiles only its own chunk (issue 15).
    // Each cold verb then got a chunk of its own (one module wrapper each, about 1,200 in all,
    // and one table of what chunks ask of the hot part): anchors, brief and drift no longer
    // compile every other cold verb. The chunks' text then moved from string literals to one
    // comment after the code (V8 skips a comment faster than it scans a string: ~0.9 ms less
    // per start), read back at offsets of an index in the preamble (the reader and the index:
    // about 2,000 characters).
    // The journal's verbs and write's call into its chunk add ~2,400 (docs/decisions/journal.md).
    // Machines and teammates add ~13,500 (docs/decisions/merge-driver.md): check and the hook
    // find conflict markers and the missing driver config, the hook and write keep this
    // clone's record of its saves (the git dir found from files, with no process).
    // Release 1.2's other merges (the draft form's face in write, the root walk's ownership
    // stop, the Gemini quiet path, the hook's counted sentences) add ~5,300 more: 168,312 at
    // the merge. Giving it back is the hot/cold split's job (docs/design.md#integrations).
    // The hook reading a Windows cwd with path.win32 (src/agents/harness-path.ts: the module,
    // its refusal and its help line) adds ~1,600 (docs/design.md#integrations).
    // Issue 23's last part adds ~840 more (with both: ~170,200): every stderr line through showRefused in cli.ts,
    // the quoting helpers, the git top walk's ownership stop and the "broken repository" state.
    // One parsed model of the handoff for every verb, the hook included, adds ~31,500: the
    // block scanner, parseHandoff and the anchor checks it carries, which the hook and
    // `read`'s checkpoint order now share with drift and brief instead of a line reader of
    // their own; counted, 4 M instructions of parsing and 11 M of running per hook start
    // (docs/design.md#one-reading-of-the-handoff). The tiers (src/cold/) then hold the same
    // code as before; with every 1.2 merge in, 204,263 (docs/decisions/cold-chunks.md); doctor's
    // probe session and the checkpoints' mtime order on a tied second: ~205,800. The scanner
    // and parseHandoff written to allocate less (no slice, regex or object per list marker:
    // the hook on a 150-line handoff had crossed the young generation's first GC), and the
    // hook's state time read without the list-only fields from an unfrozen tree: ~207,600.
    // The help wrapper's list rule and hot verbs' help sentences (issue 26's sentence table)
    // ~440, the scanner's remark rules (docs/decisions/line-scanner.md) ~780: ~208,800. One
    // verdict on a file's bytes (read refusing a NUL, the clean-text test that keeps drift and
    // brief off the cold decoder, the shared sentences) adds ~1,200 (docs/design.md#one-verdict-on-a-files-bytes);
    // one quoting style in refusals and the hook's anchor checks (guard/quote.ts, the sanitiser's
    // marking steps without its segmenter code) ~850 more (docs/design.md#text-outside-the-envelope).
    // checkpoint's busy line naming the lock ~200. The hook's refusal of an unusable cwd, its
    // linked-tree sentence and its calendar age words, with their help lines
    // (docs/decisions/age-words.md), ~1,300: ~213,800.
    expect(parsed.length).toBeLessThan(214_500);
  });

  it("hook, read and check compile no chunk; hook loads neither crypto nor child_process", () => {
    const root = gitRepo();
    save(root, handoff("ship the bench"));
    const hook = traced(["hook", "--mode", "session"], { cwd: root, input: JSON.stringify({ cwd: root }) });
    expect(hook.code).toBe(0);
    expect(hook.stdout).toMatch(/parked handoff exists/);
    expect(hook.chunks).toEqual([]);
    expect(hook.loaded("crypto")).toBe(false);
    expect(hook.loaded("child_process")).toBe(false);
    for (const args of [["read", "handoff", "--root", root], ["check", "--root", root]]) {
      const r = traced(args);
      expect(r.code, args[0]).not.toBe(null);
      expect(r.chunks, args[0]).toEqual([]);
      expect(r.loaded("child_process"), args[0]).toBe(false);
    }
  });

  it("write compiles its schema checks' own chunk and the journal's, never a cold verb's chunk; drift its own chunk only", () => {
    const root = gitRepo();
    const w = traced(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: handoff("ship the bench") });
    expect(w.code).toBe(0);
    expect([...w.chunks].sort()).toEqual(["src/cold/journal-record.ts", "src/cold/redaction.ts", "src/cold/write-checked.ts"]);
    const d = traced(["drift", "--root", root, "--json"]);
    expect(d.chunks).toEqual(["src/cold/verbs/drift.ts"]);
    expect(JSON.parse(d.stdout).verdict).toMatch(/^(fresh|drifted|stale|rewritten|unverifiable)$/);
  });

  it("checkpoint compiles its own chunk, the pruning's and the redaction rules', never the cold verbs' (docs/decisions/cold-chunks.md)", () => {
    const root = gitRepo();
    const transcript = path.join(tempDir(), "t.jsonl");
    // A tool call: only tool calls and edits make a capture (docs/design.md#checkpoints).
    const call = { type: "assistant", sessionId: "s", uuid: "v", timestamp: "2026-11-30T10:00:01Z", message: { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: "/x" } }] } };
    writeFileSync(transcript, `${JSON.stringify({ type: "user", sessionId: "s", uuid: "u", timestamp: "2026-11-30T10:00:00Z", message: { role: "user", content: "add the parser" } })}\n${JSON.stringify(call)}\n`);
    const c = traced(["checkpoint"], { input: JSON.stringify({ session_id: "s1", transcript_path: transcript, cwd: root, hook_event_name: "PreCompact" }) });
    expect(c.code).toBe(0);
    expect(c.stderr).toMatch(/checkpoint: saved checkpoints\/s1\.md/);
    // The pruning of checkpoints/ is a cold file of its own that `recover` shares: one more small chunk.
    expect([...c.chunks].sort()).toEqual(["src/cold/checkpoint-cleanup.ts", "src/cold/checkpoint-run.ts", "src/cold/redaction.ts"]);
  });

  it("the invisible-character rules are a chunk of their own, compiled only for a text that needs them", () => {
    const root = gitRepo();
    // write's schema checks are a chunk of their own (contract 1.1 §8), never the rules' chunk.
    const plain = traced(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: handoff("plain text") });
    expect([...plain.chunks].sort()).toEqual(["src/cold/journal-record.ts", "src/cold/redaction.ts", "src/cold/write-checked.ts"]);
    const token = /CURRENT-SHA256: (\S+)\n$/.exec(plain.stdout)![1]!;
    // A warning sign with its emoji selector, and Persian with ZWNJ: the rules decide.
    const living = traced(["write", "handoff", "--root", root, "--expected-current-sha256", token], { input: handoff("⚠️ کتاب\u200Cها") });
    expect(living.code, living.stderr).toBe(0);
    expect(living.chunks.sort()).toEqual(["src/cold/invisible-rules.ts", "src/cold/journal-record.ts", "src/cold/redaction.ts", "src/cold/write-checked.ts"]);
    const read = traced(["read", "handoff", "--root", root]);
    expect(read.stdout).toContain("⚠️ کتاب\u200Cها");
    expect(read.chunks).toEqual(["src/cold/invisible-rules.ts"]);
    // anchors imports the rules through the hot part: they wait until a path needs them.
    const anchors = traced(["anchors", "--root", root]);
    expect(anchors.chunks).toEqual(["src/cold/verbs/anchors.ts"]);
  });

  it("an error raised inside the cold chunk keeps its exit code and message", () => {
    const root = gitRepo();
    const absent = traced(["drift", "--root", root]);
    expect(absent.chunks).toEqual(["src/cold/verbs/drift.ts"]);
    expect(absent.code).toBe(3);
    expect(absent.stderr).not.toMatch(/internal error/);
    const missing = path.join(tempDir(), "nope");
    const refused = traced(["anchors", "--root", missing]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^memory operation refused: /m);
    expect(refused.stderr).not.toMatch(/internal error/);
  });

  it("each cold verb compiles its own chunk and no other", () => {
    const root = gitRepo();
    save(root, handoff("one chunk each"));
    for (const [args, chunk] of [
      [["brief", "--root", root], "src/cold/verbs/brief.ts"],
      [["validate", "--root", root], "src/cold/verbs/validate.ts"],
      [["archives", "list", "--root", root], "src/cold/verbs/archives.ts"],
      [["redact"], "src/cold/verbs/redact.ts"],
    ] as const) {
      const r = traced([...args], { input: "" });
      expect(r.code, `${args[0]} ${r.stderr}`).not.toBe(null);
      expect(r.chunks.filter((c) => c.startsWith("src/cold/verbs/")), args[0]).toEqual([chunk]);
    }
  });

  it("a cold verb's --help and redact work through the chunk", () => {
    expect(traced(["drift", "--help"]).stdout).toMatch(/drift/);
    const r = traced(["redact"], { input: "key gh" + "p_abcdefghijklmnopqrstuvwxyz0123456789\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("<redacted: github-token>");
  });
});

describe("the chunk table after the code (build.mjs rule 4)", () => {
  const checkCopy = (text: string) => {
    const file = path.join(tempDir(), "memory_io.mjs");
    writeFileSync(file, text);
    return spawnSync(process.execPath, [path.join(path.dirname(HELPER), "..", "build.mjs"), "--check", "--bundle", file], { encoding: "utf8" });
  };
  const chunkRe = /^(src\/cold\/redaction\.ts )([A-Za-z0-9+/=]+)$/m;
  const bundle = () => readFileSync(HELPER, "utf8");

  it("a chunk deflated to other bytes but the same code is fresh (build --check judges the code)", () => {
    const text = bundle().replace(chunkRe, (_, head: string, b64: string) => {
      const again = deflateRawSync(inflateRawSync(Buffer.from(b64, "base64")), { level: 1 }).toString("base64");
      expect(again).not.toBe(b64);
      return `${head}${again}`;
    });
    const r = checkCopy(text);
    expect(r.status, r.stderr).toBe(0);
  });

  it("a chunk whose code differs by one character is stale", () => {
    const text = bundle().replace(chunkRe, (_, head: string, b64: string) => {
      const code = inflateRawSync(Buffer.from(b64, "base64")).toString("utf8");
      return `${head}${deflateRawSync(Buffer.from(`${code} `)).toString("base64")}`;
    });
    const r = checkCopy(text);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/is not what `npm run build` makes/);
  });

  it("a file whose table is gone or belongs to another build says so when a chunk is needed; hot verbs never read it", () => {
    const root = gitRepo();
    save(root, handoff("table"));
    const dir = tempDir("sh-table-");
    const run = (text: string, args: string[]) => {
      const file = path.join(dir, "memory_io.mjs");
      writeFileSync(file, text);
      return spawnSync(process.execPath, [file, ...args], { env: cleanEnv(), encoding: "utf8" });
    };
    const full = bundle();
    const cut = full.slice(0, full.lastIndexOf(MARK) + 1);
    const other = full.replace(/(\n\/\*@@session-handoff chunks )([0-9a-f]{16})/, (_, head: string, id: string) => `${head}${id === "0".repeat(16) ? "1" : "0".repeat(16)}`);
    for (const broken of [cut, other]) {
      const a = run(broken, ["anchors", "--root", root]);
      expect(a.status).toBe(2);
      expect(a.stderr).toBe("memory_io internal error: memory_io.mjs: the code of src/cold/verbs/anchors.ts is missing from the file (it was replaced while it ran, or damaged): run the command again, or reinstall the skill\n");
      // The hook and check need no chunk: they work, and the hook still exits 0.
      expect(run(broken, ["check", "--root", root]).status).toBe(2);
      const h = spawnSync(process.execPath, [path.join(dir, "memory_io.mjs"), "hook", "--mode", "session", "--root", root], { env: cleanEnv(), encoding: "utf8", input: "" });
      expect(h.status).toBe(0);
      expect(h.stdout).toMatch(/parked handoff exists/);
    }
  });
});
