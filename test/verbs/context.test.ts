// The context-threshold offer through the built helper, over the real transcripts of
// test/fixtures/transcripts/real with only the recorded usage numbers changed. The verbs run in
// this process (inProcess) for what the offer says and when; spawned (spawned(), helper()): one
// whole run as the harness makes it, the kill switches, the helper installed for the user.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { claudeWindow } from "../../src/agents/transcripts/claude.ts";
import { readEvents, usagePoints } from "../../src/agents/transcripts/index.ts";
import { readSettings } from "../../src/store/settings.ts";
import { cleanEnv, copyHelper, gitRepo, handoff, helper, save, tempDir } from "../helpers.ts";
import { spawnSync } from "node:child_process";
import { inProcess } from "../in-process.ts";

const REAL = path.join(import.meta.dirname, "..", "fixtures", "transcripts", "real");
const CLAUDE_112 = path.join(REAL, "claude-code-2.1.112");
const CLAUDE_332 = path.join(REAL, "claude-code-2.1.332");
const CODEX = path.join(REAL, "codex-cli-0.171.0");

type Rec = Record<string, any>;

// Main-thread assistant records with usage, by line index.
function assistantLines(lines: string[]): number[] {
  return lines.flatMap((l, i) => (/"type":"assistant"/.test(l) && /"usage"/.test(l) && !/"isSidechain":true/.test(l) ? [i] : []));
}

