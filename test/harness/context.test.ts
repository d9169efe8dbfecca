// The context-threshold offer in the real CLIs (docs/context-threshold.md): the fake model
// reports the usage; the offer must reach the model on the next turn exactly once above the
// threshold and never below it. Then the continuation from one agent to another.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import type { FakeModel, ModelRequest } from "./fake-model.ts";
import { chat, saveFlow, type Tools } from "./flows.ts";
import { checkpointOf, cliCommand, harnessSuite, installedProject, run, scenario, type HarnessId, type World } from "./lib.ts";

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
  const args = ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash,Skill,Read,Edit,Write"];
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
  // 2.1.112's default model has a 200,000 window, 2.1.332's 1,000,000 (harnesses.md).
  const window = id === "claude-2.1.112" ? 200_000 : 1_000_000;
  harnessSuite(id, (suite) => {
    const session = async (prefix: string, tokens: number) => {
      const { w } = await installedProject(suite.world(prefix), ".claude/skills", "claude-code");
      const from = suite.fake().requests.length;
      suite.fake().setScript((req) => ({ text: `FAKE-REPLY ${req.prompt.slice(0, 12)}`, inputTokens: tokens }));
      const s = await claude(id, w, suite.fake(), ["first turn", "second turn", "third turn", "fourth turn"]);
      expect(s.r.code, s.r.stderr.slice(-2000)).toBe(0);
      return { w, s, reqs: main(suite.fake(), from) };
    };

    scenario(`${id}/context-offer-once`, "a usage crossing 75% gets the offer on the next turn, exactly once, and the checkpoint", async () => {
      const { w, s, reqs } = await session("ctx-high", Math.round(window * 0.75));
      expect(reqs.length).toBe(4);
      // Turn 1 has no usage yet; turn 2's request carries the offer; later turns only keep it in history.
      expect(count(reqs[0]!.text, OFFER)).toBe(0);
      expect(count(reqs[1]!.text, OFFER)).toBe(1);
      expect(count(reqs[3]!.text, OFFER)).toBe(1);
      expect(reqs[1]!.text).toContain("offer the user once to save a handoff now");
      expect(checkpointOf(w, s.sessionId)).toContain("Trigger: context-threshold");
    });

    scenario(`${id}/context-under-40`, "a session staying under 40% never gets it", async () => {
      const { w, s, reqs } = await session("ctx-low", Math.round(window * 0.39));
      expect(reqs.length).toBe(4);
      for (const q of reqs) expect(count(q.text, OFFER)).toBe(0);
      expect(existsSync(path.join(w.proj, ".ai", "memory", "checkpoints", `.offered-${s.sessionId}`))).toBe(false);
    });
  });
}

// Keep the imports used when a suite is skipped.
void chat;
void saveFlow;
void readFileSync;
export type { Tools };
