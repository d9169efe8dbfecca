// Types for bench/agent-flow.mjs (plain JS so that `npm run bench` needs no build step).

export interface Flow {
  heading: string;
  /** The ```sh fences of the section, in order: one helper call each. */
  calls: string[];
  /** Files linked by unconditional sentences: loaded by every run of the flow. */
  files: string[];
  /** Files linked only in conditional sentences (if / when / only / unless / otherwise). */
  branchFiles: string[];
  /** Inline helper commands in conditional sentences. */
  branchCommands: string[];
  /** `.ai/memory/drafts/<kind>.md` paths of unconditional sentences: files the agent writes with its own file tool. */
  drafts: string[];
}

export interface Flows {
  resume: Flow;
  save: Flow;
  shared: string[];
}

export declare const AGENT_FLOW_TARGETS: { resume: { calls: number; bytes: number }; save: { calls: number; bytes: number } };
export declare function parseFlows(skillText: string): Flows;
export declare function loadedFiles(flows: Flows, which: "resume" | "save"): string[];
