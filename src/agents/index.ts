// The harnesses `install --agent` knows, in doctor's order; test/harness/ runs the real CLIs each row relies on.
import { block, bootstrapBody } from "./md-block.ts";
import { CLINE_HOOK_MARK, hookCommand, hookCommandPowerShell, nodeRun, NODE_RECORD, PS_FIRST, psQuote,
  shellQuote } from "./command.ts";
import { Refused } from "../errors.ts";
import type { Agent, AgentName, BlockEdit, HelperLocation, OwnedFileEdit } from "./types.ts";

/** Every source of SessionStart, `fork` included: Codex fires nothing for `codex exec fork` without it. */
export const SESSION_MATCHER = "startup|resume|clear|compact|fork";

// The shared bootstrap block: a per-user file names the helper by its absolute path.
function mdBlock(helper: HelperLocation, global: boolean, file: string, homeFile: string): BlockEdit {
  const at = global ? { ...helper, rel: null } : helper;
  return { kind: "md-block", file: global ? homeFile : file, body: (agents) => bootstrapBody(at, agents) };
}

function owned(file: string, content: string, mode = 0o644): OwnedFileEdit {
  return { kind: "owned-file", file, content, mode };
}

function projectOnly(name: AgentName, global: boolean): void {
  const instead = `run \`install --agent ${name}\` in the project instead`;
  if (global) throw new Refused(`${name} has no per-user rules folder; ${instead}`);
}

// Cline's stdin names no cwd (the root is the script's grandparent); only builtins run before Node is found.
function clineScript(helper: HelperLocation): string {
  const file = helper.rel !== null ? `"$root"/${shellQuote(helper.rel)}` : shellQuote(helper.abs);
  const run = nodeRun(`hook --mode session --format cline --root "$root"`);
  const root = `root=$(cd "\${0%/*}/../.." && pwd) || exit 0`;
  return `#!/bin/sh\n${CLINE_HOOK_MARK}\n${root}\nf=${file}\n[ -f "$f" ] || exit 0\n${run}\nexit 0\n`;
}

// Cline on Windows runs only `<Event>.ps1`, written on every OS for teammates' machines (*unverified* on Windows).
function clineScriptPs1(helper: HelperLocation): string {
  const file = helper.rel !== null ? `Join-Path $root ${psQuote(helper.rel)}` : psQuote(helper.abs);
  const ps = "hook --mode session --format cline --root $root";
  return [
    CLINE_HOOK_MARK,
    "$root = (Resolve-Path -LiteralPath (Join-Path $PSScriptRoot '..\\..')).Path",
    `$f = ${file}`,
    "if (-not (Test-Path -LiteralPath $f -PathType Leaf)) { exit 0 }",
    "$c = if ($env:XDG_CONFIG_HOME) { $env:XDG_CONFIG_HOME } else { Join-Path $HOME '.config' }",
    `$record = Get-Content -LiteralPath (Join-Path $c '${NODE_RECORD}') ${PS_FIRST}`,
    `$onPath = Get-Command node ${PS_FIRST} -ExpandProperty Source`,
    'foreach ($n in @($env:SESSION_HANDOFF_NODE, $record, $onPath, "$env:ProgramFiles\\nodejs\\node.exe")) {',
    `  if ($n -and (Test-Path -LiteralPath $n -PathType Leaf)) { $input | & $n $f ${ps}; exit $LASTEXITCODE }`,
    "}",
    "exit 0",
    "",
  ].join("\r\n");
}

const CURSOR_DESCRIPTION = "Session handoff bootstrap: check for parked session memory at session start";
const CURSOR_FRONTMATTER = `---\ndescription: ${CURSOR_DESCRIPTION}\nalwaysApply: true\n---\n`;

