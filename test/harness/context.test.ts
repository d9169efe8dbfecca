// The context-threshold offer in the real CLIs (docs/context-threshold.md): the fake model
// reports the usage; the offer must reach the model on the next turn exactly once above the
// threshold and never below it. Then the continuation from one agent to another.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import type { FakeModel, ModelRequest } from "./fake-model.ts";
import { resumeFlow, saveFlow, TRICKY_HANDOFF, type Tools } from "./flows.ts";
import {
  checkpointOf,
  cliCommand,
  copySkill,
  harnessSuite,
  installedProject,
  listFiles,
  run,
  scenario,
  skipReason,
  type HarnessId,
  type World,
} from "./lib.ts";
import { briefBody } from "../helpers.ts";

const OFFER = "this session's context is";
const count = (text: string, word: string) => text.split(word).length - 1;

/** Print-mode Claude Code, one prompt after each result. */
async function claude(id: HarnessId, w: World, fake: FakeModel, prompts: string[]) {
  const env = {
    ...w.env,
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: "sk-ant-fake-key",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
    CLAUDE_CODE_ENABLE_TELEMETRY: "0",
    CLAUDE_CODE_MAX_RETRIES: "1",
  };
  const line = (p: string) => `${JSON.stringify({ type: "user", message: { role: "user", content: p } })}\n`;
  let sent = 0;
  const args = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--allowedTools",
    "Bash,Skill,Read,Edit,Write",
  ];
  const r = await run([...cliCommand(id), ...args], {
    cwd: w.proj,
    env,
    timeoutMs: 90_000,
    feed: (out, write, end) => {
      const results = out.split("\n").filter((l) => l.includes('"result"') && /"type":"result"/.test(l)).length;
      if (results === sent && sent < prompts.length) write(line(prompts[sent++]!));
      else if (results >= prompts.length) end();
    },
  });
  const sessionId = /"session_id":"([^"]+)"/.exec(r.stdout)?.[1] ?? "";
  return { r, sessionId };
}

const main = (fake: FakeModel, from: number): ModelRequest[] => fake.requests.slice(from).filter((q) => !q.aux);

for (const id of ["claude-2.1.112", "claude-2.1.332"] as HarnessId[]) {
  // 2.1.112's default model has a 200,000 window, 2.1.332's 1,000,000.
  const window = id === "claude-2.1.112" ? 200_000 : 1_000_000;
  harnessSuite(id, (suite) => {
    const session = async (prefix: string, tokens: number) => {
      const { w } = await installedProject(suite.world(prefix), ".claude/skills", "claude-code");
      const from = suite.fake().requests.length;
      // One tool call in the first turn (a checkpoint needs one), then plain answers.
      suite
        .fake()
        .setScript((req) =>
          req.prompt.startsWith("first turn") && req.results.length === 0
            ? { tool: "Bash", input: { command: "echo ctx-work", description: "run a command" }, inputTokens: tokens }
            : { text: `FAKE-REPLY ${req.prompt.slice(0, 12)}`, inputTokens: tokens },
        );
      const s = await claude(id, w, suite.fake(), ["first turn", "second turn", "third turn", "fourth turn"]);
      expect(s.r.code, s.r.stderr.slice(-2000)).toBe(0);
      return { w, s, reqs: main(suite.fake(), from) };
    };

    scenario(
      `${id}/context-offer-once`,
      "a usage crossing 75% gets the offer on the next turn, exactly once, and the checkpoint",
      async () => {
        const { w, s, reqs } = await session("ctx-high", Math.round(window * 0.75));
        expect(reqs.length).toBe(5);
        // The first request has no usage yet; the offer arrives after the first response (its
        // tool's PostToolUse, or the next prompt's UserPromptSubmit when the transcript lagged)
        // and is only kept in history after that: one in the last request.
        expect(count(reqs[0]!.text, OFFER)).toBe(0);
        const firstWith = reqs.findIndex((q) => count(q.text, OFFER) > 0);
        expect(firstWith === 1 || firstWith === 2, `offer first in request ${firstWith}`).toBe(true);
        for (const q of reqs.slice(firstWith)) expect(count(q.text, OFFER)).toBe(1);
        expect(reqs[firstWith]!.text).toContain("offer the user once to save a handoff now");
        expect(checkpointOf(w, s.sessionId)).toMatch(/^Trigger: .*context-threshold/m);
      },
    );

    scenario(`${id}/context-under-40`, "a session staying under 40% never gets it", async () => {
      const { w, s, reqs } = await session("ctx-low", Math.round(window * 0.39));
      expect(reqs.length).toBe(5);
      for (const q of reqs) expect(count(q.text, OFFER)).toBe(0);
      expect(existsSync(path.join(w.proj, ".ai", "memory", "checkpoints", `.offered-${s.sessionId}`))).toBe(false);
    });
  });
}

