// An install killed after publishing but before its record (docs/decisions/install-records.md)
// leaves our block in the file with no record of it; a later install of another agent then
// records that file, block included, as "the bytes before install". Uninstalling both must not
// put the first agent's block back. Real processes, the failpoint seam.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { HELPER, cleanEnv, gitRepo, tempDir } from "../helpers.ts";

const USER = "# Project rules\n\nUse tabs.\n";

function run(root: string, home: string, args: string[], extra: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [HELPER, ...args, "--root", root], {
    cwd: root,
    env: cleanEnv({ HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), ...extra }),
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

describe("uninstall after an install killed past publication", () => {
  it("puts back no block of an agent uninstalled since: AGENTS.md ends with the user's text and nothing of ours", () => {
    const root = gitRepo();
    const home = tempDir("sh-home-");
    const agents = path.join(root, "AGENTS.md");
    writeFileSync(agents, USER);
    const killed = run(root, home, ["install", "--agent", "opencode"], { MEMORY_IO_FAILPOINT: "after-publication:crash" });
    expect(killed.signal).toBe("SIGKILL");
    expect(readFileSync(agents, "utf8")).toContain("session-handoff");
    const codex = run(root, home, ["install", "--agent", "codex"]);
    expect(codex.code, codex.stderr).toBe(0);
    const off1 = run(root, home, ["uninstall", "--agent", "opencode"]);
    expect(off1.code, off1.stderr).toBe(0);
    const off2 = run(root, home, ["uninstall", "--agent", "codex"]);
    expect(off2.code, off2.stderr).toBe(0);
    const after = readFileSync(agents, "utf8");
    expect(after).not.toContain("session-handoff");
    expect(after).toContain("Use tabs.");
  });
});
