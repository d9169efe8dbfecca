// The npm package's one command, then real sessions: `npm pack` of this checkout (once per
// file), `npm exec --package <tarball> -- session-handoff init` offline in a git project holding
// .claude/ and .codex/, a handoff saved through the installed helper, then a Claude Code and a
// Codex session: each gets the start notice and, asked to resume, runs `brief` from the skill
// folder init installed (.agents/skills/session-handoff, which Claude Code sees via .claude/skills).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect } from "vitest";
import type { ModelRequest } from "./fake-model.ts";
import { resumeFlow } from "./flows.ts";
import { gitInit, harnessSuite, PARKED_HANDOFF, REPO, run, scenario, seedHandoff } from "./lib.ts";
import type { HarnessId, World } from "./lib.ts";
import { claude, claudeTools, codex, codexTools } from "./sessions.ts";
import { briefBody } from "../helpers.ts";

let packDir = "";
let packed: string | undefined;
afterAll(() => {
  if (packDir) rmSync(packDir, { recursive: true, force: true });
});

/** npm offline with the world's HOME and its own cache: nothing is fetched from a registry. */
function npmEnv(w: World): NodeJS.ProcessEnv {
  return {
    ...w.env,
    GIT_CEILING_DIRECTORIES: w.root,
    npm_config_cache: path.join(w.root, "npm-cache"),
    npm_config_offline: "true",
    npm_config_update_notifier: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
  };
}

/** The packed tarball of this checkout, made on first use. */
function tarball(w: World): string {
  if (packed) return packed;
  packDir = realpathSync(mkdtempSync(path.join(tmpdir(), "sh-harness-pack-")));
  const args = ["pack", "--json", "--pack-destination", packDir];
  const out = execFileSync("npm", args, { cwd: REPO, env: npmEnv(w), encoding: "utf8" });
  packed = path.join(packDir, JSON.parse(out)[0].filename as string);
  return packed;
}

/** The `brief` command the model ran and the folder it ran it from, from the last request. */
function briefCall(cmds: string[]): { cmd: string; dir: string } {
  const cmd = cmds.find((c) => /memory_io\.mjs" brief$/.test(c)) ?? "";
  return { cmd, dir: /^node "(.*)\/scripts\/memory_io\.mjs" brief$/.exec(cmd)?.[1] ?? "" };
}

for (const id of ["claude-2.1.112", "claude-2.1.332", "codex"] as HarnessId[]) {
  harnessSuite(id, (suite) => {
    const title =
      "after `npx session-handoff init` from the tarball, a session gets the notice and resumes " + "from its skill";
    scenario(
      `${id}/init-resume`,
      title,
      async () => {
        const w = suite.world("init");
        for (const d of [".claude", ".codex"]) mkdirSync(path.join(w.proj, d));
        await gitInit(w);
        const t0 = Date.now();
        const tgz = tarball(w);
        const t1 = Date.now();
        const npx = ["npm", "exec", "--yes", "--package", tgz, "--", "session-handoff", "init"];
        const init = await run(npx, { cwd: w.proj, env: npmEnv(w), timeoutMs: 120_000 });
        console.log(`${id} init-resume: npm pack ${t1 - t0} ms, npm exec init ${Date.now() - t1} ms`);
        expect(init.code, `${init.stdout}\n${init.stderr}`).toBe(0);
        const skill = path.join(w.proj, ".agents", "skills", "session-handoff");
        await seedHandoff(w, path.join(skill, "scripts", "memory_io.mjs"), PARKED_HANDOFF);

        const from = suite.fake().requests.length;
        let cmds: string[];
        let why: string;
        if (id === "codex") {
          suite.fake().setScript(resumeFlow(codexTools(w.proj)));
          const e = await codex(w, suite.fake(), "resume where we left off");
          why = `exit ${e.run.code} in ${e.run.ms} ms\nstderr: ${e.run.stderr.slice(-2500)}`;
          expect(e.run.code, why).toBe(0);
          const last = main(suite.fake().requests, from).at(-1);
          const calls = (last?.body.input ?? []).filter((i: any) => i.type === "function_call");
          cmds = calls.map((i: any) => JSON.parse(i.arguments).cmd as string);
        } else {
          suite.fake().setScript(resumeFlow(claudeTools));
          const s = await claude(id, w, suite.fake(), ["resume where we left off"]);
          why = `exit ${s.run.code} in ${s.run.ms} ms\nstderr: ${s.run.stderr.slice(-2000)}`;
          expect(s.run.code, why).toBe(0);
          const uses = s.events.flatMap((e) => (e.type === "assistant" ? e.message.content : []));
          cmds = uses.filter((c: any) => c.type === "tool_use" && c.name === "Bash").map((c: any) => c.input.command);
        }
        const reqs = main(suite.fake().requests, from);
        expect(reqs[0]?.text ?? "", why).toContain("a parked handoff exists (.ai/memory/HANDOFF.md");
        const { cmd, dir } = briefCall(cmds);
        expect(cmd, `${why}\ncommands: ${cmds.join("\n")}`).not.toBe("");
        expect(realpathSync(dir)).toBe(skill);
        const brief = briefBody(reqs.at(-1)!.results.at(-1) ?? "");
        expect(brief).toMatch(/^Goal: Add a subtract function to src\/math\.js\. PARKED-GOAL-MARKER$/m);
      },
      240_000,
    );
  });
}

/** The requests of the agent's turns (not titles or other side requests) since `from`. */
const main = (requests: ModelRequest[], from: number): ModelRequest[] => requests.slice(from).filter((r) => !r.aux);
