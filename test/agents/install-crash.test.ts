// An install or uninstall killed mid-write (the failpoint seam, SIGKILL) leaves each agent file
// whole: the old bytes or the new, never a torn file; the next run completes. Files are replaced
// with write-file-atomic (docs/decisions/agent-files-atomic.md). Real processes.
import { copyHelper } from "../helpers.ts";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, tempDir } from "../helpers.ts";

/** The user's settings, deliberately not in JSON.stringify's layout: exact bytes must survive. */
const ORIGINAL = '{"model": "opus",\n "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}]}}\n';

/** A project with the skill inside it (so hook commands, hence installed bytes, do not depend on the folder). */
function setup(withFile: boolean) {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  const helper = path.join(root, ".claude", "skills", "session-handoff", "scripts", "memory_io.mjs");
  mkdirSync(path.dirname(helper), { recursive: true });
  copyHelper(helper);
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") } as Record<string, string>;
  for (const k of ["SESSION_HANDOFF_PAUSE", "SESSION_HANDOFF_DISABLE", "MEMORY_IO_FAILPOINT", "CLAUDE_PROJECT_DIR"]) delete env[k];
  const file = path.join(root, ".claude", "settings.json");
  if (withFile) writeFileSync(file, ORIGINAL);
  const run = (args: string[], extra: Record<string, string> = {}) => {
    const opts = { cwd: root, env: { ...env, ...extra }, encoding: "utf8" as const, timeout: 60_000 };
    const r = spawnSync(process.execPath, [helper, ...args, "--root", root], opts);
    return { code: r.status, signal: r.signal, stderr: r.stderr };
  };
  return { file, run };
}

const PHASES = ["read-opened", "before-publication", "after-publication"] as const;

describe("install killed mid-write, then run again", () => {
  it.each([true, false])("with a settings file before: %s", (withFile) => {
    const clean = setup(withFile);
    expect(clean.run(["install", "--agent", "claude-code"]).code).toBe(0);
    const installed = readFileSync(clean.file, "utf8");
    // With no file there is nothing to re-read: read-opened is never reached.
    for (const phase of PHASES.filter((p) => withFile || p !== "read-opened")) {
      const e = setup(withFile);
      const crashed = e.run(["install", "--agent", "claude-code"], { MEMORY_IO_FAILPOINT: `${phase}:crash` });
      expect(crashed.signal, `${phase}: ${crashed.stderr}`).toBe("SIGKILL");
      // Whole: the old bytes (or no file) before the rename, the new bytes after it.
      const now = existsSync(e.file) ? readFileSync(e.file, "utf8") : null;
      expect([phase, now]).toEqual([phase, phase === "after-publication" ? installed : withFile ? ORIGINAL : null]);
      const again = e.run(["install", "--agent", "claude-code"]);
      expect(again.code, again.stderr).toBe(0);
      expect(readFileSync(e.file, "utf8")).toBe(installed);
      const un = e.run(["uninstall", "--agent", "claude-code"]);
      expect(un.code, un.stderr).toBe(0);
      if (withFile) expect(JSON.parse(readFileSync(e.file, "utf8"))).toEqual(JSON.parse(ORIGINAL));
      if (withFile && phase !== "after-publication") expect(readFileSync(e.file, "utf8")).toBe(ORIGINAL);
      if (!withFile && phase !== "after-publication") expect(existsSync(e.file)).toBe(false);
    }
  });

  it("uninstall killed mid-write leaves the installed bytes; the next uninstall restores the original", () => {
    const e = setup(true);
    expect(e.run(["install", "--agent", "claude-code"]).code).toBe(0);
    const installed = readFileSync(e.file, "utf8");
    const crashed = e.run(["uninstall", "--agent", "claude-code"], { MEMORY_IO_FAILPOINT: "before-publication:crash" });
    expect(crashed.signal).toBe("SIGKILL");
    expect(readFileSync(e.file, "utf8")).toBe(installed);
    // What a kill leaves beside the file is write-file-atomic's temp, never the file's own name.
    const temps = readdirSync(path.dirname(e.file)).filter((n) => /^settings\.json\.\d+$/.test(n));
    expect(temps).toHaveLength(1);
    const un = e.run(["uninstall", "--agent", "claude-code"]);
    expect(un.code, un.stderr).toBe(0);
    expect(readFileSync(e.file, "utf8")).toBe(ORIGINAL);
  });
});