export const AGENTS: Record<AgentName, Agent> = {
  "claude-code": {
    name: "claude-code",
    fromStartFolder: true,
    skillFolders: { project: [".claude/skills"], home: [".claude/skills"] },
    markers: { project: [".claude", "CLAUDE.md"], home: [".claude"] },
    edits(helper, global) {
      const command = (args: string) => hookCommand(helper, args, global ? null : "CLAUDE_PROJECT_DIR");
      const checkpoint = "checkpoint --format claude";
      const hooks = [
        { event: "SessionStart", matcher: SESSION_MATCHER, args: "hook --mode session --format claude", timeout: 10 },
        { event: "PreCompact", args: checkpoint, timeout: 10 },
        { event: "PostCompact", args: checkpoint, timeout: 10 },
        // SessionEnd hooks share a 1.5 s budget: checkpoint does the least work there.
        { event: "SessionEnd", args: checkpoint, timeout: 2 },
        // The context offer: both events reach the model; Stop does not (2.1.112 ignores it, 2.1.332 loops).
        { event: "UserPromptSubmit", args: "context --format claude", timeout: 10 },
        { event: "PostToolUse", args: "context --format claude", timeout: 10 },
      ];
      const file = ".claude/settings.json";
      return [{ kind: "json-hooks", file, command, statusLine: "statusline", hooks, strict: "Claude Code" }];
    },
  },
  codex: {
    name: "codex",
    skillFolders: { project: [".agents/skills"], home: [".codex/skills", ".agents/skills"] },
    markers: { project: [".codex"], home: [".codex"] },
    enableHooks: "approve its hooks in /hooks",
    edits(helper, global) {
      // Codex runs hooks in the session's cwd with no project variable: the command is absolute.
      const hooks = [
        { event: "SessionStart", matcher: SESSION_MATCHER, args: "hook --mode session --format codex", timeout: 10 },
        { event: "PreCompact", args: "checkpoint --format codex", timeout: 10 },
        // Codex clamps SessionEnd to 3 s.
        { event: "SessionEnd", args: "checkpoint --format codex", timeout: 3 },
        { event: "UserPromptSubmit", args: "context --format codex", timeout: 10 },
        { event: "PostToolUse", args: "context --format codex", timeout: 10 },
      ];
      return [
        mdBlock(helper, global, "AGENTS.md", ".codex/AGENTS.md"),
        {
          kind: "json-hooks",
          file: ".codex/hooks.json",
          command: (args) => hookCommand(helper, args, null),
          commandWindows: (args) => hookCommandPowerShell(helper.abs, args),
          hooks,
          strict: "Codex",
        },
      ];
    },
  },
  // No session-start hook is known (*unverified*): the block in AGENTS.md, shared with Codex.
  opencode: {
    name: "opencode",
    skillFolders: {
      project: [".opencode/skills", ".claude/skills", ".agents/skills"],
      home: [".config/opencode/skills"],
    },
    markers: { project: [".opencode", "opencode.json", "opencode.jsonc"], home: [".config/opencode"] },
    edits: (helper, global) => [mdBlock(helper, global, "AGENTS.md", ".config/opencode/AGENTS.md")],
  },
  // Hook files run only once the user enables hooks; siblings of our rule are the user's.
  cline: {
    name: "cline",
    skillFolders: { project: [".cline/skills", ".clinerules/skills"], home: [] },
    markers: { project: [".clinerules", ".cline"], home: [] },
    enableHooks: "enable hooks in its settings",
    edits(helper, global) {
      projectOnly("cline", global);
      return [
        owned(".clinerules/00-session-handoff.md", `${block(bootstrapBody(helper, ["cline"]))}\n`),
        owned(".clinerules/hooks/TaskStart", clineScript(helper), 0o755),
        owned(".clinerules/hooks/TaskResume", clineScript(helper), 0o755),
        owned(".clinerules/hooks/TaskStart.ps1", clineScriptPs1(helper)),
        owned(".clinerules/hooks/TaskResume.ps1", clineScriptPs1(helper)),
      ];
    },
  },
  // No PreCompress (it fires before every request), no matcher (exact names), timeouts in ms, only JSON on stdout.
  gemini: {
    name: "gemini",
    fromStartFolder: true,
    skillFolders: { project: [".gemini/skills", ".agents/skills"], home: [".gemini/skills"] },
    markers: { project: [".gemini", "GEMINI.md"], home: [".gemini"] },
    edits(helper, global) {
      const hooks = [
        { event: "SessionStart", args: "hook --mode session --format gemini", timeout: 10_000 },
        { event: "SessionEnd", args: "checkpoint --format gemini", timeout: 3_000 },
      ];
      const command = (args: string) => hookCommand(helper, args, global ? null : "GEMINI_PROJECT_DIR");
      return [
        mdBlock(helper, global, "GEMINI.md", ".gemini/GEMINI.md"),
        { kind: "json-hooks", file: ".gemini/settings.json", command, hooks },
      ];
    },
  },
  // With third-party hooks on, Cursor also runs Claude Code's: install adds no hook of its own.
  cursor: {
    name: "cursor",
    skillFolders: { project: [".agents/skills", ".cursor/skills"], home: [] },
    markers: { project: [".cursor", ".cursorrules"], home: [] },
    edits(helper, global) {
      projectOnly("cursor", global);
      const content = `${CURSOR_FRONTMATTER}${block(bootstrapBody(helper, ["cursor"]))}\n`;
      return [owned(".cursor/rules/session-handoff.mdc", content)];
    },
  },
};

export function isAgentName(s: unknown): s is AgentName {
  return typeof s === "string" && Object.hasOwn(AGENTS, s);
}

/** The harness a save ran in, from what each sets in its tools' environment; null when unknown. */
export function agentOfEnv(env: Record<string, string | undefined>): string | null {
  const named = env.SESSION_HANDOFF_AGENT?.trim() ?? "";
  if (/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,39}$/.test(named)) return named;
  if (env.CLAUDECODE === "1" || env.CLAUDE_CODE_ENTRYPOINT) return "Claude Code";
  if (env.GEMINI_CLI === "1") return "Gemini CLI";
  // CODEX_HOME is the user's own setting (or its npm launcher's), not a sign of a Codex session.
  if (Object.keys(env).some((k) => k.startsWith("CODEX_") && k !== "CODEX_HOME")) return "Codex";
  if (env.OPENCODE === "1") return "OpenCode";
  return null;
}
