/**
 * What a harness adapter declares (style.md: one file per harness in `src/agents/`): the
 * envelope its session-start hook output needs, and the files `install` edits for it
 * (docs/design.md#integrations, docs/design.md#checkpoints).
 */

/** Output formats of `hook --format` (docs/design.md#integrations). */
export type HookFormat = "text" | "claude" | "codex" | "gemini" | "cursor" | "cline";

/** Agent names of `install --agent` (docs/design.md#integrations). */
export type AgentName = "claude-code" | "codex" | "opencode" | "cline" | "gemini" | "cursor";

/** Where the built helper is, as `install` computes it (real paths). */
export interface HelperLocation {
  /** Absolute real path of `scripts/memory_io.mjs`. */
  abs: string;
  /** Path relative to the project root when the skill lies inside it, else null. */
  rel: string | null;
}

/** One hook a settings file runs: `<helper> <args>` on `event`. */
export interface HookSpec {
  event: string;
  /** Omitted when the harness matches lifecycle events by exact name (Gemini). */
  matcher?: string;
  /** The helper's arguments, e.g. `hook --mode session --format claude`. */
  args: string;
  /** In the harness's unit: seconds (Claude Code, Codex) or milliseconds (Gemini). */
  timeout: number;
}

/** A settings JSON file whose `hooks` get our entries merged in (Claude Code shape). */
export interface JsonHooksEdit {
  kind: "json-hooks";
  /** Path relative to the base (project root, or HOME with --global). */
  file: string;
  hooks: HookSpec[];
  /** The shell command running the helper with `args`. */
  command(args: string): string;
  /** The harness's per-OS command field for Windows, when it has one (Codex `commandWindows`). */
  commandWindows?(args: string): string;
  /** Args of our status line command, composed with the user's (Claude Code `statusLine`). */
  statusLine?: string;
}

/** A Markdown file holding our block between the begin/end markers. */
export interface BlockEdit {
  kind: "md-block";
  file: string;
  /** The block's body (between the markers), given the agents that asked for it. */
  body(agents: AgentName[]): string;
}

/** A file that is wholly ours (a rule file, a hook script): created, replaced, deleted. */
export interface OwnedFileEdit {
  kind: "owned-file";
  file: string;
  content: string;
  /** 0644 for rules and PowerShell scripts, 0755 for Cline's POSIX hook scripts. */
  mode: number;
}

export type Edit = JsonHooksEdit | BlockEdit | OwnedFileEdit;

/** Where a harness looks for skills (harnesses.md), relative to the project or to HOME. */
export interface SkillFolders {
  project: string[];
  home: string[];
}

/**
 * What `doctor` knows of a harness beyond its files: project hooks read only from the start
 * folder (Claude Code, Gemini), hooks that need a trust entry of their own (Codex).
 */
export interface AgentChecks {
  /** Project hooks load only when the harness starts at the project root. */
  projectHooksFromStartFolder?: boolean;
  /** The per-hook trust entries the harness keeps, as `doctor` reads them. */
  hookTrust?: "codex";
}

/**
 * One harness: everything the rest of the helper knows about it, in its own file of
 * `src/agents/` (the table in `src/agents/index.ts` lists them). The hook envelope of its
 * format lives in `envelopes.ts` (see there) and its transcript adapter in
 * `transcripts/` (named by `transcript`).
 */
export interface Agent {
  name: AgentName;
  /** Its `hook --format`, when it has a session-start hook we install. */
  format?: HookFormat;
  /** The transcript adapter `checkpoint --format` uses for it, when it has checkpoint hooks. */
  transcript?: "claude" | "codex" | "gemini";
  /** Where it looks for skills (doctor, README "Install"). */
  skillFolders: SkillFolders;
  /** doctor's checks of its own. */
  checks?: AgentChecks;
  /**
   * The files install edits. `global` selects the per-user files (docs/design.md#integrations); an agent
   * without them throws a Refused naming why.
   */
  edits(helper: HelperLocation, global: boolean): Edit[];
}
