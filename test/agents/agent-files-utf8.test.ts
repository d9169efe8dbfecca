// An agent file that is not valid UTF-8 would be decoded with U+FFFD in place of its bytes and
// written back changed (undo would not restore it): install, init and uninstall refuse it,
// naming the file and the byte, and change nothing.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, helper, snapshot, tempDir } from "../helpers.ts";

const BAD_JSON = Buffer.from([...Buffer.from('{"x": "'), 0xff, 0xfe, ...Buffer.from('"}\n')]);
// "café" as Windows-1252 writes it: é is the single byte 0xE9.
const CP1252 = Buffer.concat([Buffer.from("# Notes\nThe caf"), Buffer.from([0xe9]), Buffer.from(" rule.\n")]);

function setup(): { root: string; env: Record<string, string> } {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  return { root, env: { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") } };
}

describe("agent files that are not valid UTF-8", () => {
  it.each([["init"], ["install", "--agent", "claude-code"]])("%s refuses a bad .claude/settings.json, changing nothing", (...verb) => {
    const { root, env } = setup();
    const file = path.join(root, ".claude", "settings.json");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, BAD_JSON);
    const before = snapshot(root);
    const r = helper([...verb, "--root", root], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${file} is not valid UTF-8 (byte 7): fix or re-save it as UTF-8, then run this again`);
    expect(snapshot(root)).toEqual(before);
  });

  it("uninstall refuses a settings file that became invalid after install", () => {
    const { root, env } = setup();
    expect(helper(["install", "--agent", "claude-code", "--root", root], { env }).code).toBe(0);
    const file = path.join(root, ".claude", "settings.json");
    const bad = Buffer.from(readFileSync(file, "utf8").replace("{", '{"x": "\uFFFD",').replace("\uFFFD", "\u0000"), "utf8");
    bad[bad.indexOf(0)] = 0xff;
    writeFileSync(file, bad);
    const before = snapshot(root);
    const r = helper(["uninstall", "--agent", "claude-code", "--root", root], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${file} is not valid UTF-8 (byte 7)`);
    expect(snapshot(root)).toEqual(before);
  });

  it("install refuses a Windows-1252 AGENTS.md, changing nothing", () => {
    const { root, env } = setup();
    writeFileSync(path.join(root, "AGENTS.md"), CP1252);
    const before = snapshot(root);
    const r = helper(["install", "--agent", "codex", "--root", root], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`AGENTS.md is not valid UTF-8 (byte ${CP1252.indexOf(0xe9)})`);
    expect(snapshot(root)).toEqual(before);
  });
});
