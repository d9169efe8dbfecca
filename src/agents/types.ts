export type AgentName = "claude-code" | "codex" | "opencode" | "cline" | "gemini" | "cursor";

/** The real path of the helper's `scripts/memory_io.mjs`; `rel` to the project root when inside it. */
export interface HelperLocation {
  abs: string;
  rel: string | null;
}

/** One hook a settings file runs: `<helper> <args>` on `event`; `timeout` in the harness's unit. */
export interface HookSpec {
  event: string;
  matcher?: string;
  args: string;
  timeout: number;
}

/** A settings JSON file whose `hooks` get our entries merged in (Claude Code shape). */
export interface JsonHooksEdit {
  kind: "json-hooks";
  file: string;
  hooks: HookSpec[];
  command(args: string): string;
  /** The harness's Windows command field, when it has one (Codex `commandWindows`). */
  commandWindows?(args: string): string;
  /** Args of our status line command, composed with the user's (Claude Code `statusLine`). */
  statusLine?: string;
  /** The harness that reads the file as strict JSON and skips it whole at a comment or a trailing comma. */
  strict?: string;
}

/** A Markdown file holding our block, whose body lists the agents that asked for it. */
export interface BlockEdit {
  kind: "md-block";
  file: string;
  body(agents: AgentName[]): string;
}

/** A file that is wholly ours (a rule file, a hook script): created, replaced, deleted. */
export interface OwnedFileEdit {
  kind: "owned-file";
  file: string;
  content: string;
  mode: number;
}

export type Edit = JsonHooksEdit | BlockEdit | OwnedFileEdit;

type Folders = { project: string[]; home: string[] };

/** One harness; files are relative to the project root, or to HOME with `global`. */
export interface Agent {
  name: AgentName;
  skillFolders: Folders;
  /** What shows that the agent is used in a project (or in HOME). */
  markers: Folders;
  /** Its project hooks load only when it starts at the project root (doctor says so). */
  fromStartFolder?: boolean;
  /** What the user does in the agent before its hooks run (init's last line says it). */
  enableHooks?: string;
  /** The files install edits; an agent without per-user files throws a Refused with `global`. */
  edits(helper: HelperLocation, global: boolean): Edit[];
}
