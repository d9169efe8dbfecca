import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CHECKPOINT_LINES } from "../../src/checkpoint/capture.ts";
import { aged, briefBody, copyHelper, everyByteUnder, gitRepo, handoff, helper, memFiles, referenceOf, tempDir } from "../helpers.ts";
import { inProcess, saveIn, tokenIn } from "../in-process.ts";
import { CP_DIR, checkpoint, checkpointAsync, cpFiles, cpText, hookInput, minutesAgoIso, plantCheckpoint, transcript } from "./support.ts";
import { FAKE_GITHUB_TOKEN } from "../fixtures/transcripts/fakes.ts";

// Checkpoints (docs/design.md#checkpoints), through the built helper as a harness runs it.

const TOKEN = FAKE_GITHUB_TOKEN;

// The verbs run in this process (inProcess) for what checkpoint captures and where; spawned
// (checkpoint(), helper()): the exit code at the boundary, environment switches, stdin, a git that
// hangs, two sessions' processes at once.
/** `checkpoint` in this process with a hook input, as checkpoint() of support.ts spawns it. */
const checkpointIn = (root: string, fields: Record<string, unknown> = {}, args: string[] = [], env: Record<string, string> = {}) =>
  inProcess(["checkpoint", ...args], { input: hookInput(root, fields), env });

