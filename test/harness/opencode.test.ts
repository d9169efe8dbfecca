// OpenCode 1.18.33, `opencode run` against the fake model (Chat Completions): discovery, the
// AGENTS.md bootstrap block, resume, and the start-time cost of a plugin file that decides
// whether we ship one (docs/decisions/opencode-plugin.md).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import matter from "gray-matter";
import { expect } from "vitest";
import type { FakeModel, ModelRequest, Reply } from "./fake-model.ts";
import { resumeFlow, type Tools } from "./flows.ts";
import { cliCommand, harnessSuite, installedProject, REPO, run, scenario, type RunResult, type World } from "./lib.ts";
import { briefBody } from "../helpers.ts";

const ID = "opencode";
const DESCRIPTION: string = matter(readFileSync(path.join(REPO, "SKILL.md"), "utf8")).data.description;

/** A call of the named tool, its first required string parameter set to `value` (names vary by version). */
function call(req: ModelRequest, name: string, value: string, extra: Record<string, unknown> = {}): Reply {
  const tool = (req.body.tools ?? []).find((t: any) => t.function?.name === name);
  const key = tool?.function?.parameters?.required?.[0] ?? (name === "bash" ? "command" : "name");
  return { tool: name, input: { [key]: value, ...extra } };
}

const opencodeTools: Tools = {
  hasSkillTool: true,
  skill: (req) => call(req, "skill", "session-handoff"),
  shell: (cmd, req) => call(req, "bash", cmd, { description: "run a command" }),
  writeFile: (filePath, content) => ({ tool: "write", input: { filePath, content } }),
};

async function opencode(w: World, fake: FakeModel, prompt: string): Promise<RunResult> {
  const dir = path.join(w.home, ".config", "opencode");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, "opencode.json"),
    JSON.stringify({
      provider: {
        fake: {
          npm: "@ai-sdk/openai-compatible",
          options: { baseURL: `${fake.url}/v1`, apiKey: "dummy" },
          models: { "fake-model": { tool_call: true } },
        },
      },
      model: "fake/fake-model",
      small_model: "fake/fake-model",
    }),
  );
  return run([...cliCommand(ID), "run", prompt], {
    cwd: w.proj,
    env: { ...w.env, OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1" },
    timeoutMs: 150_000,
    input: "",
  });
}

const explain = (r: RunResult) =>
  `exit ${r.code}${r.timedOut ? " (timed out)" : ""} in ${r.ms} ms\n` +
  `stdout: ${r.stdout.slice(-1500)}\nstderr: ${r.stderr.slice(-2500)}`;

harnessSuite(ID, (suite) => {
  const setup = (prefix: string, parked = false) =>
    installedProject(suite.world(prefix), ".opencode/skills", "opencode", parked);
  const main = (from: number): ModelRequest[] =>
    suite
      .fake()
      .requests.slice(from)
      .filter((r) => !r.aux);

  scenario(`${ID}/listing-bootstrap`, "lists the skill whole and sends the AGENTS.md bootstrap block", async () => {
    const { w } = await setup("listing", true);
    const from = suite.fake().requests.length;
    suite.fake().setScript(() => ({ text: "FAKE-MODEL-OK" }));
    const r = await opencode(w, suite.fake(), "hello");
    expect(r.code, explain(r)).toBe(0);
    const req = main(from).find((q) => q.text.includes("available_skills"));
    if (!req) throw new Error(`no agent request with a skill listing: ${explain(r)}`);
    expect(req.text).toContain(JSON.stringify(DESCRIPTION).slice(1, -1));
    expect(req.text).toContain(`Instructions from: ${w.proj}/AGENTS.md`);
    expect(req.text).toContain("session-handoff:begin");
  });

  scenario(`${ID}/resume`, "a resume is one shell call of brief", async () => {
    const { w } = await setup("resume", true);
    const from = suite.fake().requests.length;
    suite.fake().setScript(resumeFlow(opencodeTools));
    const r = await opencode(w, suite.fake(), "resume where we left off");
    expect(r.code, explain(r)).toBe(0);
    const last = main(from).at(-1)!;
    const calls = (last.body.messages ?? []).flatMap((m: any) => m.tool_calls ?? []).map((c: any) => c.function.name);
    expect(calls, explain(r)).toEqual(["skill", "bash"]);
    const brief = briefBody(last.results.at(-1) ?? "");
    expect(brief, explain(r)).toMatch(/Goal: Add a subtract function to src\/math\.js\. PARKED-GOAL-MARKER/);
    expect(brief).toContain("Proposed next step:");
  });

  scenario(
    `${ID}/plugin-start-cost`,
    "a plugin file still costs more than 1 s at an offline start " +
      "(why we ship the AGENTS.md block: docs/decisions/opencode-plugin.md)",
    async () => {
      const bare = await setup("start-bare");
      suite.fake().setScript(() => ({ text: "FAKE-MODEL-OK" }));
      const without = await opencode(bare.w, suite.fake(), "hello");
      const plug = await setup("start-plugin");
      mkdirSync(path.join(plug.w.proj, ".opencode", "plugin"), { recursive: true });
      writeFileSync(
        path.join(plug.w.proj, ".opencode", "plugin", "probe.js"),
        "export const Probe = async () => ({});\n",
      );
      const withPlugin = await opencode(plug.w, suite.fake(), "hello");
      console.log(
        `opencode start: ${(without.ms / 1000).toFixed(1)} s without a plugin file, ` +
          `${(withPlugin.ms / 1000).toFixed(1)} s with one`,
      );
      expect(without.code, explain(without)).toBe(0);
      expect(withPlugin.code, explain(withPlugin)).toBe(0);
      // When this fails the plugin became cheap: revisit docs/decisions/opencode-plugin.md.
      expect(withPlugin.ms - without.ms).toBeGreaterThan(1000);
    },
    330_000,
  );
});
