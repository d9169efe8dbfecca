// States no verb's own test makes (docs/design.md#sentences-the-helper-prints): each made for real
// (a git repository, the built helper, a crash through the failpoint seam) and what it prints checked.
// The verbs run in this process (inProcess); the crash, which would kill the test runner, spawns.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, helper, MARKER, tempDir } from "../helpers.ts";
import { inProcess, saveIn, tokenIn } from "../in-process.ts";

const mem = (root: string, ...p: string[]) => path.join(root, ".ai", "memory", ...p);

describe("check's states, word for word", () => {
  it("parked: a saved handoff", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("Fix the login redirect."));
    const r = await inProcess(["check", "--root", root]);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("a handoff is parked and can be resumed");
  });

  it("unsafe: HANDOFF.md is a link", async () => {
    const root = gitRepo();
    mkdirSync(mem(root), { recursive: true });
    writeFileSync(path.join(root, "elsewhere.md"), handoff("x"));
    symlinkSync(path.join(root, "elsewhere.md"), mem(root, "HANDOFF.md"));
    const r = await inProcess(["check", "--root", root]);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain("memory is unsafe or foreign: do not load it; tell the user");
  });

  it("interrupted: a save killed after its claim", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("first"));
    const killed = helper(["write", "handoff", "--root", root, "--expected-current-sha256", await tokenIn(root)], { input: handoff("second"), env: { MEMORY_IO_FAILPOINT: "after-claim:crash" } });
    expect(killed.signal).toBe("SIGKILL");
    const r = await inProcess(["check", "--root", root]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("an interrupted save needs recovery: run `recover`, then check again");
  });
});

describe("write's notes, word for word", () => {
  it("a Saved: value that is not a time", async () => {
    const root = gitRepo();
    const r = await inProcess(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: handoff("x").replace(/^Saved: .*$/m, "Saved: yesterday evening") });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^note: Saved: "yesterday evening" is not a time; stamped \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
  });

  it("more than 20 findings: the rest are left to validate", async () => {
    const root = gitRepo();
    const decisions = Array.from({ length: 25 }, (_, i) => `- choice ${i} without a label`).join("\n");
    const r = await inProcess(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: handoff("x").replace("## Decisions\n- none", `## Decisions\n${decisions}`) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split("\n").filter((l) => l.startsWith("finding: line "))).toHaveLength(20);
    expect(r.stderr).toContain("\nfinding: … and more; run `validate` for the full list\n");
  });

  it("an old month the fold cannot read: the save stands, the next save tries again", async () => {
    const root = gitRepo();
    mkdirSync(mem(root, "journal"), { recursive: true });
    writeFileSync(mem(root, "journal", "2025-01.md"), `${MARKER}\n# Journal 2025-01\n\nnot an entry\n`);
    const r = await inProcess(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: handoff("x") });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^journal: the fold of an old month did not finish: journal\/2025-01\.md line 4: .+; the next save tries again$/m);
    expect(readFileSync(mem(root, "journal", "2025-01.md"), "utf8")).toContain("not an entry");
  });
});

describe("install's refusal of a file only the user can fix, word for word", () => {
  it("a settings file that is not JSON: nothing changed, the snippet to paste by hand", async () => {
    const root = gitRepo();
    const home = tempDir("sh-home-");
    const file = path.join(root, ".claude", "settings.json");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "{ not json\n");
    const r = await inProcess(["install", "--agent", "claude-code", "--root", root], { env: { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^memory operation refused: \.claude\/settings\.json is not valid JSON \(\w+ at offset \d+\); nothing was changed\. Add this to it by hand:$/m);
    expect(readFileSync(file, "utf8")).toBe("{ not json\n");
  });
});