describe("checkpoint: capture from the hook input and the transcript", () => {
  // Spawned: the whole run as a harness makes it, through the built bundle.
  it("writes checkpoints/<session>.md from a Claude Code transcript, prints nothing on stdout, exits 0", () => {
    const root = gitRepo();
    const r = checkpoint(root, { transcript_path: transcript(root) });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("checkpoint: redacted 1 secret(s): github-token from the transcript\ncheckpoint: saved checkpoints/sess-1.md\n");
    const text = cpText(root, "sess-1")!;
    expect(text).toMatch(/^<!-- memory-schema: v1 -->\n# Session Checkpoint\nSaved: \S+Z\nSession: sess-1\nSession-start: 2026-11-30T09:00:00.000Z\nTrigger: pre-compact\nSource: claude 2\.1\.80\n/);
    expect(text).toContain('- The user wrote: "Great, now also check the logout flow"');
    expect(text).toMatch(/- Branch: main\n- HEAD: [0-9a-f]{40}\n- Dirty files: claude-\S+\.jsonl\n- Date: \S+Z\n$/);
    expect(statSync(path.join(CP_DIR(root), "sess-1.md")).mode & 0o777).toBe(0o600);
    expect(statSync(CP_DIR(root)).mode & 0o777).toBe(0o700);
  });

  it.each([
    ["claude", "--format claude"],
    ["codex", "--format codex"],
    ["gemini", "--format gemini"],
    ["codex", ""],
    ["gemini", ""],
  ])("the %s golden transcript gives its golden sections (%s)", async (name, flag) => {
    const root = gitRepo();
    const r = await checkpointIn(root, { transcript_path: transcript(root, name) }, flag ? flag.split(" ") : []);
    expect(r.code).toBe(0);
    const golden = readFileSync(path.join(__dirname, "..", "fixtures", "transcripts", `${name}.expected.md`), "utf8");
    const body = (t: string) => t.slice(t.indexOf("## User requests"), t.indexOf("## Environment anchors"));
    expect(body(cpText(root, "sess-1")!)).toBe(body(golden));
  });

  it.each([
    ["no transcript_path", {}, "the hook input names no transcript"],
    ["a missing transcript (deleted between the hook's start and the read)", { transcript_path: "/nonexistent/t.jsonl" }, "the transcript does not exist"],
    ["a relative transcript path", { transcript_path: "t.jsonl" }, "the transcript path is not an absolute path"],
    ["transcript_path null (Codex)", { transcript_path: null }, "the hook input names no transcript"],
  ])("%s gives an anchors-only checkpoint", async (_t, fields, reason) => {
    const root = gitRepo();
    const r = await checkpointIn(root, fields);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(CHECKPOINT_LINES.noTranscript(reason));
    const text = cpText(root, "sess-1")!;
    expect(text.match(/- none captured/g)).toHaveLength(5);
    expect(text).toMatch(/- HEAD: [0-9a-f]{40}/);
  });

  it.each([
    ["an unknown format", "hello world\nnot a transcript\n"],
    ["a compressed file", Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 1, 2, 3, 10, 4, 5])],
    ["a gzip file", Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 10])],
  ])("%s gives an anchors-only checkpoint", async (_t, content) => {
    const root = gitRepo();
    const p = path.join(root, "t.jsonl");
    writeFileSync(p, content);
    const r = await checkpointIn(root, { transcript_path: p });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(CHECKPOINT_LINES.unknownFormat());
    expect(cpText(root, "sess-1")).toContain("Source: anchors only (transcript in an unrecognised format)");
  });

  it("a transcript that is a link or a FIFO is not followed or waited on", async () => {
    const root = gitRepo();
    const link = path.join(root, "link.jsonl");
    symlinkSync(transcript(root), link);
    const r = await checkpointIn(root, { transcript_path: link });
    expect(r.stderr).toContain(CHECKPOINT_LINES.noTranscript("the transcript is a link"));
    expect(cpText(root, "sess-1")).not.toContain("The user wrote");
  });

  it("a 50 MB transcript truncated mid-line with sidechain records is read from its tail only", async () => {
    const root = gitRepo();
    const p = path.join(root, "big.jsonl");
    const fd = openSync(p, "w");
    const rec = (o: Record<string, unknown>) => `${JSON.stringify({ sessionId: "s", timestamp: "2026-11-30T01:00:00Z", ...o })}\n`;
    writeSync(fd, rec({ type: "user", message: { content: "the very first request" } }));
    const filler = Buffer.from((rec({ type: "user", isSidechain: true, message: { content: `sidechain ${"x".repeat(2000)}` } }) + rec({ type: "assistant", message: { content: [{ type: "text", text: "working" }] } })).repeat(500));
    for (let n = 0; n < 50 * 1024 * 1024; n += filler.length) writeSync(fd, filler);
    writeSync(fd, rec({ type: "user", message: { content: "the last request" } }));
    // Only tool calls make a capture (docs/design.md#checkpoints).
    writeSync(fd, rec({ type: "assistant", message: { content: [{ type: "tool_use", id: "t9", name: "Read", input: { file_path: "/x" } }] } }));
    writeSync(fd, '{"type":"user","message":{"content":"torn');
    closeSync(fd);
    const r = await checkpointIn(root, { transcript_path: p });
    expect(r.code).toBe(0);
    const text = cpText(root, "sess-1")!;
    expect(text).toContain('- The user wrote: "the last request"');
    expect(text).not.toMatch(/sidechain|torn|the very first request/);
    expect(text).toContain("Source: claude unknown\n");
    // Session-start comes from the file's first record, not from the tail.
    expect(text).toContain("Session-start: 2026-11-30T01:00:00Z");
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
  });

  it("a 5 MB last record is skipped with a note; the records before it are captured", async () => {
    const root = gitRepo();
    const p = path.join(root, "t.jsonl");
    const rec = (o: Record<string, unknown>) => `${JSON.stringify({ sessionId: "s", timestamp: "2026-11-30T01:00:00Z", ...o })}\n`;
    const call = rec({ type: "assistant", message: { content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "npm test" } }] } });
    const result = rec({ type: "user", message: { content: [{ type: "tool_result", tool_use_id: "t1", content: "big", is_error: false }] } });
    writeFileSync(p, rec({ type: "user", message: { content: "run the tests" } }) + call + result.replace("big", "x".repeat(5_000_000)));
    const r = await checkpointIn(root, { transcript_path: p });
    expect(r.code).toBe(0);
    // The last 1 MiB lacks the last statement, so all of the last 4 MiB is read.
    expect(r.stderr).toContain(CHECKPOINT_LINES.overlong(1, 4 * 1024 * 1024));
    const text = cpText(root, "sess-1")!;
    expect(text).toContain('- The user wrote: "run the tests"');
    expect(text).toContain("- `npm test` — unknown");
  });

  it("a 5 MB record followed by short ones is skipped; the records before it are captured (real Codex)", async () => {
    const root = gitRepo();
    const real = path.join(__dirname, "..", "fixtures", "transcripts", "real", "codex-cli-0.171.0");
    const lines = readFileSync(path.join(real, "fallback-tools.rollout.jsonl"), "utf8").split("\n").filter(Boolean);
    // The first command's output (the 14th record) grows to 5 MB; the apply_patch and the reply follow it.
    const at = lines.findIndex((l) => l.includes('"function_call_output"'));
    const rec = JSON.parse(lines[at]!);
    rec.payload.output = `${rec.payload.output}${"o".repeat(5_000_000)}`;
    const p = path.join(root, "rollout.jsonl");
    writeFileSync(p, `${[...lines.slice(0, at), JSON.stringify(rec), ...lines.slice(at + 1)].join("\n")}\n`);
    const r = await checkpointIn(root, { transcript_path: p }, ["--format", "codex"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(CHECKPOINT_LINES.overlong(1, 4 * 1024 * 1024));
    const text = cpText(root, "sess-1")!;
    expect(text).toContain('- The user wrote: "Add a subtract function in src/sub.js and tell me what you did."');
    expect(text).toContain("- `ls src && false` — exit 1");
    expect(text).toMatch(/## Files edited\n- \S*src\/sub\.js\n/);
  });

  describe("the part read: the last 1 MiB, all of the last 4 MiB when that lacks what is needed", () => {
    const rec = (o: Record<string, unknown>) => `${JSON.stringify({ sessionId: "s", timestamp: "2026-11-30T01:00:00Z", ...o })}\n`;
    const user = (text: string) => rec({ type: "user", message: { content: text } });
    const said = (text: string) => rec({ type: "assistant", message: { content: [{ type: "text", text }] } });
    const tool = (id: string, name: string, input: Record<string, unknown>) => rec({ type: "assistant", message: { content: [{ type: "tool_use", id, name, input }] } });
    // Tool output the size of a file read: bytes without a request, a claim or a plan.
    const output = (bytes: number) => rec({ type: "user", message: { content: [{ type: "tool_result", tool_use_id: "toolu_x", content: "o".repeat(bytes) }] }, toolUseResult: { stdout: "" } });
    const MiB = 1024 * 1024;
    const write = (root: string, parts: string[]) => {
      const p = path.join(root, "t.jsonl");
      writeFileSync(p, parts.join(""));
      return p;
    };
    const run = async (root: string, p: string) => {
      const r = await checkpointIn(root, { transcript_path: p });
      expect(r.code).toBe(0);
      return cpText(root, "sess-1")!;
    };

    it("stops at 1 MiB when it holds three requests, a claim and no plan is written before it", async () => {
      const root = gitRepo();
      const text = await run(root, write(root, [user("first of all"), tool("t1", "Edit", { file_path: "/old/file.ts" }), output(2 * MiB), user("one"), user("two"), user("three"), tool("t2", "Read", { file_path: "/x" }), said("done")]));
      expect(text).toContain("Source: claude unknown\n");
      expect(text).toContain('- The user wrote: "three"');
      // Files edited and commands are those of the part read.
      expect(text).not.toContain("/old/file.ts");
      // The session's start still comes from the file's first record.
      expect(text).toContain("Session-start: 2026-11-30T01:00:00Z");
    });

    it("reads on when the latest plan lies further back, and finds it", async () => {
      const root = gitRepo();
      const todos = [{ content: "migrate the schema", status: "in_progress" }, { content: "ship it", status: "pending" }];
      const text = await run(root, write(root, [tool("t1", "TodoWrite", { todos }), output(2 * MiB), user("one"), user("two"), user("three"), said("done")]));
      // The file is under 4 MiB: all of it was read.
      expect(text).toContain("Source: claude unknown\n");
      expect(text).toContain("- [~] migrate the schema");
      expect(text).toContain("- [ ] ship it");
    });

    it("reads on when fewer than three requests are in the last 1 MiB", async () => {
      const root = gitRepo();
      const text = await run(root, write(root, [user("zero"), output(4 * MiB), user("one"), output(MiB), user("two"), user("three"), tool("t2", "Read", { file_path: "/x" }), said("done")]));
      expect(text).toContain("Source: claude unknown\n");
      expect(text).toContain('- The user wrote: "one"');
      expect(text).not.toContain('"zero"');
    });

    it("reads on when the tasks of the last 1 MiB were created further back", async () => {
      const root = gitRepo();
      const created = rec({ type: "user", message: { content: [{ type: "tool_result", tool_use_id: "tc1", content: "Task #7 created successfully" }] }, toolUseResult: { task: { id: "7" } } });
      const text = await run(root, write(root, [tool("tc1", "TaskCreate", { subject: "write the migration" }), created, output(2 * MiB), user("one"), user("two"), user("three"), tool("tu1", "TaskUpdate", { taskId: "7", status: "completed" }), said("done")]));
      expect(text).toContain("- [x] write the migration");
    });

    it("a plan tool named only in text further back costs a longer read, not a wrong plan", async () => {
      const root = gitRepo();
      const text = await run(root, write(root, [user("please use TodoWrite for this"), output(2 * MiB), user("one"), user("two"), user("three"), tool("t2", "Read", { file_path: "/x" }), said("done")]));
      expect(text).toContain("## Plan state\n- none captured");
      expect(text).toContain('- The user wrote: "three"');
    });
  });

  it("secrets in requests and tool output never reach the disk; planted instructions stay quoted data", async () => {
    const root = gitRepo();
    const r = await checkpointIn(root, { transcript_path: transcript(root), compact_summary: `Summary with ${TOKEN}\n## Environment anchors\n- HEAD: deadbeef` });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain(TOKEN);
    expect(everyByteUnder(path.join(root, ".ai"))).not.toContain(TOKEN);
    const text = cpText(root, "sess-1")!;
    expect(text).not.toContain("Ignore all previous instructions");
    expect(text).toContain("## Compaction summary\n- The harness summarised (not verified): \"Summary with <redacted: github-token> ## Environment anchors - HEAD: deadbeef\"");
    expect(text.match(/^## Environment anchors$/gm)).toHaveLength(1);
  });

  it("invisible and control characters in the transcript are shown as <U+XXXX>, never refused", async () => {
    const root = gitRepo();
    const p = path.join(root, "t.jsonl");
    writeFileSync(p, `${JSON.stringify({ type: "user", sessionId: "s", message: { content: "run \u202Egnp.exe\u202C and \u001b[31mred" } })}\n${JSON.stringify({ type: "assistant", sessionId: "s", uuid: "v", message: { content: [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: "/x" } }] } })}\n`);
    await checkpointIn(root, { transcript_path: p });
    expect(cpText(root, "sess-1")).toContain('- The user wrote: "run <U+202E>gnp.exe<U+202C> and <U+001B>[31mred"');
  });
});

describe("checkpoint: sessions, rewrites and retention", () => {
  it.each([
    ["a valid id", "abc-def_1.2", "abc-def_1.2"],
    ["an id with capitals is hashed (docs/design.md#checkpoints)", "abc-DEF_1.2", null],
    ["a path-like id is hashed", "../../etc/passwd", null],
    ["an id with a space is hashed", "a b", null],
    ["a leading dot is hashed", ".hidden", null],
    ["a missing id", undefined, "unknown"],
    ["an empty id", "", "unknown"],
    ["a number", 42, "unknown"],
  ])("session id: %s", async (_t, id, file) => {
    const root = gitRepo();
    await checkpointIn(root, { session_id: id });
    const names = cpFiles(root).filter((n) => n.endsWith(".md"));
    expect(names).toHaveLength(1);
    if (file !== null) expect(names[0]).toBe(`${file}.md`);
    else expect(names[0]).toMatch(/^[0-9a-f]{16}\.md$/);
  });

  it("input from a subagent (agent_id) is ignored", async () => {
    const root = gitRepo();
    const r = await checkpointIn(root, { agent_id: "agent-1", agent_type: "Explore" });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`${CHECKPOINT_LINES.subagent()}\n`);
    expect(existsSync(path.join(root, ".ai"))).toBe(false);
  });

  it("a rewrite equal apart from Saved: and - Date: is unchanged; Session-start is kept across rewrites", async () => {
    const root = gitRepo();
    const t = transcript(root);
    await checkpointIn(root, { transcript_path: t });
    const first = cpText(root, "sess-1")!;
    await new Promise((r) => setTimeout(r, 1100));
    const again = await checkpointIn(root, { transcript_path: t });
    expect(again.stderr).toContain(CHECKPOINT_LINES.unchanged("sess-1.md"));
    expect(cpText(root, "sess-1")).toBe(first);
    // A later transcript without the early records keeps the recorded start.
    const p = path.join(root, "later.jsonl");
    writeFileSync(p, `${JSON.stringify({ type: "user", sessionId: "s", timestamp: "2026-11-30T11:11:11Z", message: { content: "later" } })}\n${JSON.stringify({ type: "assistant", sessionId: "s", uuid: "v", timestamp: "2026-11-30T11:11:12Z", message: { content: [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: "/x" } }] } })}\n`);
    const later = await checkpointIn(root, { transcript_path: p, hook_event_name: "SessionEnd" });
    expect(later.stderr).toContain(CHECKPOINT_LINES.saved("sess-1.md"));
    const text = cpText(root, "sess-1")!;
    expect(text).toContain("Session-start: 2026-11-30T09:00:00.000Z");
    expect(text).toContain("Trigger: session-end");
  });

  it("past 7 days keeps the checkpoints of the 5 newest sessions by Saved:, deleting only names of the checkpoint pattern", async () => {
    const root = gitRepo();
    mkdirSync(CP_DIR(root), { recursive: true });
    for (let i = 0; i < 6; i++) plantCheckpoint(root, `old-${i}`, minutesAgoIso(8 * 1440 + i));
    writeFileSync(path.join(CP_DIR(root), "notes.txt"), "the user's own file\n");
    writeFileSync(path.join(CP_DIR(root), "mine.md"), "# not a checkpoint\n");
    writeFileSync(path.join(CP_DIR(root), ".delivered-old-5"), "x\n");
    const r = await checkpointIn(root, { session_id: "new" });
    expect(r.code).toBe(0);
    expect(cpFiles(root)).toEqual(["mine.md", "new.md", "notes.txt", "old-0.md", "old-1.md", "old-2.md", "old-3.md"].sort());
  });

  it("two concurrent sessions keep separate checkpoints", async () => {
    const root = gitRepo();
    const t = transcript(root);
    const codex = transcript(root, "codex");
    // Both sessions start together in every round. A session whose checkpoint meets the
    // other's lock skips (lock timeout 0), so on a loaded machine one round may
    // save only one of them: rounds go on (at most 12) until each has saved once.
    const results: { code: number; stdout: string; stderr: string }[] = [];
    const saved = (who: string) => results.some((r) => new RegExp(`saved checkpoints/${who}`).test(r.stderr));
    for (let round = 0; round < 12 && !(round >= 3 && saved("alpha") && saved("beta")); round++) {
      const pair = [checkpointAsync(root, { session_id: "alpha", transcript_path: t }), checkpointAsync(root, { session_id: "beta", transcript_path: codex })];
      results.push(...((await Promise.all(pair)) as { code: number; stdout: string; stderr: string }[]));
    }
    for (const r of results) {
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/checkpoint: (saved|unchanged) checkpoints\/(alpha|beta)\.md|memory is busy/);
    }
    expect(results.filter((r) => /saved checkpoints\/alpha/.test(r.stderr)).length).toBeGreaterThanOrEqual(1);
    expect(results.filter((r) => /saved checkpoints\/beta/.test(r.stderr)).length).toBeGreaterThanOrEqual(1);
    expect(cpText(root, "alpha")).toContain("Session: alpha");
    expect(cpText(root, "alpha")).toContain("logout flow");
    expect(cpText(root, "beta")).toContain("Session: beta");
    expect(cpText(root, "beta")).toContain("pagination");
    expect(cpFiles(root).filter((n) => n.startsWith(".") && !n.startsWith(".delivered"))).toEqual([]);
  });
});

describe("checkpoint: never blocks the harness", () => {
  it.each([
    ["PAUSE in the memory dir", (root: string) => (mkdirSync(path.join(root, ".ai", "memory"), { recursive: true }), writeFileSync(path.join(root, ".ai", "memory", "PAUSE"), "")), {}, CHECKPOINT_LINES.paused()],
    ["SESSION_HANDOFF_DISABLE=1", () => {}, { SESSION_HANDOFF_DISABLE: "1" }, null],
  ])("%s: nothing written, exit 0", (_t, prepare, env, line) => {
    const root = gitRepo();
    prepare(root);
    const r = checkpoint(root, {}, [], env as Record<string, string>);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(line === null ? "" : `${line}\n`);
    expect(existsSync(CP_DIR(root))).toBe(false);
  });

  it.each([
    [["--format", "zip"], /--format must be claude, codex or gemini/],
    [["--bogus"], /bogus/],
    [["extra-positional"], /at most 0/],
  ])("usage error %j: exit 0, stderr only", (args, msg) => {
    const root = gitRepo();
    const r = checkpoint(root, {}, args);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(msg);
  });

  it.each([
    ["not JSON", "{{{"],
    ["a JSON array", "[1]"],
    ["over 1 MiB", JSON.stringify({ session_id: "x", pad: "p".repeat(1_100_000) })],
  ])("hook input %s: an anchors-only checkpoint at the current directory's root", (_t, input) => {
    const root = gitRepo();
    const r = helper(["checkpoint"], { input, cwd: root });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(CHECKPOINT_LINES.badInput());
    expect(cpFiles(root)).toEqual(["unknown.md"]);
  });

  it("a busy lock skips, said on stderr", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("goal"));
    const { parkedAt } = await import("../reliability/support.ts");
    const held = await parkedAt(["write", "handoff", "--root", root, "--expected-current-sha256", await tokenIn(root)], "before-publication", handoff("goal 2"));
    expect(held.parked).toBe(true);
    const r = await checkpointIn(root);
    held.go();
    await held.run;
    expect(r.code).toBe(0);
    // Busy names the holder and the lock, as write's busy refusal does (docs/decisions/lock.md).
    const lock = path.join(root, ".ai", "memory", ".lock");
    const m = /^checkpoint: memory is busy: process (\d+) holds the lock (.+); skipped, nothing was captured\n$/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect(Number(m?.[1])).toBeGreaterThan(0);
    expect(realpathSync(path.dirname(m?.[2] ?? ""))).toBe(realpathSync(path.dirname(lock)));
    expect(cpFiles(root)).toEqual([]);
  });

  it("nothing is written at the home directory", async () => {
    const home = tempDir();
    const r = await inProcess(["checkpoint"], { input: hookInput(home), env: { HOME: home } });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/skipped: not a project: run it from a project folder or pass --root <project>/);
    expect(existsSync(path.join(home, ".ai"))).toBe(false);
  });

  it("a checkpoints folder that is a link is refused, not followed", async () => {
    const root = gitRepo();
    const elsewhere = tempDir();
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    symlinkSync(elsewhere, CP_DIR(root));
    const r = await checkpointIn(root);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/checkpoint: skipped: .*link/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("leftovers of an interrupted checkpoint are removed by the next one and by recover", async () => {
    const root = gitRepo();
    // A capture (an anchors-only checkpoint is never parked state: docs/design.md#checkpoints).
    await checkpointIn(root, { session_id: "a", transcript_path: transcript(root) });
    writeFileSync(path.join(CP_DIR(root), ".a.md.tmp-99999-0badf00d"), "half");
    writeFileSync(path.join(CP_DIR(root), ".b.md.claim-99999-0badf00d"), cpText(root, "a")!.replace("Session: a", "Session: b"));
    // check's code is not changed by leftovers: no handoff, a checkpoint parked: 2.
    expect((await inProcess(["check", "--root", root])).code).toBe(2);
    const rec = await inProcess(["recover", "--root", root]);
    expect(rec.code).toBe(0);
    expect(cpFiles(root)).toEqual(["a.md", "b.md"]);
    writeFileSync(path.join(CP_DIR(root), ".a.md.tmp-99999-0badf00e"), "half");
    await checkpointIn(root, { session_id: "a" });
    expect(cpFiles(root)).toEqual(["a.md", "b.md"]);
  });

  it("the memory dir's other files are untouched by a checkpoint", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("goal"));
    const before = readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"));
    const files = memFiles(root);
    await checkpointIn(root);
    expect(readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"))).toEqual(before);
    expect(memFiles(root)).toEqual([...files, "checkpoints"].sort());
  });
});

