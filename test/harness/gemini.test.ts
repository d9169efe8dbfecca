// Gemini CLI 0.61.0, headless (`gemini -p … --yolo`) against the fake model: discovery, install,
// the notice, resume, save, the session-end checkpoint, and no chat line of ours.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { expect } from "vitest";
import type { FakeModel, ModelRequest } from "./fake-model.ts";
import { resumeFlow, saveFlow, TRICKY_HANDOFF, workFlow, type Tools } from "./flows.ts";
import {
  checkpointOf,
  cliCommand,
  harnessSuite,
  installedProject,
  listFiles,
  REPO,
  run,
  scenario,
  stripFilled,
  type RunResult,
  type World,
} from "./lib.ts";
import { briefBody } from "../helpers.ts";

const ID = "gemini";
const DESCRIPTION: string = matter(readFileSync(path.join(REPO, "SKILL.md"), "utf8")).data.description;

const geminiTools: Tools = {
  hasSkillTool: true,
  skill: () => ({ tool: "activate_skill", input: { name: "session-handoff" } }),
  shell: (command) => ({ tool: "run_shell_command", input: { command, description: "run a command" } }),
  writeFile: (file_path, content) => ({ tool: "write_file", input: { file_path, content } }),
};

interface Headless {
  run: RunResult;
  sessionId: string;
  chat: string | null;
}

async function gemini(w: World, fake: FakeModel, prompt: string): Promise<Headless> {
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
  const r = await run([...cliCommand(ID), "-p", prompt, "--yolo"], {
    cwd: w.proj,
    env: {
      ...w.env,
      GOOGLE_GEMINI_BASE_URL: fake.url,
      GEMINI_API_KEY: "dummy-key",
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    },
    timeoutMs: 90_000,
    input: "",
  });
  const chats = listFiles(path.join(dir, "tmp")).filter((f) => /\/chats\/session-.*\.jsonl$/.test(f));
  const chat = chats.length ? path.join(dir, "tmp", chats.sort().at(-1)!) : null;
  const sessionId = chat ? (JSON.parse(readFileSync(chat, "utf8").split("\n")[0] || "{}").sessionId ?? "") : "";
  return { run: r, sessionId, chat };
}

const explain = (g: Headless, extra = "") =>
  `exit ${g.run.code}${g.run.timedOut ? " (timed out)" : ""} in ${g.run.ms} ms\n` +
  `stdout: ${g.run.stdout.slice(-1500)}\nstderr: ${g.run.stderr.slice(-2500)}\n${extra}`;

