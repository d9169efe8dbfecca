// Codex CLI 0.171.0, `codex exec` against the fake model (Responses wire): discovery, install,
// the notice, resume, save, checkpoints at session end and at a forced auto-compaction, in
// function-tool mode (an unknown model name) and in code mode (`gpt-6.1-sol`).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { expect } from "vitest";
import type { ModelRequest } from "./fake-model.ts";
import { chat, resumeFlow, saveFlow, TRICKY_HANDOFF, workFlow } from "./flows.ts";
import { checkpointOf, harnessSuite, installedProject, REPO, scenario, stripFilled } from "./lib.ts";
import { briefBody } from "../helpers.ts";
import { codeModeTools, codex, codexTools, type Exec } from "./sessions.ts";

const ID = "codex";
const DESCRIPTION: string = matter(readFileSync(path.join(REPO, "SKILL.md"), "utf8")).data.description;

const explain = (e: Exec, extra = "") =>
  `exit ${e.run.code}${e.run.timedOut ? " (timed out)" : ""} in ${e.run.ms} ms\n` +
  `stderr: ${e.run.stderr.slice(-2500)}\n${extra}`;

harnessSuite(ID, (suite) => {
  const setup = (prefix: string, parked = false) =>
    installedProject(suite.world(prefix), ".agents/skills", "codex", parked);
  const main = (from: number): ModelRequest[] =>
    suite
      .fake()
      .requests.slice(from)
      .filter((r) => !r.aux);

  scenario(
    `${ID}/listing-install-notice`,
    "lists the skill whole, runs the installed hooks without warning, and the notice reaches the model",
    async () => {
      const { w } = await setup("notice", true);
      const from = suite.fake().requests.length;
      suite.fake().setScript(chat("FAKE-MODEL-OK"));
      const e = await codex(w, suite.fake(), "hello");
      expect(e.run.code, explain(e)).toBe(0);
      const req = main(from)[0];
      if (!req) throw new Error(`no request reached the model: ${explain(e)}`);
      expect(req.text).toContain(`- session-handoff: ${JSON.stringify(DESCRIPTION).slice(1, -1)} (file: r`);
      expect(req.text).toContain("a parked handoff exists (.ai/memory/HANDOFF.md");
      expect(e.run.stderr).toContain("hook: SessionStart Completed");
      expect(e.run.stderr).not.toMatch(/hook: \w+ (Failed|Blocked)|hook.*error/i);
    },
  );

  scenario(`${ID}/resume`, "a resume is one shell call of brief", async () => {
    const { w } = await setup("resume", true);
    const from = suite.fake().requests.length;
    suite.fake().setScript(resumeFlow(codexTools(w.proj)));
    const e = await codex(w, suite.fake(), "resume where we left off");
    expect(e.run.code, explain(e)).toBe(0);
    const last = main(from).at(-1)!;
    const calls = (last.body.input ?? [])
      .filter((i: any) => i.type === "function_call")
      .map((i: any) => JSON.parse(i.arguments).cmd as string);
    expect(
      calls.filter((c: string) => c.includes("memory_io.mjs")),
      calls.join("\n"),
    ).toEqual([expect.stringMatching(/memory_io\.mjs" brief$/)]);
    const brief = briefBody(last.results.at(-1)!);
    expect(brief).toMatch(/Goal: Add a subtract function to src\/math\.js\. PARKED-GOAL-MARKER/);
    for (const l of ["Plan status:", "Decisions in force:", "Do-not-retry:", "Drift & lessons:", "Proposed next step:"])
      expect(brief).toContain(l);
  });

  scenario(
    `${ID}/save`,
    "a save lands byte-exact (backticks, $HOME, $(…), a line EOF) in the form SKILL.md shows",
    async () => {
      const { w } = await setup("save");
      suite.fake().setScript(saveFlow(codexTools(w.proj), w.proj));
      const e = await codex(w, suite.fake(), "let's stop here, write a handoff");
      expect(e.run.code, explain(e)).toBe(0);
      const saved = path.join(w.proj, ".ai", "memory", "HANDOFF.md");
      expect(existsSync(saved), explain(e, JSON.stringify(suite.fake().requests.at(-1)?.results))).toBe(true);
      expect(stripFilled(readFileSync(saved, "utf8"))).toBe(stripFilled(TRICKY_HANDOFF));
    },
  );

  scenario(
    `${ID}/session-end`,
    "a session end writes the checkpoint: the request and the commands with their exit status",
    async () => {
      const { w } = await setup("end");
      suite.fake().setScript(workFlow(codexTools(w.proj), w.proj));
      const e = await codex(w, suite.fake(), "Add a sub function in src/sub.js please");
      expect(e.run.code, explain(e)).toBe(0);
      const cp = checkpointOf(w, e.sessionId);
      keepFixture("codex-0.171.0-function-tools", e);
      expect(cp, explain(e)).toContain("Trigger: session-end");
      expect(cp).toContain("Add a sub function in src/sub.js please");
      expect(cp).toMatch(/`exit 7` — exit 7/);
      expect(cp).toMatch(/WORK-OK.*— (ok|exit 0)/);
      expect(cp).toContain("FAKE-WORK-DONE");
    },
  );

  scenario(
    `${ID}/session-end-files`,
    "a session end records the file apply_patch added, and not the patch as a command",
    async (known) => {
      const { w } = await setup("end-files");
      suite.fake().setScript(workFlow(codexTools(w.proj), w.proj));
      const e = await codex(w, suite.fake(), "Add a sub function in src/sub.js please");
      expect(e.run.code, explain(e)).toBe(0);
      expect(existsSync(path.join(w.proj, "src/sub.js")), explain(e)).toBe(true);
      const cp = checkpointOf(w, e.sessionId);
      expect(cp, explain(e)).toContain("Trigger: session-end");
      await known(() => {
        expect(cp).toMatch(/## Files edited\n- src\/sub\.js/);
        expect(cp).not.toContain("apply_patch");
      });
    },
  );

  scenario(
    `${ID}/codemode-compact`,
    "code mode with a forced auto-compaction: the checkpoints hold the request, the command's exit status and the file",
    async (known) => {
      const { w } = await setup("codemode");
      const work = workFlow(codeModeTools(w.proj), w.proj);
      // The second reply reports 300,000 input tokens: over the 1,000 limit, Codex compacts
      // once; after it the history is the summary, so the work is not started again.
      let reported = false;
      suite.fake().setScript((req) => {
        if (req.text.includes("FAKE-CODEX-COMPACT-SUMMARY"))
          return { text: "FAKE-WORK-DONE: I added src/sub.js; I believe it works." };
        const r = work(req);
        if (req.results.length === 1 && !reported) {
          reported = true;
          return { ...r, inputTokens: 300_000 };
        }
        return r;
      });
      const from = suite.fake().requests.length;
      const e = await codex(w, suite.fake(), "Add a sub function in src/sub.js please", {
        model: "gpt-6.1-sol",
        extra: ["-c", "model_auto_compact_token_limit=1000"],
      });
      expect(e.run.code, explain(e)).toBe(0);
      keepFixture("codex-0.171.0-codemode-compaction", e);
      expect(
        suite
          .fake()
          .requests.slice(from)
          .some((r) => r.aux),
        "no compaction request",
      ).toBe(true);
      expect(existsSync(path.join(w.proj, "src/sub.js")), explain(e)).toBe(true);
      const cp = checkpointOf(w, e.sessionId);
      expect(cp, explain(e)).toContain("Trigger: session-end");
      expect(cp).toContain("Add a sub function in src/sub.js please");
      await known(() => {
        expect(cp).toMatch(/`exit 7` — exit 7/);
        expect(cp).toMatch(/## Files edited\n- src\/sub\.js/);
      });
    },
  );
});

/** Copies a rollout the CLI wrote to $SESSION_HANDOFF_HARNESS_FIXTURES (for the adapters' goldens). */
function keepFixture(name: string, e: Exec): void {
  const dir = process.env.SESSION_HANDOFF_HARNESS_FIXTURES;
  if (!dir || !e.rollout) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${name}.rollout.jsonl`), readFileSync(e.rollout));
}