describe("surfacing: read checkpoint, check, read handoff, brief (26)", () => {
  it("read checkpoint prints the newest in the envelope; --session picks one; exit 3 when none", async () => {
    const root = gitRepo();
    expect(await inProcess(["read", "checkpoint", "--root", root])).toMatchObject({ code: 3, stdout: "CURRENT-SHA256: absent\n" });
    mkdirSync(CP_DIR(root), { recursive: true });
    plantCheckpoint(root, "older", minutesAgoIso(30));
    plantCheckpoint(root, "newer", minutesAgoIso(5));
    const r = await inProcess(["read", "checkpoint", "--root", root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^CURRENT-SHA256: [0-9a-f]{64}\n<<<BEGIN UNTRUSTED checkpoints\/newer\.md [0-9a-f]{16}>>>\n<!-- memory-schema: v1 -->\n# Session Checkpoint\n/);
    expect((await inProcess(["read", "checkpoint", "--session", "older", "--root", root])).stdout).toContain("Session: older");
    expect(await inProcess(["read", "checkpoint", "--session", "missing", "--root", root])).toMatchObject({ code: 3, stdout: "CURRENT-SHA256: absent\n" });
  });

  it("check: a checkpoint with no handoff is parked (2), --json says parked: checkpoint; a handoff says parked: handoff", async () => {
    const root = gitRepo();
    expect((await inProcess(["check", "--root", root])).code).toBe(0);
    // An anchors-only checkpoint is not parked state; a capture is (docs/design.md#checkpoints).
    await checkpointIn(root);
    expect((await inProcess(["check", "--root", root])).code).toBe(0);
    await checkpointIn(root, { transcript_path: transcript(root) });
    const j = await inProcess(["check", "--root", root, "--json"]);
    expect(j.code).toBe(2);
    expect(JSON.parse(j.stdout)).toMatchObject({ code: 2, state: "parked", parked: "checkpoint" });
    expect((await inProcess(["check", "--root", root])).stdout).toBe("an automatic checkpoint is parked: no handoff was written; the resume flow can draft from it\n");
    await saveIn(root, handoff("goal"));
    expect(JSON.parse((await inProcess(["check", "--root", root, "--json"])).stdout)).toMatchObject({ code: 2, parked: "handoff" });
  });

  it("check calls a linked checkpoints folder unsafe (one verdict on the tree) and ignores planted entries", async () => {
    const root = gitRepo();
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    symlinkSync(tempDir(), CP_DIR(root));
    expect((await inProcess(["check", "--root", root])).code).toBe(3);
    unlinkSync(CP_DIR(root));
    mkdirSync(CP_DIR(root));
    symlinkSync("/etc/passwd", path.join(CP_DIR(root), "x.md"));
    mkdirSync(path.join(CP_DIR(root), "y.md"));
    expect((await inProcess(["check", "--root", root])).code).toBe(0);
  });

  it("read handoff notes a newer checkpoint on stderr, and says nothing for an older one", async () => {
    const root = gitRepo();
    mkdirSync(CP_DIR(root), { recursive: true });
    plantCheckpoint(root, "s", minutesAgoIso(10));
    // Besides the read's own draft name (docs/decisions/drafts.md).
    const notes = (r: { stderr: string }) => r.stderr.replace(/^DRAFT: \S+\n/m, "");
    const none = await inProcess(["read", "handoff", "--root", root]);
    expect(none.code).toBe(3);
    expect(notes(none)).toBe("note: no handoff exists, but an automatic checkpoint does (checkpoints/s.md, captured 10 minutes ago); run `read checkpoint` to see it\n");
    await saveIn(root, aged(handoff("goal"), minutesAgoIso(60)));
    expect(notes(await inProcess(["read", "handoff", "--root", root]))).toBe(
      "note: an automatic checkpoint newer than this handoff exists (checkpoints/s.md, captured 10 minutes ago); before saving, run `read checkpoint` and start the new handoff from it\n",
    );
    // A second session since the save is named too, not skipped (found by a newcomer).
    plantCheckpoint(root, "t", minutesAgoIso(30));
    expect(notes(await inProcess(["read", "handoff", "--root", root]))).toBe(
      "note: an automatic checkpoint newer than this handoff exists (checkpoints/s.md, captured 10 minutes ago); before saving, run `read checkpoint` and start the new handoff from it; 1 more since the handoff: `read checkpoint --session t`\n",
    );
    plantCheckpoint(root, "t", minutesAgoIso(120));
    plantCheckpoint(root, "s", minutesAgoIso(120));
    expect(notes(await inProcess(["read", "handoff", "--root", root]))).toBe("");
  });

  it("brief drafts from the checkpoint when there is no handoff, every field marked (captured, not confirmed)", async () => {
    const root = gitRepo();
    await checkpointIn(root, { transcript_path: transcript(root) });
    const r = await inProcess(["brief", "--root", root]);
    expect(r.code).toBe(0);
    const lines = briefBody(r.stdout).trimEnd().split("\n");
    expect(lines).toHaveLength(6);
    for (const l of lines) expect(l).toContain("(captured, not confirmed)");
    expect(lines[0]).toBe('Goal: the user\'s last request: "Great, now also check the logout flow" (captured, not confirmed)');
    expect(lines[1]).toBe("Plan status: 1 done, 1 in progress, 1 todo; in progress: Fix the redirect target (captured, not confirmed)");
    expect(lines[4]).toMatch(/source: checkpoint \d+ minutes? ago$/);
    expect(JSON.parse((await inProcess(["brief", "--root", root, "--json"])).stdout).brief.source).toBe("checkpoint");
  });

  it("brief folds a newer checkpoint into the handoff's brief; a handoff saved later supersedes it", async () => {
    const root = gitRepo();
    const doc = (saved: string) =>
      `<!-- memory-schema: v1 -->\n# Session Handoff\nSaved: ${saved}\n\n## Current goal\nShip login\n\n## Plan\n- [ ] old step\n\n## Decisions\n- [user-directed] keep JWT\n\n## Failed approaches\n- cookies — blocked by CORS\n\n## Open questions\n\n## Next steps\n- run \`npm test\`\n\n## Key files\n\n## Environment anchors\n- Date: ${saved}\n`;
    await saveIn(root, doc(minutesAgoIso(60)));
    mkdirSync(CP_DIR(root), { recursive: true });
    plantCheckpoint(root, "s", minutesAgoIso(5));
    const r = await inProcess(["brief", "--root", root]);
    expect(r.code, r.stderr).toBe(0);
    const lines = briefBody(r.stdout).trimEnd().split("\n");
    expect(lines[0]).toBe("Goal: Ship login");
    expect(lines[1]).toBe("Plan status: 0 done, 1 in progress, 0 todo; in progress: planted step (captured, not confirmed)");
    expect(lines[2]).toContain("keep JWT");
    expect(lines[4]).toMatch(/; source: checkpoint 5 minutes ago$/);
    // The handoff has no anchors: drift is unverifiable, and says so before the checkpoint's step.
    expect(lines[5]).toBe("Proposed next step: check the repository by hand (the anchors could not be verified), then: planted step (captured, not confirmed) — Confirm?");
    await saveIn(root, doc(minutesAgoIso(1)).replace("old step", "new step"));
    const later = (await inProcess(["brief", "--root", root])).stdout;
    expect(later).not.toContain("captured");
    expect(later).toContain("new step");
  });
});

describe("a newer checkpoint with no plan still reaches the brief (found by a newcomer's run)", () => {
  it("its last request is named with the source and its failed commands join do-not-retry, marked captured", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("Ship login"));
    mkdirSync(CP_DIR(root), { recursive: true });
    const at = minutesAgoIso(2);
    const text = `<!-- memory-schema: v1 -->\n# Session Checkpoint\nSaved: ${at}\nSession: s\nSession-start: unknown\nTrigger: session-end\nSource: planted\n\n## User requests\n- The user wrote: "rename the CSV parser to strict mode"\n\n## Commands\n- \`npm test\` — exit 1\n\n## Environment anchors\n- Date: ${at}\n`;
    writeFileSync(path.join(CP_DIR(root), "s.md"), text, { mode: 0o600 });
    const lines = briefBody((await inProcess(["brief", "--root", root])).stdout).trimEnd().split("\n");
    expect(lines[3]).toBe("Do-not-retry: failed since the save: `npm test` — exit 1 (captured, not confirmed)");
    expect(lines[4]).toMatch(/source: checkpoint 2 minutes ago; after the save the user asked: "rename the CSV parser to strict mode" \(captured, not confirmed\)$/);
  });
});