/** The fixture with the usage of the assistant records from `from` on set to `input` tokens (output 20 kept). */
function withUsage(file: string, input: number, from = 0): string {
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
  for (const i of assistantLines(lines).filter((i) => i >= from)) {
    const rec = JSON.parse(lines[i]!) as Rec;
    rec.message.usage = { ...rec.message.usage, input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    lines[i] = JSON.stringify(rec);
  }
  return `${lines.join("\n")}\n`;
}

function world(text: string, name = "t.jsonl"): { root: string; transcript: string } {
  const root = gitRepo();
  const dir = tempDir("sh-cc-");
  const transcript = path.join(dir, name);
  writeFileSync(transcript, text);
  return { root, transcript };
}

type RunOpts = { event?: string; session?: string; format?: string; env?: Record<string, string>; agent?: string };

function contextArgs(root: string, transcript: string, opts: RunOpts): { args: string[]; input: string } {
  const sub = opts.agent === undefined ? {} : { agent_id: opts.agent, agent_type: "Explore" };
  const input = JSON.stringify({ session_id: opts.session ?? "sess-ctx", transcript_path: transcript, cwd: root, hook_event_name: opts.event ?? "UserPromptSubmit", ...sub });
  return { args: ["context", "--format", opts.format ?? "claude"], input };
}

/** `context` in this process, as the hook runs it. */
function run(root: string, transcript: string, opts: RunOpts = {}) {
  const { args, input } = contextArgs(root, transcript, opts);
  return inProcess(args, { input, env: opts.env });
}

/** `context` through the built bundle, as the harness starts it. */
function spawned(root: string, transcript: string, opts: RunOpts = {}) {
  const { args, input } = contextArgs(root, transcript, opts);
  return helper(args, { input, env: opts.env });
}

function offer(stdout: string): string | null {
  if (stdout === "") return null;
  const out = JSON.parse(stdout) as Rec;
  return out.hookSpecificOutput.additionalContext as string;
}

const cp = (root: string, s = "sess-ctx") => path.join(root, ".ai", "memory", "checkpoints", `${s}.md`);

describe("context: the threshold offer (Claude Code transcripts)", () => {
  it("a usage crossing 75% of 200,000 gives the offer once, in the event's envelope, and writes the checkpoint", async () => {
    const { root, transcript } = world(withUsage(path.join(CLAUDE_112, "work-compact.transcript.jsonl"), 150_000));
    const first = spawned(root, transcript, { event: "PostToolUse" });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).hookSpecificOutput.hookEventName).toBe("PostToolUse");
    expect(offer(first.stdout)).toMatch(/^session-handoff: this session's context is 75% full \(150020 of 200000 tokens; the threshold is 70%\)\. .*save flow/);
    expect(offer(first.stdout)).toContain("An automatic checkpoint is in .ai/memory/checkpoints/ as a safety net.");
    const text = readFileSync(cp(root), "utf8");
    expect(text).toContain("Trigger: context-threshold");
    expect(text).toContain("## User requests");
    for (const event of ["UserPromptSubmit", "PostToolUse", "UserPromptSubmit"]) {
      const again = await run(root, transcript, { event });
      expect(again).toMatchObject({ code: 0, stdout: "" });
    }
  });

  it("a subagent's hook (agent_id) at the crossing neither hears nor uses up the offer: the main agent's next one does", async () => {
    const { root, transcript } = world(withUsage(path.join(CLAUDE_112, "work-compact.transcript.jsonl"), 150_000));
    expect(await run(root, transcript, { event: "PostToolUse", agent: "a1b2" })).toMatchObject({ code: 0, stdout: "" });
    expect(existsSync(path.join(root, ".ai"))).toBe(false);
    expect(offer((await run(root, transcript)).stdout)).toContain("this session's context is 75% full");
  });

  it("after a cd into a nested repository (the input's cwd), the offer's marker and checkpoint are CLAUDE_PROJECT_DIR's", async () => {
    const { root, transcript } = world(withUsage(path.join(CLAUDE_112, "work-compact.transcript.jsonl"), 150_000));
    const lib = path.join(root, "lib");
    mkdirSync(lib);
    spawnSync("git", ["init", "-q", lib]);
    const input = JSON.stringify({ session_id: "sess-ctx", transcript_path: transcript, cwd: lib, hook_event_name: "PostToolUse" });
    const r = await inProcess(["context", "--format", "claude"], { input, env: { CLAUDE_PROJECT_DIR: root } });
    expect(offer(r.stdout)).toContain("75% full");
    expect(existsSync(cp(root))).toBe(true);
    expect(existsSync(path.join(lib, ".ai"))).toBe(false);
  });

  it("a session with no tool call yet gets the offer without a checkpoint named, as none is written", async () => {
    const all = withUsage(path.join(CLAUDE_112, "work-compact.transcript.jsonl"), 150_000).split("\n");
    const talk = all.filter((l) => l !== "" && !/"tool_use"|"tool_result"/.test(l));
    const { root, transcript } = world(`${talk.join("\n")}\n`);
    const r = await run(root, transcript);
    expect(offer(r.stdout)).toMatch(/save only if they agree\.$/);
    expect(existsSync(cp(root))).toBe(false);
  });

  it("a usage under 40% never gives it, on any event, and writes nothing", async () => {
    const { root, transcript } = world(withUsage(path.join(CLAUDE_112, "work-compact.transcript.jsonl"), 79_000));
    for (const event of ["UserPromptSubmit", "PostToolUse", "UserPromptSubmit"]) expect(await run(root, transcript, { event })).toMatchObject({ code: 0, stdout: "" });
    expect(existsSync(path.join(root, ".ai"))).toBe(false);
  });

  it("2.1.332's default model has a 1,000,000 window: 150,000 is no crossing there, 760,000 is", async () => {
    const low = world(withUsage(path.join(CLAUDE_332, "compact.transcript.jsonl"), 150_000));
    expect((await run(low.root, low.transcript)).stdout).toBe("");
    const high = world(withUsage(path.join(CLAUDE_332, "compact.transcript.jsonl"), 760_000));
    expect(offer((await run(high.root, high.transcript)).stdout)).toContain("76% full (760020 of 1000000 tokens");
  });

  it("a handoff saved after the crossing silences it; one crossing after the save is offered", async () => {
    const file = path.join(CLAUDE_112, "save-then-late-turn.transcript.jsonl");
    const lines = readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
    const assistants = assistantLines(lines);
    const saveAt = lines.findIndex((l) => /write handoff/.test(l) && /"tool_use"/.test(l));
    expect(saveAt).toBeGreaterThan(0);
    // Crossing before the save (the smoke check's record) and staying above it; the save is this project's handoff.
    const before = world(withUsage(file, 150_000, assistants.find((i) => i < saveAt)!));
    const token = save(before.root, handoff("Ship the importer."), "absent");
    writeFileSync(before.transcript, readFileSync(before.transcript, "utf8").replace(/CURRENT-SHA256: [0-9a-f]{64}/g, `CURRENT-SHA256: ${token}`));
    expect(await run(before.root, before.transcript)).toMatchObject({ code: 0, stdout: "" });
    expect(existsSync(cp(before.root))).toBe(false);
    // Crossing on the last record only, after the save.
    const after = world(withUsage(file, 150_000, assistants[assistants.length - 1]!));
    expect(offer((await run(after.root, after.transcript)).stdout)).toContain("75% full");
  });

  it("back under the threshold (a compaction) re-arms it: the next crossing is offered again", async () => {
    const src = path.join(CLAUDE_112, "work-compact.transcript.jsonl");
    const { root, transcript } = world(withUsage(src, 150_000));
    expect(offer((await run(root, transcript)).stdout)).not.toBeNull();
    writeFileSync(transcript, withUsage(src, 20_000));
    expect((await run(root, transcript)).stdout).toBe("");
    writeFileSync(transcript, withUsage(src, 160_000));
    expect(offer((await run(root, transcript)).stdout)).toContain("80% full");
  });

  it("settings.json: off, another threshold, another window; a bad value is named on stderr and its default used", async () => {
    const { root, transcript } = world(withUsage(path.join(CLAUDE_112, "work-compact.transcript.jsonl"), 130_000));
    const settings = path.join(root, ".ai", "memory", "settings.json");
    mkdirSync(path.dirname(settings), { recursive: true });
    writeFileSync(settings, JSON.stringify({ contextOffer: false, contextThreshold: 60 }));
    expect(await run(root, transcript, { session: "a" })).toMatchObject({ code: 0, stdout: "", stderr: "" });
    writeFileSync(settings, JSON.stringify({ contextThreshold: 60 }));
    expect(offer((await run(root, transcript, { session: "b" })).stdout)).toContain("65% full (130020 of 200000 tokens; the threshold is 60%)");
    writeFileSync(settings, JSON.stringify({ contextWindow: 1_000_000 }));
    expect((await run(root, transcript, { session: "c" })).stdout).toBe("");
    writeFileSync(settings, JSON.stringify({ contextThreshold: "high" }));
    const bad = await run(root, transcript, { session: "d" });
    expect(bad.stderr).toBe('memory_io context: .ai/memory/settings.json: "contextThreshold" must be a whole percent from 1 to 99, got "high"; using 70\n');
    expect(bad.stdout).toBe("");
    writeFileSync(settings, "{not json");
    expect((await run(root, transcript, { session: "e" })).stderr).toContain("settings.json is not valid JSON");
  });

  it("a settings.json that cannot be read is said to be that, with why: a folder, too large, no permission", async () => {
    const { root, transcript } = world(withUsage(path.join(CLAUDE_112, "work-compact.transcript.jsonl"), 130_000));
    const settings = path.join(root, ".ai", "memory", "settings.json");
    mkdirSync(settings, { recursive: true });
    const said = async (session: string) => (await run(root, transcript, { session })).stderr;
    expect(await said("f")).toBe("memory_io context: .ai/memory/settings.json is a folder, not a file; using the defaults, with the context offer off\n");
    rmdirSync(settings);
    writeFileSync(settings, `{"contextThreshold": 60${" ".repeat(20_000)}}`);
    expect(await said("g")).toContain(".ai/memory/settings.json is larger than 16384 bytes; using the defaults, with the context offer off");
    // Root reads a mode-000 file anyway: there the folder above stands in for an unreadable file.
    if (process.getuid?.() === 0) return;
    writeFileSync(settings, "{}", { mode: 0o000 });
    chmodSync(settings, 0o000);
    expect(await said("h")).toContain(".ai/memory/settings.json cannot be read (EACCES: permission denied); using the defaults, with the context offer off");
  });

  it("the kill switch and SESSION_HANDOFF_DISABLE silence it", () => {
    const { root, transcript } = world(withUsage(path.join(CLAUDE_112, "work-compact.transcript.jsonl"), 150_000));
    expect(spawned(root, transcript, { env: { SESSION_HANDOFF_DISABLE: "1" } }).stdout).toBe("");
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    writeFileSync(path.join(root, ".ai", "memory", "PAUSE"), "");
    expect(spawned(root, transcript).stdout).toBe("");
    expect(existsSync(cp(root))).toBe(false);
  });
});

