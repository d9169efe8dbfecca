// docs/install.md's list of where each agent reads skills is the one doctor looks in and init --global writes to:
// every folder of the agents' table (src/agents/index.ts), project and home, is named in that agent's part.
import { describe, expect, it } from "vitest";
import { AGENTS } from "../../src/agents/index.ts";
import { readDoc } from "./support.ts";

const LABELS: Record<string, string> = {
  "claude-code": "Claude Code", codex: "Codex", opencode: "OpenCode", gemini: "Gemini CLI", cursor: "Cursor",
  cline: "Cline",
};
const line = readDoc("docs/install.md").split("\n").find((l) => l.startsWith("Where each agent reads skills")) ?? "";
// "...: Claude Code `a/` and `~/b/`; Codex ..." cut into each agent's part.
const parts = new Map(line.slice(line.indexOf(": ") + 2).split("; ").map((p) => [p.split(" `")[0]!, p]));

describe("docs/install.md: where each agent reads skills", () => {
  it.each(Object.values(AGENTS).map((a) => [a.name, a] as const))("names every folder of %s", (name, agent) => {
    const part = parts.get(LABELS[name]!) ?? "";
    const named = [...part.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    expect(named, part).toEqual(expect.arrayContaining([
      ...agent.skillFolders.project.map((f) => `${f}/`),
      ...agent.skillFolders.home.map((f) => `~/${f}/`),
    ]));
  });
});