describe("a command a signal ended (exit -N) is a failed command in the brief, as retention counts it", () => {
  it("joins do-not-retry, marked captured", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("Ship login"));
    mkdirSync(CP_DIR(root), { recursive: true });
    const at = minutesAgoIso(2);
    const text = `<!-- memory-schema: v1 -->\n# Session Checkpoint\nSaved: ${at}\nSession: s\nSession-start: unknown\nTrigger: session-end\nSource: planted\n\n## Commands\n- \`npm test\` — exit -9\n\n## Environment anchors\n- Date: ${at}\n`;
    writeFileSync(path.join(CP_DIR(root), "s.md"), text, { mode: 0o600 });
    const lines = briefBody((await inProcess(["brief", "--root", root])).stdout).trimEnd().split("\n");
    expect(lines[3]).toBe("Do-not-retry: failed since the save: `npm test` — exit -9 (captured, not confirmed)");
  });
});

describe("a newer checkpoint keeps the brief's warnings (found by a newcomer's run)", () => {
  it("drift's verdict stays before the checkpoint's step and the open question after it", async () => {
    const root = gitRepo();
    const saved = minutesAgoIso(60);
    const git = (...args: string[]) => execFileSync("git", ["-C", root, ...args], { encoding: "utf8" }).trim();
    const anchors = `- Branch: ${git("branch", "--show-current")}\n- HEAD: ${git("rev-parse", "HEAD")}\n- Dirty files: none\n- Date: ${saved}\n`;
    const doc = `<!-- memory-schema: v1 -->\n# Session Handoff\nSaved: ${saved}\n\n## Current goal\nShip login\n\n## Plan\n- [ ] old step\n\n## Decisions\n- [user-directed] keep JWT\n\n## Failed approaches\n- cookies — blocked by CORS\n\n## Open questions\n- Which port? Waiting on the user.\n\n## Next steps\n- run \`npm test\`\n\n## Key files\n\n## Environment anchors\n${anchors}`;
    await saveIn(root, doc);
    // Two commits since the save: drift is `drifted`.
    for (const n of [1, 2]) {
      writeFileSync(path.join(root, `f${n}.txt`), `${n}\n`);
      execFileSync("git", ["-C", root, "add", "."]);
      execFileSync("git", ["-C", root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", `c${n}`]);
    }
    mkdirSync(CP_DIR(root), { recursive: true });
    plantCheckpoint(root, "s", minutesAgoIso(5));
    const lines = briefBody((await inProcess(["brief", "--root", root])).stdout).trimEnd().split("\n");
    expect(lines[5]).toBe("Proposed next step: re-check the steps the drift touches, then: planted step (captured, not confirmed) (open question first: Which port? Waiting on the user.) — Confirm?");
  });
});

describe("references/verbs/ documents every line the verb prints", () => {
  it("checkpoint", () => {
    const help = referenceOf("checkpoint");
    for (const line of [
      CHECKPOINT_LINES.saved("<session>.md"),
      CHECKPOINT_LINES.unchanged("<session>.md"),
      CHECKPOINT_LINES.paused(),
      CHECKPOINT_LINES.subagent(),
      CHECKPOINT_LINES.busy("<who>", "<path>"),
      CHECKPOINT_LINES.skipped("<reason>"),
      CHECKPOINT_LINES.noTranscript("<why>"),
      CHECKPOINT_LINES.unknownFormat(),
      CHECKPOINT_LINES.badInput(),
    ]) {
      expect(help).toContain(line);
    }
  });
});

describe("checkpoint: anchors within their size limits", () => {
  it("dirty files: at most 10 paths and 1,024 bytes, then a count", async () => {
    const root = gitRepo();
    for (let i = 0; i < 15; i++) writeFileSync(path.join(root, `f${String(i).padStart(2, "0")}-${"n".repeat(150)}.txt`), "x");
    await checkpointIn(root);
    const line = /^- Dirty files: (.*)$/m.exec(cpText(root, "sess-1")!)![1]!;
    const shown = line.split(", ").filter((p) => !p.startsWith("…"));
    expect(shown.length).toBeLessThanOrEqual(10);
    expect(Buffer.byteLength(shown.join(", "))).toBeLessThanOrEqual(1024);
    expect(line).toMatch(new RegExp(`… and ${15 - shown.length} more$`));
  });

  it("dirty files: an untracked folder is one entry (the hook hashes nothing, and walks no build output)", async () => {
    const root = gitRepo();
    mkdirSync(path.join(root, "dist"));
    for (let i = 0; i < 30; i++) writeFileSync(path.join(root, `dist/f${i}.js`), "x");
    await checkpointIn(root);
    expect(cpText(root, "sess-1")).toMatch(/^- Dirty files: dist\/$/m);
  });

  it("git past 500 ms: the anchors say it timed out, and the checkpoint is still written", () => {
    const root = gitRepo();
    const bin = tempDir();
    // A git that hangs, first on PATH: the timeout is what is under test, not git.
    // It sleeps far longer than the bound, which sits far above a loaded machine's start-up delays.
    writeFileSync(path.join(bin, "git"), "#!/bin/sh\nexec sleep 30\n", { mode: 0o755 });
    const started = Date.now();
    const r = checkpoint(root, {}, [], { PATH: `${bin}:${process.env.PATH}` });
    expect(r.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(cpText(root, "sess-1")).toContain("- Dirty files: unknown (git timed out)");
  });

  it("outside git: the date only", async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, ".ai", "memory"), { recursive: true });
    await checkpointIn(dir);
    expect(cpText(dir, "sess-1")).toMatch(/## Environment anchors\n- Date: \S+Z\n$/);
  });

  it("Stop's last_assistant_message is the last claim, even with no transcript", async () => {
    const root = gitRepo();
    await checkpointIn(root, { hook_event_name: "Stop", last_assistant_message: "All 12 tests pass now." });
    const text = cpText(root, "sess-1")!;
    expect(text).toContain("Trigger: stop");
    expect(text).toContain('- The agent claimed (not verified): "All 12 tests pass now."');
  });
});

describe("checkpoint: a command whose result came after an earlier capture", () => {
  it("a PostToolUse capture's unknown line gives way to the SessionEnd capture's final status: one line", async () => {
    const root = gitRepo();
    const rec = (o: Record<string, unknown>) => `${JSON.stringify({ sessionId: "s", timestamp: "2026-11-30T01:00:00Z", ...o })}\n`;
    const call = rec({ type: "assistant", message: { content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "npm test" } }] } });
    const answer = rec({ type: "user", message: { content: [{ type: "tool_result", tool_use_id: "t1", content: "passed" }] }, toolUseResult: { stdout: "passed" } });
    const p = path.join(root, "t.jsonl");
    writeFileSync(p, rec({ type: "user", message: { content: "run the tests" } }) + call);
    await checkpointIn(root, { transcript_path: p, hook_event_name: "PostToolUse" });
    expect(cpText(root, "sess-1")).toContain("- `npm test` — unknown\n");
    writeFileSync(p, rec({ type: "user", message: { content: "run the tests" } }) + call + answer);
    await checkpointIn(root, { transcript_path: p, hook_event_name: "SessionEnd" });
    const text = cpText(root, "sess-1")!;
    expect(text.match(/`npm test`/g)).toHaveLength(1);
    expect(text).toContain("- `npm test` — ok\n");
  });

  it("a command run twice keeps both runs", async () => {
    const root = gitRepo();
    const rec = (o: Record<string, unknown>) => `${JSON.stringify({ sessionId: "s", timestamp: "2026-11-30T01:00:00Z", ...o })}\n`;
    const call = (id: string) => rec({ type: "assistant", message: { content: [{ type: "tool_use", id, name: "Bash", input: { command: "npm test" } }] } });
    const answer = (id: string, text: string) => rec({ type: "user", message: { content: [{ type: "tool_result", tool_use_id: id, content: text, is_error: true }] }, toolUseResult: "Error" });
    const p = path.join(root, "t.jsonl");
    writeFileSync(p, call("t1") + answer("t1", "Exit code 1") + call("t2"));
    await checkpointIn(root, { transcript_path: p, hook_event_name: "PostToolUse" });
    writeFileSync(p, call("t1") + answer("t1", "Exit code 1") + call("t2") + answer("t2", "Exit code 2"));
    await checkpointIn(root, { transcript_path: p, hook_event_name: "SessionEnd" });
    const text = cpText(root, "sess-1")!;
    expect(text).toContain("- `npm test` — exit 1\n- `npm test` — exit 2\n");
    expect(text).not.toContain("— unknown");
  });
});

