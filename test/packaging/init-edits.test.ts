// What init leaves of the user's own work: a re-run never overwrites a file of the copy they
// edited (refused, naming it; --replace overwrites), `init --undo` keeps such a file and removes
// the folders init made (Cline's .cline/) when nothing else is in them. docs/decisions/init.md.
// The verbs run in this process (inProcess, as this checkout's helper); the bundle is spawned for
// the commands a printed note tells the user to run (`init --replace`, `init --undo`).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { HELPER, git, gitRepo, handoff, helper, snapshot, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

const REPO_ROOT = path.dirname(path.dirname(HELPER));

function project(folders: string[]) {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  for (const f of folders) mkdirSync(path.join(root, f), { recursive: true });
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
  const run = (...args: string[]) => inProcess(["init", ...args, "--root", root], { env });
  /** The built bundle spawned: for the commands a printed note tells the user to run. */
  const spawned = (...args: string[]) => helper(["init", ...args, "--root", root], { env });
  return { root, run, spawned, env, skill: path.join(root, ".agents", "skills", "session-handoff") };
}

describe("init and the user's edits to the copied skill", () => {
  it("a re-run refuses to overwrite an edited file, changing nothing; --replace overwrites it", async () => {
    const p = project([".claude"]);
    expect((await p.run()).code).toBe(0);
    const file = path.join(p.skill, "SKILL.md");
    writeFileSync(file, `${readFileSync(file, "utf8")}\nMy own rule.\n`);
    const before = snapshot(p.root);
    const again = await p.run();
    expect(again.code, again.stdout).toBe(2);
    expect(again.stderr).toContain(".agents/skills/session-handoff/SKILL.md differ from what init copied");
    expect(again.stderr).toContain("init --replace");
    expect(snapshot(p.root)).toEqual(before);
    const replaced = p.spawned("--replace");
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(readFileSync(path.join(REPO_ROOT, "SKILL.md"), "utf8"));
    expect((await p.run()).code).toBe(0);
  });

  it("--undo keeps an edited file and says so; the rest of the copy goes", async () => {
    const p = project([".claude"]);
    expect((await p.run()).code).toBe(0);
    const file = path.join(p.skill, "SKILL.md");
    writeFileSync(file, "mine\n");
    const undo = await p.run("--undo");
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain("left .agents/skills/session-handoff/SKILL.md: you edited it since init copied it");
    expect(readFileSync(file, "utf8")).toBe("mine\n");
    expect(existsSync(path.join(p.skill, "scripts"))).toBe(false);
  });

  it("--undo names what stays of the copy and why, and a second --undo still does (tester)", async () => {
    const p = project([".claude"]);
    expect((await p.run()).code).toBe(0);
    writeFileSync(path.join(p.skill, "SKILL.md"), "mine\n");
    writeFileSync(path.join(p.skill, "notes.txt"), "my notes\n");
    const undo = await p.run("--undo");
    expect(undo.code, undo.stderr).toBe(0);
    // Before: "removed .agents/skills/session-handoff (30 files)" while the folder stayed, notes.txt unmentioned.
    expect(undo.stdout).toMatch(/^removed \d+ files of \.agents\/skills\/session-handoff$/m);
    expect(undo.stdout).not.toMatch(/removed \.agents\/skills\/session-handoff \(/);
    const left = "left .agents/skills/session-handoff/SKILL.md: you edited it since init copied it\n" +
      "left .agents/skills/session-handoff/notes.txt: init did not copy it\n";
    expect(undo.stdout).toContain(left);
    expect(existsSync(path.join(p.skill, ".init.json"))).toBe(true);
    // Before: "nothing of session-handoff's init to undo here".
    const again = await p.run("--undo");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(left);
    expect(again.stdout).not.toMatch(/removed|nothing of session-handoff/);
  });
});

describe("init --undo after publish and a commit", () => {
  const committed = async () => {
    const p = project([".claude"]);
    expect((await p.run()).code).toBe(0);
    const who = { GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" };
    const env = { ...p.env, ...who };
    expect((await inProcess(["write", "handoff", "--root", p.root, "--expected-current-sha256", "absent"], { input: handoff("goal"), env })).code).toBe(0);
    expect((await inProcess(["publish", "--root", p.root], { env })).code).toBe(0);
    return p;
  };

  it("the .gitattributes and .claude/settings.json init created go alike, though HEAD holds both", async () => {
    const p = await committed();
    git(p.root, "add", ".claude/settings.json");
    git(p.root, "commit", "-qm", "team settings");
    expect(git(p.root, "ls-files", ".gitattributes", ".claude/settings.json")).toBe(".claude/settings.json\n.gitattributes\n");
    const undo = await p.run("--undo");
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain("removed the merge driver's block from .gitattributes");
    expect(undo.stdout).toContain("claude-code: removed .claude/settings.json\n");
    // Old: .claude/settings.json deleted, .gitattributes left empty (" M").
    expect(git(p.root, "status", "--porcelain", "--", ".gitattributes", ".claude/settings.json"))
      .toBe(" D .claude/settings.json\n D .gitattributes\n");
    expect(undo.stderr).not.toContain("left empty");
  });

  it("files the user committed before init keep their own lines, and nothing of init's", async () => {
    const p = project([".claude"]);
    writeFileSync(path.join(p.root, ".gitattributes"), "*.png binary\n");
    writeFileSync(path.join(p.root, ".claude", "settings.json"), '{ "model": "opus" }\n');
    git(p.root, "add", ".gitattributes", ".claude/settings.json");
    git(p.root, "commit", "-qm", "the user's own");
    expect((await p.run()).code).toBe(0);
    expect((await p.run("--undo")).code).toBe(0);
    expect(git(p.root, "status", "--porcelain", "--", ".gitattributes", ".claude/settings.json")).toBe("");
  });
});

describe("uninstall after init", () => {
  it("the last agent's uninstall says the copy stays and init --undo removes it; undo then calls gone files absent", async () => {
    const p = project([".claude", ".codex"]);
    expect((await p.run()).code).toBe(0);
    const codex = await inProcess(["uninstall", "--agent", "codex", "--root", p.root], { env: p.env });
    expect(codex.stderr).not.toContain("init --undo");
    const last = await inProcess(["uninstall", "--agent", "claude-code", "--root", p.root], { env: p.env });
    expect(last.code, last.stderr).toBe(0);
    expect(last.stderr).toContain(".agents/skills/session-handoff and its links stay: init --undo removes them");
    const undo = p.spawned("--undo");
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain("claude-code: absent .claude/settings.json\n");
    expect(undo.stdout).not.toMatch(/unchanged/);
    expect(undo.stderr).not.toContain("init --undo");
    expect(existsSync(p.skill)).toBe(false);
  });
});

describe("init --agent codex and git", () => {
  it("keeps .codex/hooks.json (this clone's path) out of git by the clone's exclude; --undo gives the exclude back", async () => {
    const p = project([]);
    const exclude = path.join(p.root, ".git", "info", "exclude");
    const before = readFileSync(exclude);
    const r = await p.run("--agent", "codex");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("codex: added .codex/hooks.json to .git/info/exclude");
    const status = spawnSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: p.root, encoding: "utf8" });
    expect(status.stdout).toContain("AGENTS.md");
    expect(status.stdout).not.toContain(".codex/");
    expect(existsSync(path.join(p.root, ".gitignore"))).toBe(false);
    expect((await p.run("--undo", "--agent", "codex")).code).toBe(0);
    expect(readFileSync(exclude)).toEqual(before);
  });
});

