// How the suite drives each CLI, shared by its test files: Claude Code in print mode with
// stream-json, Codex with `codex exec`, and the tools each harness's model calls.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { FakeModel, Reply } from "./fake-model.ts";
import type { Tools } from "./flows.ts";
import { cliCommand, listFiles, run, type HarnessId, type RunResult, type World } from "./lib.ts";

export const claudeTools: Tools = {
  hasSkillTool: true,
  skill: (req) => {
    // The Skill tool's input key differs by version (`skill`, formerly `command`).
    const tool = (req.body.tools ?? []).find((t: any) => t.name === "Skill");
    const key = tool?.input_schema?.required?.[0] ?? "skill";
    return { tool: "Skill", input: { [key]: "session-handoff" } };
  },
  shell: (command) => ({ tool: "Bash", input: { command, description: "run a command" } }),
  writeFile: (file_path, content) => ({ tool: "Write", input: { file_path, content } }),
  // 2.1.112 offers TodoWrite in print mode; 2.1.332 offers no plan tool.
  plan: (req) =>
    (req.body.tools ?? []).some((t: any) => t.name === "TodoWrite")
      ? {
          tool: "TodoWrite",
          input: {
            todos: [
              { content: "Add sub to src/sub.js", status: "in_progress", activeForm: "Adding sub" },
              { content: "Write tests for sub", status: "pending", activeForm: "Writing tests" },
            ],
          },
        }
      : null,
};

export interface Session {
  run: RunResult;
  events: any[];
  sessionId: string;
  transcript: string;
}

/** One print-mode session: each prompt sent after the previous result (all at once with `queued`). */
export async function claude(
  id: HarnessId,
  w: World,
  fake: FakeModel,
  prompts: string[],
  opts: { queued?: boolean; resume?: string; timeoutMs?: number; gapMs?: number } = {},
): Promise<Session> {
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
  const line = (p: string) => JSON.stringify({ type: "user", message: { role: "user", content: p } }) + "\n";
  let sent = 0;
  const args = [
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--allowedTools",
    "Bash,Skill,Read,Edit,Write,TodoWrite",
  ];
  if (opts.resume) args.push("--resume", opts.resume);
  const r = await run([...cliCommand(id), ...args], {
    cwd: w.proj,
    env,
    timeoutMs: opts.timeoutMs ?? 90_000,
    feed: (out, write, end) => {
      const results = out.split("\n").filter((l) => l.includes('"result"') && parse(l).type === "result").length;
      if (opts.queued) {
        if (sent === 0) {
          for (const p of prompts) write(line(p));
          sent = prompts.length;
        }
        if (results >= 1) end();
        return;
      }
      if (results === sent && sent < prompts.length) {
        const p = prompts[sent++]!;
        if (opts.gapMs && sent > 1) setTimeout(() => write(line(p)), opts.gapMs);
        else write(line(p));
      } else if (results >= prompts.length) end();
    },
  });
  const events = r.stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map(parse);
  const sessionId = events.find((e) => e.session_id)?.session_id ?? "";
  const dir = path.join(w.home, ".claude", "projects", w.proj.replace(/[^a-zA-Z0-9]/g, "-"));
  return { run: r, events, sessionId, transcript: path.join(dir, `${sessionId}.jsonl`) };
}

export function parse(line: string): any {
  try {
    return JSON.parse(line);
  } catch {
    return {};
  }
}

/** apply_patch's Add File body for `content`. */
const addPatch = (rel: string, content: string) =>
  `*** Begin Patch\n*** Add File: ${rel}\n${content
    .replace(/\n$/, "")
    .split("\n")
    .map((l) => `+${l}`)
    .join("\n")}\n*** End Patch`;

export function codexTools(proj: string): Tools {
  const rel = (p: string) => (p.startsWith(proj + "/") ? p.slice(proj.length + 1) : p);
  return {
    hasSkillTool: false,
    skill: () => null,
    shell: (cmd) => ({ tool: "exec_command", input: { cmd } }),
    // Function-tool mode: apply_patch runs as a shell heredoc, which Codex intercepts.
    writeFile: (p, content) => ({
      tool: "exec_command",
      input: { cmd: `apply_patch <<'PATCH'\n${addPatch(rel(p), content)}\nPATCH` },
    }),
  };
}

/** Code mode: one freeform `exec` tool taking JavaScript that calls `tools.*`. */
export function codeModeTools(proj: string): Tools {
  const rel = (p: string) => (p.startsWith(proj + "/") ? p.slice(proj.length + 1) : p);
  const exec = (js: string): Reply => ({ tool: "exec", input: {}, freeform: js });
  return {
    hasSkillTool: false,
    skill: () => null,
    shell: (cmd) =>
      exec(`const r = await tools.exec_command({ cmd: ${JSON.stringify(cmd)} });\ntext(JSON.stringify(r));`),
    writeFile: (p, content) =>
      exec(
        `const r = await tools.apply_patch(${JSON.stringify(addPatch(rel(p), content))});\ntext(JSON.stringify(r));`,
      ),
  };
}

export interface Exec {
  run: RunResult;
  sessionId: string;
  rollout: string | null;
}

export async function codex(
  w: World,
  fake: FakeModel,
  prompt: string,
  opts: { model?: string; extra?: string[] } = {},
): Promise<Exec> {
  const codexHome = path.join(w.home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    path.join(codexHome, "config.toml"),
    `model = "${opts.model ?? "fake-model"}"\nmodel_provider = "fake"\ncheck_for_update_on_startup = false\n\n` +
      `[model_providers.fake]\nname = "Fake"\nbase_url = "${fake.url}/v1"\nwire_api = "responses"\n` +
      `env_key = "FAKE_API_KEY"\n\n[analytics]\nenabled = false\n`,
  );
  const r = await run(
    [
      ...cliCommand("codex"),
      "exec",
      "-C",
      w.proj,
      "--trust",
      "--dangerously-bypass-hook-trust",
      ...(opts.extra ?? []),
      prompt,
    ],
    {
      cwd: w.proj,
      env: { ...w.env, CODEX_HOME: codexHome, FAKE_API_KEY: "dummy" },
      timeoutMs: 90_000,
      input: "",
    },
  );
  const sessionId = /session id: (\S+)/.exec(r.stderr)?.[1] ?? "";
  const rollout = listFiles(path.join(codexHome, "sessions")).find((f) => f.includes(sessionId)) ?? null;
  return { run: r, sessionId, rollout: rollout ? path.join(codexHome, "sessions", rollout) : null };
}