describe("context: Codex's token_count", () => {
  it("reads the window from the rollout: over 70% of model_context_window gives the offer once", async () => {
    const file = path.join(CODEX, "fallback-tools.rollout.jsonl");
    const lines = readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
    const points = usagePoints(readEvents("codex", lines, "usage"));
    expect(points.length).toBeGreaterThan(0);
    const last = points[points.length - 1]!;
    const rec = JSON.parse(lines[last.line]!) as Rec;
    expect(last.window).toBe(rec.payload.info.model_context_window);
    expect(last.window).toBe(258_400);
    rec.payload.info.last_token_usage.total_tokens = 220_000;
    lines[last.line] = JSON.stringify(rec);
    const { root, transcript } = world(`${lines.join("\n")}\n`, "rollout.jsonl");
    expect(offer((await run(root, transcript, { format: "codex" })).stdout)).toContain("85% full (220000 of 258400 tokens");
    expect((await run(root, transcript, { format: "codex" })).stdout).toBe("");
    const low = world(readFileSync(file, "utf8"), "rollout.jsonl");
    expect((await run(low.root, low.transcript, { format: "codex" })).stdout).toBe("");
  });
});

describe("context: Codex's first tool call", () => {
  it("is judged by the window the turn's task_started names, before any token_count is written", async () => {
    const lines = readFileSync(path.join(CODEX, "fallback-tools.rollout.jsonl"), "utf8").split("\n").filter((l) => l !== "");
    const first = lines.findIndex((l) => l.includes('"type":"token_usage_record"'));
    expect(lines.slice(0, first).some((l) => l.includes('"token_count"'))).toBe(false);
    const rec = JSON.parse(lines[first]!) as Rec;
    rec.payload.usage.total_tokens = 220_000;
    const head = [...lines.slice(0, first), JSON.stringify(rec)];
    const { root, transcript } = world(`${head.join("\n")}\n`, "rollout.jsonl");
    const r = await run(root, transcript, { format: "codex", event: "PostToolUse" });
    expect(offer(r.stdout)).toContain("85% full (220000 of 258400 tokens");
  });
});

