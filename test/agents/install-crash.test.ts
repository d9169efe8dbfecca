// What an interrupted install or uninstall leaves beside an agent file, and its repair by the
// next install or uninstall (store/install-repair.ts; ruling 11 publishes agent files with
// write's claim-and-link protocol, outside the memory dir, where no lock exists and
// `recover` never looks). Real processes, killed at each phase through the failpoint seam
//, then run again.
import { copyHelper } from "../helpers.ts";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { HELPER, gitRepo, tempDir } from "../helpers.ts";

/** The user's settings, deliberately not in JSON.stringify's layout: exact bytes must survive. */
const ORIGINAL = '{"model": "opus",\n "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}]}}\n';
const PRIVATE = /^\.settings\.json\.(tmp|claim)-\d+-[0-9a-f]{8}$/;

interface Env {
  root: string;
  dir: string;
  file: string;
  run(args: string[], extra?: Record<string, string>): { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };
}

/** A project with the skill inside it (so hook commands, hence installed bytes, do not depend on the folder). */
function setup(withFile = true): Env {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  const skill = path.join(root, ".claude", "skills", "session-handoff");
  mkdirSync(path.join(skill, "scripts"), { recursive: true });
  const helper = path.join(skill, "scripts", "memory_io.mjs");
  copyHelper(helper);
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") } as Record<string, string>;
  for (const k of ["SESSION_HANDOFF_PAUSE", "SESSION_HANDOFF_DISABLE", "MEMORY_IO_FAILPOINT", "CLAUDE_PROJECT_DIR"]) delete env[k];
  const dir = path.join(root, ".claude");
  const file = path.join(dir, "settings.json");
  if (withFile) writeFileSync(file, ORIGINAL);
  return {
    root,
    dir,
    file,
    run(args, extra = {}) {
      const r = spawnSync(process.execPath, [helper, ...args, ...(args.includes("--global") ? [] : ["--root", root])], { cwd: root, env: { ...env, ...extra }, encoding: "utf8", timeout: 60_000 });
      return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
    },
  };
}

const privates = (e: Env) => readdirSync(e.dir).filter((n) => PRIVATE.test(n)).sort();
/** Bytes of every regular file in .claude/ (not the skill folder), by name. */
function contents(e: Env): Map<string, string> {
  const out = new Map<string, string>();
  for (const n of readdirSync(e.dir)) {
    const st = lstatSync(path.join(e.dir, n));
    out.set(n, st.isSymbolicLink() ? `link -> ${readlinkSync(path.join(e.dir, n))}` : st.isFile() ? readFileSync(path.join(e.dir, n), "utf8") : "dir");
  }
  return out;
}

const clean = new Map<boolean, string>();
/** What a clean install writes over ORIGINAL (or over nothing); call inside a test. */
function installedBytes(withFile = true): string {
  if (!clean.has(withFile)) {
    const e = setup(withFile);
    expect(e.run(["install", "--agent", "claude-code"]).code).toBe(0);
    clean.set(withFile, readFileSync(e.file, "utf8"));
  }
  return clean.get(withFile)!;
}