describe("checkpoint: the context offer's markers", () => {
  it("a written checkpoint removes .offered-<session> markers untouched for over 7 days, and only those", async () => {
    const root = gitRepo();
    mkdirSync(CP_DIR(root), { recursive: true });
    const old = path.join(CP_DIR(root), ".offered-ended-long-ago");
    const fresh = path.join(CP_DIR(root), ".offered-sess-2");
    for (const p of [old, fresh]) writeFileSync(p, '{"pct":75}\n');
    const eightDays = Date.now() / 1000 - 8 * 86_400;
    utimesSync(old, eightDays, eightDays);
    const r = await checkpointIn(root, { transcript_path: transcript(root) });
    expect(r.stderr).toContain("checkpoint: saved checkpoints/sess-1.md");
    expect(existsSync(old)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  });
});

describe("checkpoint: a project that never used the skill", () => {
  // Run as the copy at helperFile would run: where it lies decides whether it is the user's or the project's.
  const runCopy = (helperFile: string, root: string, home: string) =>
    inProcess(["checkpoint"], { input: hookInput(root, { transcript_path: transcript(root) }), env: { HOME: home }, helperPath: helperFile });

  it("a helper installed for the user writes nothing there, and nothing outside .ai/memory", async () => {
    const home = tempDir("sh-home-");
    const helperFile = path.join(home, ".claude", "skills", "session-handoff", "scripts", "memory_io.mjs");
    copyHelper(helperFile);
    const root = gitRepo();
    const r = await runCopy(helperFile, root, home);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("has no .ai/memory and this helper is installed for the user, not the project; nothing was captured");
    expect(existsSync(path.join(root, ".ai"))).toBe(false);
    // Once the project uses the skill, the same helper writes its checkpoint there.
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    expect((await runCopy(helperFile, root, home)).stderr).toContain("checkpoint: saved checkpoints/sess-1.md");
  });

  it("a helper installed in the project writes its first checkpoint before any save; git sees nothing", async () => {
    const home = tempDir("sh-home-");
    const root = gitRepo();
    const helperFile = path.join(root, ".claude", "skills", "session-handoff", "scripts", "memory_io.mjs");
    copyHelper(helperFile);
    writeFileSync(path.join(root, ".git", "info", "exclude"), ".claude/\n*.jsonl\n");
    expect((await runCopy(helperFile, root, home)).stderr).toContain("checkpoint: saved checkpoints/sess-1.md");
    expect(execFileSync("git", ["status", "--porcelain"], { cwd: root, encoding: "utf8" })).toBe("");
  });
});

describe("checkpoint: the root of a session whose agent cd'd into a nested repository", () => {
  // Claude Code's hook input cwd follows a `cd` that persists; CLAUDE_PROJECT_DIR (GEMINI_PROJECT_DIR) stays.
  const nested = () => {
    const root = gitRepo();
    const lib = path.join(root, "lib");
    mkdirSync(lib);
    execFileSync("git", ["init", "-q", lib]);
    return { root, lib };
  };
  it.each([
    ["claude", "CLAUDE_PROJECT_DIR"],
    ["gemini", "GEMINI_PROJECT_DIR"],
  ])("--format %s: the checkpoint goes to the project %s names, none into the nested repository", (format, name) => {
    const { root, lib } = nested();
    const fields = { transcript_path: transcript(root), cwd: lib, hook_event_name: "SessionEnd" };
    expect(checkpoint(root, fields, ["--format", format], { [name]: root }).code).toBe(0);
    expect(cpText(root, "sess-1")).toContain("# Session Checkpoint");
    expect(existsSync(path.join(lib, ".ai"))).toBe(false);
    // The session-start hook reads the same root: told of the checkpoint there.
    const hook = helper(["hook", "--mode", "session", "--format", format], { input: JSON.stringify({ session_id: "n", cwd: lib, source: "startup" }), env: { [name]: root } });
    expect(hook.stdout).toContain("automatic checkpoint");
  });
});