// Claude Code records, one per line: a tool call at `used` tokens and its answer; a plain answer; a compaction.
const rec = {
  call: (n: number, used: number, command = "ls", answer = "x") => [
    { type: "assistant", uuid: `a${n}`, sessionId: "s1", timestamp: "2026-12-08T00:00:03Z", message: { model: "claude-x", content: [{ type: "tool_use", id: `t${n}`, name: "Bash", input: { command } }], usage: { input_tokens: used, output_tokens: 0 } } },
    { type: "user", uuid: `u${n}`, sessionId: "s1", timestamp: "2026-12-08T00:00:04Z", message: { role: "user", content: [{ type: "tool_result", tool_use_id: `t${n}`, content: answer }] } },
  ],
  text: (n: number, used: number) => [{ type: "assistant", uuid: `b${n}`, sessionId: "s1", message: { model: "claude-x", content: [{ type: "text", text: "Done." }], usage: { input_tokens: used, output_tokens: 0 } } }],
  compact: () => [{ type: "system", subtype: "compact_boundary", uuid: "c1", sessionId: "s1", content: "Conversation compacted" }],
};
const jsonl = (recs: object[]) => recs.map((r) => `${JSON.stringify(r)}\n`).join("");

describe("context: when the offer is true to say", () => {
  it("usage from before a compaction says nothing of the context after it", async () => {
    const { root, transcript } = world(jsonl([...rec.call(1, 150_000), ...rec.compact()]));
    expect((await run(root, transcript)).stdout).toBe("");
    writeFileSync(transcript, jsonl([...rec.call(1, 150_000), ...rec.compact(), ...rec.call(2, 30_000)]));
    expect((await run(root, transcript)).stdout).toBe("");
  });

  it("a dip of a few points under the threshold is no new crossing; falling well under it is", async () => {
    const { root, transcript } = world("");
    const told: boolean[] = [];
    const recs: object[] = [];
    for (const [i, used] of [139_000, 141_000, 139_500, 141_500, 139_800, 142_000, 100_000, 150_000].entries()) {
      recs.push(...rec.call(i, used));
      writeFileSync(transcript, jsonl(recs));
      told.push(offer((await run(root, transcript, { event: "PostToolUse" })).stdout) !== null);
    }
    expect(told).toEqual([false, true, false, false, false, false, false, true]);
  });

  it("a usage over the window the helper assumed is no percent: nothing offered, contextWindow named", async () => {
    const { root, transcript } = world(jsonl(rec.call(1, 600_000)));
    const r = await run(root, transcript);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("memory_io context: 600000 tokens in use, over the 200000 assumed for claude-x: set contextWindow in .ai/memory/settings.json\n");
  });

  it("a save answered just before the crossing, with no tool call since, leaves nothing to offer", async () => {
    const root = gitRepo();
    const token = save(root, handoff("Ship the importer."), "absent");
    const write = "node .claude/skills/session-handoff/scripts/memory_io.mjs write handoff --expected-current-sha256 absent < h.md";
    const { transcript } = world(jsonl([...rec.call(1, 138_000, write, `saved HANDOFF.md\nCURRENT-SHA256: ${token}`), ...rec.text(2, 150_000)]));
    expect((await run(root, transcript)).stdout).toBe("");
  });

  it("a save of another project's handoff after the crossing does not silence this project's offer", async () => {
    const root = gitRepo();
    save(root, handoff("Ship the importer."), "absent");
    const elsewhere = "node memory_io.mjs write handoff --root ../other --expected-current-sha256 absent < h.md";
    const { transcript } = world(jsonl([...rec.call(1, 150_000), ...rec.call(2, 151_000, elsewhere, `saved HANDOFF.md\nCURRENT-SHA256: ${"a".repeat(64)}`)]));
    expect(offer((await run(root, transcript, { event: "PostToolUse" })).stdout)).toContain("75% full");
  });

  it("an off switch the helper cannot use fails toward off, and says so", async () => {
    const { root, transcript } = world(jsonl(rec.call(1, 150_000)));
    const settings = path.join(root, ".ai", "memory", "settings.json");
    mkdirSync(path.dirname(settings), { recursive: true });
    for (const [text, said] of [
      ['{"contextOffer": "false"}', '"contextOffer" must be true or false, got "false"; using false'],
      ['{"contextOffer": false,}', "settings.json is not valid JSON; using the defaults, with the context offer off"],
      ["[]", "settings.json is not a JSON object; using the defaults, with the context offer off"],
    ] as const) {
      writeFileSync(settings, text);
      const r = await run(root, transcript, { session: text });
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(said);
    }
  });
});