const claudeTools: Tools = {
  hasSkillTool: true,
  skill: (req) => {
    const tool = (req.body.tools ?? []).find((t: any) => t.name === "Skill");
    return { tool: "Skill", input: { [tool?.input_schema?.required?.[0] ?? "skill"]: "session-handoff" } };
  },
  shell: (command) => ({ tool: "Bash", input: { command, description: "run a command" } }),
  writeFile: (file_path, content) => ({ tool: "Write", input: { file_path, content } }),
};

const addPatch = (rel: string, content: string) =>
  `*** Begin Patch\n*** Add File: ${rel}\n${content
    .replace(/\n$/, "")
    .split("\n")
    .map((l) => `+${l}`)
    .join("\n")}\n*** End Patch`;
const codexTools = (proj: string): Tools => ({
  hasSkillTool: false,
  skill: () => null,
  shell: (cmd) => ({ tool: "exec_command", input: { cmd } }),
  writeFile: (p, content) => ({
    tool: "exec_command",
    input: {
      cmd:
        `apply_patch <<'PATCH'\n${addPatch(p.startsWith(`${proj}/`) ? p.slice(proj.length + 1) : p, content)}` +
        "\nPATCH",
    },
  }),
});

/** `codex exec` (function tools: an unknown model name), as codex.test.ts runs it. */
async function codex(w: World, fake: FakeModel, prompt: string, extra: string[] = []) {
  const codexHome = path.join(w.home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    path.join(codexHome, "config.toml"),
    `model = "fake-model"\nmodel_provider = "fake"\ncheck_for_update_on_startup = false\n\n` +
      `[model_providers.fake]\nname = "Fake"\nbase_url = "${fake.url}/v1"\nwire_api = "responses"\n` +
      `env_key = "FAKE_API_KEY"\n\n[analytics]\nenabled = false\n`,
  );
  return run(
    [...cliCommand("codex"), "exec", "-C", w.proj, "--trust", "--dangerously-bypass-hook-trust", ...extra, prompt],
    {
      cwd: w.proj,
      env: { ...w.env, CODEX_HOME: codexHome, FAKE_API_KEY: "dummy" },
      timeoutMs: 90_000,
      input: "",
    },
  );
}

// The goal and the first next step of the saved document, as the brief prints them.
const GOAL =
  /^Goal: Add a subtract function to `src\/math\.js` without touching \$HOME or \$\(whoami\) — TRICKY-MARKER\.$/m;
const NEXT = /^Proposed next step: .*Add subtract to `src\/math\.js`/m;