/** XML-escaped as Gemini lists skills, or as written. */
const listed = (text: string, s: string) =>
  text.includes(JSON.stringify(s).slice(1, -1)) ||
  text.includes(
    JSON.stringify(
      s
        .replace(/&/g, "&amp;")
        .replace(/</g, "&lt;")
        .replace(/>/g, "&gt;")
        .replace(/'/g, "&apos;")
        .replace(/"/g, "&quot;"),
    ).slice(1, -1),
  );

harnessSuite(ID, (suite) => {
  const setup = (prefix: string, parked = false) =>
    installedProject(suite.world(prefix), ".gemini/skills", "gemini", parked);
  const main = (from: number): ModelRequest[] =>
    suite
      .fake()
      .requests.slice(from)
      .filter((r) => !r.aux);

  scenario(
    `${ID}/listing-install-notice`,
    "lists the skill whole, runs the installed hooks without a failure, and the notice reaches the model",
    async () => {
      const { w } = await setup("notice", true);
      const from = suite.fake().requests.length;
      suite.fake().setScript(() => ({ text: "FAKE-MODEL-OK" }));
      const g = await gemini(w, suite.fake(), "hello");
      expect(g.run.code, explain(g)).toBe(0);
      const req = main(from)[0];
      if (!req) throw new Error(`no request reached the model: ${explain(g)}`);
      expect(listed(req.text, DESCRIPTION), "description not listed whole").toBe(true);
      expect(req.text).toContain("a parked handoff exists (.ai/memory/HANDOFF.md");
      expect(g.run.stderr).not.toMatch(/hook[^\n]*(failed|error)|Invalid hook/i);
    },
  );

  scenario(`${ID}/no-chat-line`, "no chat line (`Hook system message`) comes from our hooks", async (known) => {
    const { w } = await setup("quiet", true);
    suite.fake().setScript(() => ({ text: "FAKE-MODEL-OK" }));
    const g = await gemini(w, suite.fake(), "hello");
    expect(g.run.code, explain(g)).toBe(0);
    const ours = (g.run.stdout + g.run.stderr)
      .split("\n")
      .filter((l) => /^Hook system message: .*(session-handoff|checkpoint|memory_io|using root)/.test(l));
    await known(() => expect(ours).toEqual([]));
  });

  scenario(`${ID}/resume`, "a resume is one shell call of brief", async () => {
    const { w } = await setup("resume", true);
    const from = suite.fake().requests.length;
    suite.fake().setScript(resumeFlow(geminiTools));
    const g = await gemini(w, suite.fake(), "resume where we left off");
    expect(g.run.code, explain(g)).toBe(0);
    const last = main(from).at(-1)!;
    const calls = (last.body.contents ?? []).flatMap((c: any) =>
      (c.parts ?? []).filter((p: any) => p.functionCall).map((p: any) => p.functionCall),
    );
    expect(
      calls.map((c: any) => c.name),
      explain(g),
    ).toEqual(["activate_skill", "run_shell_command"]);
    expect(calls[1].args.command).toMatch(/memory_io\.mjs" brief$/);
    const brief = briefBody(last.results.at(-1)!);
    expect(brief).toMatch(/Goal: Add a subtract function to src\/math\.js\. PARKED-GOAL-MARKER/);
    for (const l of ["Plan status:", "Decisions in force:", "Do-not-retry:", "Drift & lessons:", "Proposed next step:"])
      expect(brief).toContain(l);
  });

  scenario(
    `${ID}/save`,
    "a save lands byte-exact (backticks, $HOME, $(…), a line EOF) in the form SKILL.md shows",
    async (known) => {
      const { w } = await setup("save");
      suite.fake().setScript(saveFlow(geminiTools, w.proj));
      const g = await gemini(w, suite.fake(), "let's stop here, write a handoff");
      expect(g.run.code, explain(g)).toBe(0);
      const saved = path.join(w.proj, ".ai", "memory", "HANDOFF.md");
      await known(() => {
        expect(existsSync(saved), explain(g, JSON.stringify(suite.fake().requests.at(-1)?.results))).toBe(true);
        expect(stripFilled(readFileSync(saved, "utf8"))).toBe(stripFilled(TRICKY_HANDOFF));
      });
    },
  );

  scenario(
    `${ID}/session-end`,
    "a session end writes the checkpoint: commands with exit status, the file written",
    async () => {
      const { w } = await setup("end");
      suite.fake().setScript(workFlow(geminiTools, w.proj));
      const g = await gemini(w, suite.fake(), "Add a sub function in src/sub.js please");
      expect(g.run.code, explain(g)).toBe(0);
      keepFixture("gemini-0.61.0-work", g);
      const cp = checkpointOf(w, g.sessionId);
      expect(cp, explain(g)).toContain("Trigger: session-end");
      expect(cp).toMatch(/`exit 7` — exit 7/);
      expect(cp).toMatch(/WORK-OK.*— (ok|exit 0)/);
      expect(cp).toMatch(/## Files edited\n- src\/sub\.js/);
    },
  );

  scenario(
    `${ID}/session-end-request`,
    "the checkpoint quotes the user's request without our <hook_context> prefix",
    async (known) => {
      const { w } = await setup("end-request", true);
      suite.fake().setScript(workFlow(geminiTools, w.proj));
      const g = await gemini(w, suite.fake(), "Add a sub function in src/sub.js please");
      expect(g.run.code, explain(g)).toBe(0);
      const cp = checkpointOf(w, g.sessionId);
      expect(cp, explain(g)).toContain("Trigger: session-end");
      await known(() => {
        expect(cp).toContain('The user wrote: "Add a sub function in src/sub.js please"');
        expect(cp).not.toContain("hook_context");
      });
    },
  );
});

/** Copies a chat file the CLI wrote to $SESSION_HANDOFF_HARNESS_FIXTURES (for the adapters' goldens). */
function keepFixture(name: string, g: Headless): void {
  const dir = process.env.SESSION_HANDOFF_HARNESS_FIXTURES;
  if (!dir || !g.chat) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${name}.chat.jsonl`), readFileSync(g.chat));
}