/** A pid that is certainly not running: a child that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "0"]);
  expect(r.pid).toBeGreaterThan(0);
  return r.pid!;
}

const EXISTING_PHASES = ["read-opened", "before-claim", "after-claim", "before-publication", "after-publication"] as const;
// What each crash leaves beside the file, and the one line per repair the next run prints.
const LEFT: Record<(typeof EXISTING_PHASES)[number], { file: "original" | "installed" | "none"; privates: string[]; repaired: RegExp[] }> = {
  "read-opened": { file: "original", privates: [], repaired: [] },
  "before-claim": { file: "original", privates: [], repaired: [] },
  "after-claim": { file: "none", privates: ["claim"], repaired: [/: put its previous version back \(it had been set aside as \.settings\.json\.claim-/] },
  "before-publication": {
    file: "none",
    privates: ["claim", "tmp"],
    repaired: [/: put its previous version back/, /: removed an unfinished new version \(\.settings\.json\.tmp-/],
  },
  "after-publication": {
    file: "installed",
    privates: ["claim", "tmp"],
    repaired: [/: the new version was in place; removed the previous one set aside as \.settings\.json\.claim-/, /: removed \.settings\.json\.tmp-\d+-[0-9a-f]{8}, a second name of the file as it is now/],
  },
};

describe("install killed at each phase of publishing .claude/settings.json, then run again", () => {
  it.each(EXISTING_PHASES)("crash at %s: the user's bytes survive; install repairs, finishes, leaves nothing behind; uninstall restores", (phase) => {
    const installed = installedBytes();
    const e = setup();
    const crashed = e.run(["install", "--agent", "claude-code"], { MEMORY_IO_FAILPOINT: `${phase}:crash` });
    expect(crashed.signal, crashed.stderr).toBe("SIGKILL");
    const left = LEFT[phase];
    expect(privates(e).map((n) => PRIVATE.exec(n)![1])).toEqual(left.privates);
    // The user's original bytes are never lost: the file, or its claim, holds them.
    const held = [...contents(e).values()];
    expect(held).toContain(ORIGINAL);
    if (left.file === "none") expect(existsSync(e.file)).toBe(false);
    else expect(readFileSync(e.file, "utf8")).toBe(left.file === "original" ? ORIGINAL : installed);

    const again = e.run(["install", "--agent", "claude-code"]);
    expect(again.code, again.stderr).toBe(0);
    const lines = again.stderr.split("\n").filter(Boolean);
    expect(lines).toHaveLength(left.repaired.length);
    left.repaired.forEach((re, i) => expect(lines[i]).toMatch(new RegExp(`^install: repaired an interrupted edit of \\.claude/settings\\.json${re.source}`)));
    expect(readFileSync(e.file, "utf8")).toBe(installed);
    expect(lstatSync(e.file).nlink).toBe(1);
    expect(privates(e)).toEqual([]);

    const un = e.run(["uninstall", "--agent", "claude-code"]);
    expect(un.code, un.stderr).toBe(0);
    const after = JSON.parse(readFileSync(e.file, "utf8"));
    expect(after).toEqual(JSON.parse(ORIGINAL));
    if (phase !== "after-publication") expect(readFileSync(e.file, "utf8")).toBe(ORIGINAL);
  });

  it.each(EXISTING_PHASES)("crash at %s, then uninstall: repairs first, and the file is the user's again", (phase) => {
    const e = setup();
    e.run(["install", "--agent", "claude-code"], { MEMORY_IO_FAILPOINT: `${phase}:crash` });
    const un = e.run(["uninstall", "--agent", "claude-code"]);
    expect(un.code, un.stderr).toBe(0);
    const lines = un.stderr.split("\n").filter(Boolean);
    expect(lines).toHaveLength(LEFT[phase].repaired.length);
    for (const l of lines) expect(l).toMatch(/^uninstall: repaired an interrupted edit of \.claude\/settings\.json: /);
    expect(JSON.parse(readFileSync(e.file, "utf8"))).toEqual(JSON.parse(ORIGINAL));
    if (phase !== "after-publication") expect(readFileSync(e.file, "utf8")).toBe(ORIGINAL);
    expect(privates(e)).toEqual([]);
  });
});

describe("install killed while creating .claude/settings.json (no prior file)", () => {
  it.each(["before-publication", "after-publication"])("crash at %s: the next install drops the temp and the file is complete", (phase) => {
    const installed = installedBytes(false);
    const e = setup(false);
    mkdirSync(e.dir, { recursive: true });
    const crashed = e.run(["install", "--agent", "claude-code"], { MEMORY_IO_FAILPOINT: `${phase}:crash` });
    expect(crashed.signal).toBe("SIGKILL");
    expect(privates(e)).toHaveLength(1);
    const again = e.run(["install", "--agent", "claude-code"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/^install: repaired an interrupted edit of \.claude\/settings\.json: removed /);
    expect(readFileSync(e.file, "utf8")).toBe(installed);
    expect(lstatSync(e.file).nlink).toBe(1);
    expect(privates(e)).toEqual([]);
  });
});

describe("uninstall killed while removing a file install created (Cline's rule)", () => {
  it("crash after the claim: the next uninstall puts it back, then removes it; the project is as before", () => {
    const e = setup(false);
    expect(e.run(["install", "--agent", "cline"]).code).toBe(0);
    const rules = path.join(e.root, ".clinerules");
    const crashed = e.run(["uninstall", "--agent", "cline"], { MEMORY_IO_FAILPOINT: "after-claim:crash" });
    expect(crashed.signal).toBe("SIGKILL");
    const claims = readdirSync(rules).filter((n) => /^\.00-session-handoff\.md\.claim-/.test(n));
    expect(claims).toHaveLength(1);
    expect(existsSync(path.join(rules, "00-session-handoff.md"))).toBe(false);
    const un = e.run(["uninstall", "--agent", "cline"]);
    expect(un.code, un.stderr).toBe(0);
    expect(un.stderr).toMatch(/^uninstall: repaired an interrupted edit of \.clinerules\/00-session-handoff\.md: put its previous version back/);
    expect(existsSync(rules)).toBe(false);
  });
});

describe("a repair killed mid-way is finished by the next run", () => {
  it.each(["recover-after-restore", "recover-after-claim-drop"])("install crashed at before-publication, its repair crashed at %s", (phase) => {
    const installed = installedBytes();
    const e = setup();
    e.run(["install", "--agent", "claude-code"], { MEMORY_IO_FAILPOINT: "before-publication:crash" });
    const repairCrash = e.run(["install", "--agent", "claude-code"], { MEMORY_IO_FAILPOINT: `${phase}:crash` });
    expect(repairCrash.signal).toBe("SIGKILL");
    expect(readFileSync(e.file, "utf8")).toBe(ORIGINAL);
    const again = e.run(["install", "--agent", "claude-code"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/repaired an interrupted edit/);
    expect(readFileSync(e.file, "utf8")).toBe(installed);
    expect(lstatSync(e.file).nlink).toBe(1);
    expect(privates(e)).toEqual([]);
  });
});

describe("what the repair leaves alone", () => {
  it("entries of a live process (an edit in progress) are not touched, a dead one's beside them are", () => {
    const e = setup();
    // The test runner itself is alive for the whole test.
    const tmp = path.join(e.dir, `.settings.json.tmp-${process.pid}-0000abcd`);
    const claim = path.join(e.dir, `.settings.json.claim-${process.pid}-0000abcd`);
    const dead = path.join(e.dir, `.settings.json.tmp-${deadPid()}-0000dead`);
    writeFileSync(tmp, "{}\n");
    writeFileSync(claim, '{"model": "older"}\n');
    writeFileSync(dead, "{}\n");
    const r = e.run(["install", "--agent", "claude-code"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`install: repaired an interrupted edit of .claude/settings.json: removed an unfinished new version (${path.basename(dead)})\n`);
    expect(existsSync(dead)).toBe(false);
    expect(readFileSync(tmp, "utf8")).toBe("{}\n");
    expect(readFileSync(claim, "utf8")).toBe('{"model": "older"}\n');
  });

  it("a link named like a claim is never followed: its target keeps its bytes, the link stays, stderr says so", () => {
    const e = setup(false);
    mkdirSync(e.dir, { recursive: true });
    const secret = path.join(tempDir(), "elsewhere.json");
    writeFileSync(secret, '{"secret": true}\n');
    const planted = path.join(e.dir, `.settings.json.claim-${deadPid()}-0000abcd`);
    symlinkSync(secret, planted);
    const r = e.run(["install", "--agent", "claude-code"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`install: left ${JSON.stringify(planted)} alone`);
    expect(r.stderr).toContain("is a link");
    expect(r.stderr).not.toContain("repaired");
    expect(lstatSync(planted).isSymbolicLink()).toBe(true);
    expect(readFileSync(secret, "utf8")).toBe('{"secret": true}\n');
    expect(readFileSync(e.file, "utf8")).not.toContain("secret");
    expect(lstatSync(e.file).isSymbolicLink()).toBe(false);
  });

  it("a claim hard-linked elsewhere is left alone and reported", () => {
    const e = setup();
    const other = path.join(e.root, "mine.json");
    writeFileSync(other, "{}\n");
    const planted = path.join(e.dir, `.settings.json.tmp-${deadPid()}-0000abcd`);
    // A hard link of the user's own file, under our temp name.
    spawnSync("ln", [other, planted]);
    const r = e.run(["install", "--agent", "claude-code"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/left .* alone: .* has 2 hard links/);
    expect(existsSync(planted)).toBe(true);
    expect(readFileSync(other, "utf8")).toBe("{}\n");
  });
});

describe("refusals: only the user can choose, and nothing changes", () => {
  it.each(["install", "uninstall"])("two set-aside versions and no file: %s refuses, naming both", (verb) => {
    const e = setup(false);
    mkdirSync(e.dir, { recursive: true });
    const a = path.join(e.dir, `.settings.json.claim-${deadPid()}-0000aaaa`);
    const b = path.join(e.dir, `.settings.json.claim-${deadPid()}-0000bbbb`);
    writeFileSync(a, ORIGINAL);
    writeFileSync(b, '{"model": "sonnet"}\n');
    const before = contents(e);
    const r = e.run([verb, "--agent", "claude-code"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^memory operation refused: .*settings\.json is missing and interrupted edits left 2 earlier versions of it/);
    expect(r.stderr).toContain(JSON.stringify(a));
    expect(r.stderr).toContain(JSON.stringify(b));
    expect(r.stderr).toContain('renaming it to "settings.json"');
    expect(contents(e)).toEqual(before);
  });

  it("a set-aside version beside a file written since by someone else: refused, both kept", () => {
    const e = setup();
    writeFileSync(e.file, '{"model": "written by the harness"}\n');
    const claim = path.join(e.dir, `.settings.json.claim-${deadPid()}-0000abcd`);
    writeFileSync(claim, ORIGINAL);
    const before = contents(e);
    const r = e.run(["install", "--agent", "claude-code"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${JSON.stringify(claim)} holds the version of ${e.file} that an interrupted edit set aside`);
    expect(contents(e)).toEqual(before);
  });

  it("a set-aside copy with the file's very bytes is dropped (nothing is lost)", () => {
    const e = setup();
    const claim = path.join(e.dir, `.settings.json.claim-${deadPid()}-0000abcd`);
    writeFileSync(claim, ORIGINAL);
    const r = e.run(["install", "--agent", "claude-code"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/repaired an interrupted edit of \.claude\/settings\.json: removed \.settings\.json\.claim-\d+-0000abcd, a copy of the file as it is now/);
    expect(privates(e)).toEqual([]);
  });
});

describe("--dry-run and doctor report, and change nothing", () => {
  it("after a crash at after-claim: dry-run says what the repair would do; doctor reports it (ok false), then ok after install", () => {
    const e = setup();
    e.run(["install", "--agent", "claude-code"], { MEMORY_IO_FAILPOINT: "after-claim:crash" });
    const before = contents(e);
    const dry = e.run(["install", "--agent", "claude-code", "--dry-run"]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toMatch(/^install: found an interrupted edit of \.claude\/settings\.json; without --dry-run: put its previous version back/);
    // Seen through the repair: the file would be updated, not created.
    expect(dry.stdout).toContain("would update .claude/settings.json");
    expect(contents(e)).toEqual(before);

    const doc = JSON.parse(e.run(["doctor", "--json"]).stdout);
    expect(doc.ok).toBe(false);
    expect(doc.leftovers).toEqual([{ file: ".claude/settings.json", found: [expect.stringMatching(/^\.claude\/\.settings\.json\.claim-\d+-[0-9a-f]{8}$/)] }]);
    expect(doc.problems.map((p: { what: string }) => p.what).join("\n")).toMatch(/\.claude\/settings\.json: an interrupted install or uninstall left private files beside it: \.settings\.json\.claim-\S+ is its previous version, with no file in its place/);
    expect(e.run(["doctor"]).stdout).toContain("agent files: leftovers of an interrupted install or uninstall beside .claude/settings.json");
    expect(contents(e)).toEqual(before);

    expect(e.run(["install", "--agent", "claude-code"]).code).toBe(0);
    const after = JSON.parse(e.run(["doctor", "--json"]).stdout);
    expect(after.leftovers).toEqual([]);
    expect(e.run(["doctor"]).stdout).toContain("agent files: no leftovers of an interrupted install or uninstall");
  });

  it("doctor looks at the per-user files too (~/.gemini/settings.json)", () => {
    const e = setup(false);
    const r = e.run(["install", "--agent", "gemini", "--global"], { MEMORY_IO_FAILPOINT: "before-publication:crash" });
    expect(r.signal).toBe("SIGKILL");
    const doc = JSON.parse(e.run(["doctor", "--json"]).stdout);
    expect(doc.ok).toBe(false);
    expect(doc.leftovers).toEqual([{ file: "~/.gemini/GEMINI.md", found: [expect.stringMatching(/^~\/\.gemini\/\.GEMINI\.md\.tmp-/)] }]);
    const again = e.run(["install", "--agent", "gemini", "--global"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/^install: repaired an interrupted edit of ~\/\.gemini\/GEMINI\.md: removed an unfinished new version/);
    expect(JSON.parse(e.run(["doctor", "--json"]).stdout).leftovers).toEqual([]);
  });
});