// Continue in another agent: both agents' skill folders and hooks in one project; one saves, the other resumes.
const both = skipReason("claude-2.1.332") ?? skipReason("codex");
harnessSuite("codex", (suite) => {
  const twoAgents = async (prefix: string) => {
    const { w, helper } = await installedProject(suite.world(prefix), ".claude/skills", "claude-code");
    copySkill(path.join(w.proj, ".agents", "skills", "session-handoff"));
    const r = await run([process.execPath, helper, "install", "--agent", "codex"], {
      cwd: w.proj,
      env: w.env,
      timeoutMs: 20_000,
    });
    expect(r.code, r.stderr).toBe(0);
    return w;
  };
  const fromClaude = (w: World) => listFiles(path.join(w.proj, ".ai", "memory"));

  scenario(
    "continue/claude-to-codex",
    "a save in Claude Code resumes in Codex with the same goal and next step, saved by Claude Code",
    async () => {
      if (both) return void console.log(`SKIP: ${both}`);
      const w = await twoAgents("cc-to-codex");
      suite.fake().setScript(saveFlow(claudeTools, w.proj));
      const s = await claude("claude-2.1.332", w, suite.fake(), ["let's stop here, write a handoff"]);
      expect(s.r.code, s.r.stderr.slice(-1500)).toBe(0);
      expect(existsSync(path.join(w.proj, ".ai", "memory", "HANDOFF.md")), fromClaude(w).join("\n")).toBe(true);
      const from = suite.fake().requests.length;
      suite.fake().setScript(resumeFlow(codexTools(w.proj)));
      const e = await codex(w, suite.fake(), "resume where we left off");
      expect(e.code, e.stderr.slice(-1500)).toBe(0);
      const brief = briefBody(main(suite.fake(), from).at(-1)!.results.at(-1)!);
      expect(brief).toMatch(GOAL);
      expect(brief).toMatch(NEXT);
      expect(brief).toMatch(/saved by Claude Code at \d{4}-/);
    },
  );

  scenario(
    "continue/codex-to-claude",
    "a save in Codex resumes in Claude Code with the same goal and next step, saved by Codex",
    async () => {
      if (both) return void console.log(`SKIP: ${both}`);
      const w = await twoAgents("codex-to-cc");
      suite.fake().setScript(saveFlow(codexTools(w.proj), w.proj));
      const e = await codex(w, suite.fake(), "let's stop here, write a handoff");
      expect(e.code, e.stderr.slice(-1500)).toBe(0);
      expect(existsSync(path.join(w.proj, ".ai", "memory", "HANDOFF.md")), e.stderr.slice(-1500)).toBe(true);
      const from = suite.fake().requests.length;
      suite.fake().setScript(resumeFlow(claudeTools));
      const s = await claude("claude-2.1.332", w, suite.fake(), ["resume where we left off"]);
      expect(s.r.code, s.r.stderr.slice(-1500)).toBe(0);
      const brief = briefBody(main(suite.fake(), from).at(-1)!.results.at(-1)!);
      expect(brief).toMatch(GOAL);
      expect(brief).toMatch(NEXT);
      expect(brief).toMatch(/saved by Codex at \d{4}-/);
    },
  );
});
// Codex: the offer from the rollout's token_count, through its UserPromptSubmit/PostToolUse hooks;
// then a forced auto-compaction (PreCompact → PostCompact → SessionStart compact).
harnessSuite("codex", (suite) => {
  const session = async (prefix: string, tokens: number, extra: string[] = []) => {
    const { w } = await installedProject(suite.world(prefix), ".agents/skills", "codex");
    const from = suite.fake().requests.length;
    let n = 0;
    suite.fake().setScript((req) => {
      if (req.text.includes("FAKE-CODEX-COMPACT-SUMMARY")) return { text: "FAKE-AFTER-COMPACT" };
      n++;
      // Two tool calls: Codex writes the window (token_count) only after the first tool's output.
      return req.results.length < 2 && n < 4
        ? { tool: "exec_command", input: { cmd: `echo ctx-work-${n}` }, inputTokens: tokens }
        : { text: "FAKE-DONE", inputTokens: tokens };
    });
    const e = await codex(w, suite.fake(), "first turn", extra);
    expect(e.code, e.stderr.slice(-1500)).toBe(0);
    return { w, e, reqs: main(suite.fake(), from), all: suite.fake().requests.slice(from) };
  };

  scenario("codex/context-offer", "a usage crossing 75% of Codex's window: what reaches the model", async () => {
    const { w, e, reqs } = await session("codex-ctx-high", 200_000);
    const offered = listFiles(path.join(w.proj, ".ai", "memory", "checkpoints")).filter((f) =>
      f.startsWith(".offered-"),
    );
    // The hook ran and decided (the marker), whatever Codex does with its output.
    console.log(
      `codex 0.171.0 hooks: ${e.stderr
        .split("\n")
        .filter((l) => /hook/i.test(l))
        .join(" | ")
        .slice(0, 1500)}`,
    );
    expect(offered.length, e.stderr.slice(-1500)).toBe(1);
    const seen = reqs.filter((q) => count(q.text, OFFER) > 0).length;
    console.log(`codex 0.171.0: offer marker written; requests carrying the offer: ${seen} of ${reqs.length}`);
    expect(seen).toBeGreaterThan(0);
    for (const q of reqs.slice(reqs.findIndex((q) => count(q.text, OFFER) > 0))) expect(count(q.text, OFFER)).toBe(1);
  });

  scenario(
    "codex/context-compaction",
    "a forced auto-compaction: the PreCompact checkpoint, and what the offer does",
    async () => {
      const { w, e, all } = await session("codex-ctx-compact", 300_000, ["-c", "model_auto_compact_token_limit=1000"]);
      const compacted = all.some((q) => q.aux);
      const cp = listFiles(path.join(w.proj, ".ai", "memory", "checkpoints"));
      console.log(`codex 0.171.0 compaction: compaction request ${compacted}; checkpoints/: ${cp.join(", ")}`);
      expect(e.stderr).not.toMatch(/hook: \w+ (Failed|Blocked)/);
    },
  );
});
// Gemini CLI: no offer is installed (docs/context-threshold.md). What its compaction event does:
// PreCompress, seen through a capture hook added beside ours, fires before every model request.
harnessSuite("gemini", (suite) => {
  scenario(
    "gemini/context-precompress",
    "a session reporting 95% usage: PreCompress per request, no offer, the SessionEnd checkpoint",
    async () => {
      const { w } = await installedProject(suite.world("gemini-ctx"), ".gemini/skills", "gemini");
      const settingsFile = path.join(w.proj, ".gemini", "settings.json");
      const settings = JSON.parse(readFileSync(settingsFile, "utf8"));
      const log = path.join(w.root, "precompress.jsonl");
      settings.hooks.PreCompress = [
        { hooks: [{ type: "command", command: `cat >> '${log}'; echo >> '${log}'; echo '{}'`, timeout: 5000 }] },
      ];
      writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
      const dir = path.join(w.home, ".gemini");
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        path.join(dir, "settings.json"),
        JSON.stringify({
          security: { auth: { selectedType: "gemini-api-key" } },
          privacy: { usageStatisticsEnabled: false },
          general: { disableAutoUpdate: true, disableUpdateNag: true },
        }),
      );
      const from = suite.fake().requests.length;
      let n = 0;
      suite.fake().setScript((req) =>
        req.results.length === 0 && n++ === 0
          ? {
              tool: "run_shell_command",
              input: { command: "echo ctx-work", description: "run" },
              inputTokens: 950_000,
            }
          : { text: "FAKE-DONE", inputTokens: 950_000 },
      );
      const r = await run([...cliCommand("gemini"), "-p", "first turn", "--yolo"], {
        cwd: w.proj,
        env: {
          ...w.env,
          GOOGLE_GEMINI_BASE_URL: suite.fake().url,
          GEMINI_API_KEY: "dummy-key",
          GEMINI_CLI_TRUST_WORKSPACE: "true",
        },
        timeoutMs: 90_000,
        input: "",
      });
      expect(r.code, r.stderr.slice(-1500)).toBe(0);
      const reqs = main(suite.fake(), from);
      const fired = existsSync(log)
        ? readFileSync(log, "utf8")
            .split("\n")
            .filter((l) => l.includes("PreCompress")).length
        : 0;
      const cps = listFiles(path.join(w.proj, ".ai", "memory", "checkpoints"));
      console.log(
        `gemini 0.61.0: ${reqs.length} agent request(s), PreCompress fired ${fired} time(s); ` +
          `checkpoints/: ${cps.join(", ")}`,
      );
      for (const q of reqs) expect(count(q.text, OFFER)).toBe(0);
      expect(cps.some((f) => f.startsWith(".offered-"))).toBe(false);
      expect(fired).toBeGreaterThan(0);
    },
  );
});
void TRICKY_HANDOFF;
void readFileSync;