describe("usage and settings, pure", () => {
  it("the window of a Claude model", () => {
    expect(claudeWindow("claude-sonnet-4-6")).toBe(200_000);
    expect(claudeWindow("claude-sonnet-4-6[1m]")).toBe(1_000_000);
    expect(claudeWindow("claude-opus-5-5")).toBe(1_000_000);
    expect(claudeWindow(null)).toBe(200_000);
  });
  it("settings: defaults when absent; an unknown key named", () => {
    const dir = tempDir();
    expect(readSettings(dir)).toEqual({ settings: { contextOffer: true, contextThreshold: 70, contextWindow: null, archivesKept: 5 }, problems: [] });
    writeFileSync(path.join(dir, "settings.json"), JSON.stringify({ archivesKept: 2, colour: "red" }));
    const r = readSettings(dir);
    expect(r.settings.archivesKept).toBe(2);
    expect(r.problems).toEqual(['.ai/memory/settings.json: unknown key "colour" ignored']);
  });
});

describe("saved by: which agent made the save, in the next agent's brief", () => {
  const doc = `<!-- memory-schema: v1 -->
# Session Handoff

## Current goal
Add a subtract function to src/math.js

## Plan
- [ ] Add subtract

## Decisions
- none

## Failed approaches
- none

## Open questions
- none

## Next steps
1. Add subtract to src/math.js — done when it returns 2 for (5, 3)

## Key files
- none

## Environment anchors
`;
  const saveWith = async (root: string, env: Record<string, string>) => {
    const r = await inProcess(["write", "handoff", "--expected-current-sha256", "absent"], { input: doc, env, cwd: root });
    expect(r.code, r.stderr).toBe(0);
    return /CURRENT-SHA256: ([0-9a-f]{64})/.exec(r.stdout)![1]!;
  };
  const drift = async (root: string) => /^Drift & lessons: .*$/m.exec((await inProcess(["brief"], { cwd: root })).stdout)?.[0] ?? "";

  it("write names Claude Code from CLAUDECODE; brief says saved by Claude Code at the Saved: time", async () => {
    const root = gitRepo();
    await saveWith(root, { CLAUDECODE: "1" });
    expect(await drift(root)).toMatch(/; saved by Claude Code at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ[;.]/);
  });

  it("SESSION_HANDOFF_AGENT names it; with no sign of an agent nothing is said", async () => {
    const named = gitRepo();
    await saveWith(named, { SESSION_HANDOFF_AGENT: "Gemini CLI" });
    expect(await drift(named)).toContain("saved by Gemini CLI at ");
    const none = gitRepo();
    await saveWith(none, {});
    expect(await drift(none)).not.toContain("saved by");
  });

  it("Codex sets nothing in its tools' environment: its PostToolUse hook records the save it saw", async () => {
    const root = gitRepo();
    const token = await saveWith(root, {});
    const input = JSON.stringify({
      session_id: "codex-1",
      cwd: root,
      hook_event_name: "PostToolUse",
      tool_input: { command: `node "/x/.agents/skills/session-handoff/scripts/memory_io.mjs" write handoff --from-draft --expected-current-sha256 absent` },
      tool_response: `saved HANDOFF.md\nCURRENT-SHA256: ${token}\n`,
    });
    expect(await inProcess(["context", "--format", "codex"], { input })).toMatchObject({ code: 0, stdout: "" });
    expect(await drift(root)).toContain("saved by Codex at ");
  });

  it("with a kill switch on, that hook changes nothing on disk: not the repository, its git dir or the home", async () => {
    const root = gitRepo();
    const home = tempDir("sh-home-");
    const token = await saveWith(root, {});
    const tool_input = { command: "node memory_io.mjs write handoff --from-draft --expected-current-sha256 absent" };
    const input = JSON.stringify({ session_id: "c", cwd: root, hook_event_name: "PostToolUse", tool_input,
      tool_response: `saved HANDOFF.md\nCURRENT-SHA256: ${token}\n` });
    const files = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()
      .map((f) => { const p = path.join(dir, f); return statSync(p).isFile() ? `${f} ${readFileSync(p, "base64")}` : f; });
    const before = [...files(root), ...files(home)];
    expect(helper(["context", "--format", "codex"], { input, env: { HOME: home, SESSION_HANDOFF_DISABLE: "1" } }).code).toBe(0);
    expect([...files(root), ...files(home)]).toEqual(before);
    writeFileSync(path.join(home, "PAUSE"), "");
    const paused = [...files(root), ...files(home)];
    expect(helper(["context", "--format", "codex"], { input, env: { HOME: home, SESSION_HANDOFF_PAUSE: "~/PAUSE" } }).code).toBe(0);
    expect([...files(root), ...files(home)]).toEqual(paused);
  });
});

describe("context: a project that never used the skill", () => {
  it("a helper installed for the user offers nothing there and creates no .ai", () => {
    const home = tempDir("sh-home-");
    const helperFile = path.join(home, ".claude", "skills", "session-handoff", "scripts", "memory_io.mjs");
    copyHelper(helperFile);
    const { root, transcript } = world(withUsage(path.join(CLAUDE_112, "work-compact.transcript.jsonl"), 150_000));
    const input = JSON.stringify({ session_id: "s", transcript_path: transcript, cwd: root, hook_event_name: "PostToolUse" });
    const r = spawnSync(process.execPath, [helperFile, "context", "--format", "claude"], { input, env: cleanEnv({ HOME: home }), encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("");
    expect(existsSync(path.join(root, ".ai"))).toBe(false);
  });
});