describe("init --undo and the folders init made", () => {
  it("Cline: the .cline/ init made for its link goes; .clinerules/ (the user's) stays", async () => {
    const p = project([".clinerules"]);
    // An empty folder is one uninstall cannot tell from one install made: the user's holds a rule.
    writeFileSync(path.join(p.root, ".clinerules", "10-style.md"), "Prefer small functions.\n");
    expect((await p.run()).code).toBe(0);
    expect(existsSync(path.join(p.root, ".cline", "skills", "session-handoff"))).toBe(true);
    const undo = await p.run("--undo");
    expect(undo.code, undo.stderr).toBe(0);
    expect(existsSync(path.join(p.root, ".cline"))).toBe(false);
    expect(existsSync(path.join(p.root, ".agents"))).toBe(false);
    expect(existsSync(path.join(p.root, ".clinerules"))).toBe(true);
  });

  it("a .cline/ that was there before init stays", async () => {
    const p = project([".clinerules", ".cline"]);
    expect((await p.run()).code).toBe(0);
    expect((await p.run("--undo")).code).toBe(0);
    expect(existsSync(path.join(p.root, ".cline"))).toBe(true);
  });
});

describe("init --dry-run says what the real run does", () => {
  // The real run's words in the dry run's tense; `check:` and `commit:` are advice on the copy, printed once it exists.
  const past: Record<string, string> = { copied: "copy", linked: "link", created: "create", updated: "update", registered: "register", added: "add", removed: "remove" };
  const asDry = (out: string) => out.split("\n").filter((l) => !/^(check|commit): /.test(l)).map((l) => l.replace(/^((?:[\w-]+: )?)(copied|linked|created|updated|registered|added|removed) /, (_m, who: string, verb: string) => `${who}would ${past[verb]} `));

  it("for several agents sharing AGENTS.md and one merge driver, both ways", async () => {
    const p = project([".claude", ".codex", ".opencode", ".cursor"]);
    const dry = await p.run("--dry-run");
    expect(dry.code, dry.stderr).toBe(0);
    const real = await p.run();
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toContain("opencode: updated AGENTS.md");
    expect(real.stdout.match(/merge driver/g)).toHaveLength(2);
    expect(dry.stdout.split("\n")).toEqual(asDry(real.stdout));
    const undoDry = await p.run("--undo", "--dry-run");
    expect(undoDry.code, undoDry.stderr).toBe(0);
    const undo = await p.run("--undo");
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain("removed the merge driver session-handoff from .git/config");
    expect(undoDry.stdout.split("\n")).toEqual(asDry(undo.stdout));
  });

  it("--undo with an agent found by its folder but not installed lists the driver's removal once, as the real run", async () => {
    const p = project([".claude"]);
    expect((await p.run()).code).toBe(0);
    mkdirSync(path.join(p.root, ".gemini"));
    const undoDry = await p.run("--undo", "--dry-run");
    expect(undoDry.code, undoDry.stderr).toBe(0);
    const undo = await p.run("--undo");
    expect(undo.code, undo.stderr).toBe(0);
    expect(undo.stdout).toContain("gemini: absent GEMINI.md");
    expect(undoDry.stdout.match(/would remove the merge driver/g)).toHaveLength(2);
    expect(undoDry.stdout.split("\n")).toEqual(asDry(undo.stdout));
  });
});

