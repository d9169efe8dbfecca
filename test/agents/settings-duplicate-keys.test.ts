// A settings file with a key twice in one object (what pasting a snippet by hand gives): a
// parser keeps the last and drops the first, so an edit would delete the user's own hook.
// install refuses, naming both lines and the fix, and changes nothing.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, helper, tempDir } from "../helpers.ts";

const SETTINGS = `{
  "hooks": {
    "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "my-own-guard.sh" }] }]
  },
  "model": "opus",
  "hooks": {
    "Stop": [{ "hooks": [{ "type": "command", "command": "notify-me.sh" }] }]
  }
}
`;

describe("duplicate keys in .claude/settings.json", () => {
  it("install refuses with both line numbers and the fix; the file keeps its bytes", () => {
    const root = gitRepo();
    const home = tempDir("sh-home-");
    const file = path.join(root, ".claude", "settings.json");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, SETTINGS);
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
    const r = helper(["install", "--agent", "claude-code", "--root", root], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/has the key "hooks" twice in one object \(lines 2 and 6\)/);
    expect(r.stderr).toMatch(/Merge the two into one "hooks"/);
    expect(readFileSync(file, "utf8")).toBe(SETTINGS);
  });
});