describe("init's commit: line", () => {
  const COMMIT = "commit: the skill's copy and the team files above (docs/install.md); each teammate runs `init` once in their own clone too: what it writes to .git/config is not committed\n";
  it("only when this run changed a file git would commit: not on a second run, nor in a teammate's clone", async () => {
    const p = project([".claude", ".codex"]);
    expect((await p.run()).stdout).toContain(COMMIT);
    const again = await p.run();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).not.toContain(COMMIT);
    git(p.root, "add", "-A");
    git(p.root, "commit", "-qm", "the skill and the team files");
    // A teammate's clone: install writes .codex/hooks.json (this clone's path, kept out of git) and the driver's config.
    const mate = path.join(tempDir("sh-mate-"), "mate");
    git(path.dirname(mate), "clone", "-q", p.root, mate);
    const theirs = await inProcess(["init", "--root", mate], { env: p.env });
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(theirs.stdout).toContain("codex: created .codex/hooks.json");
    expect(theirs.stdout).not.toContain(COMMIT);
    expect(git(mate, "status", "--porcelain")).toBe("");
    // A team file init changes again is to be committed again.
    writeFileSync(path.join(mate, ".claude", "settings.json"), "{}\n");
    git(mate, "commit", "-qam", "settings emptied");
    expect((await inProcess(["init", "--root", mate], { env: p.env })).stdout).toContain(COMMIT);
  });
});
