// The first resume after the first save (docs/decisions/first-resume.md): installing writes our
// merge-driver block into .gitattributes, `publish` commits it with the memory, and a plan may
// name a key file the work will create. None of these is drift; their neighbours still are.
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, handoff, helper, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";

// A minimal handoff naming one key file, its anchors left for `write` to fill.
const doc = (keyFile: string) => handoff("Build the parser.").replace("## Key files\n- none", `## Key files\n- ${keyFile} — the parser`).replace(/^- Date: .*\n/m, "");

// The verbs run in this process (inProcess); saveWith(..., true) writes through the built helper.
function project() {
  const root = gitRepo();
  const home = tempDir("sh-home-");
  const env = { HOME: home, GIT_AUTHOR_NAME: "Test", GIT_AUTHOR_EMAIL: "test@example.com", GIT_COMMITTER_NAME: "Test", GIT_COMMITTER_EMAIL: "test@example.com" };
  const run = (...args: string[]) => inProcess([...args, "--root", root], { env });
  const saveWith = async (keyFile: string, spawn = false) => {
    const args = ["write", "handoff", "--root", root, "--expected-current-sha256", "absent"];
    const r = spawn ? helper(args, { input: doc(keyFile), env }) : await inProcess(args, { input: doc(keyFile), env });
    expect(r.code, r.stderr).toBe(0);
  };
  const drift = async () => JSON.parse((await run("drift", "--json")).stdout) as { verdict: string; summary: string; ahead: number; memoryOnlyCommits: number; missingKeyFiles: string[]; keyFilesNotYetCreated: string[] };
  return { root, run, saveWith, drift };
}

describe("first resume after the first save", () => {
  it("install, then a save whose key file the plan will create: fresh, the file listed as not created yet (and in the brief)", async () => {
    const p = project();
    expect((await p.run("install", "--agent", "claude-code")).code).toBe(0);
    await p.saveWith("src/parser.ts", true);
    const d = await p.drift();
    expect(d).toMatchObject({ verdict: "fresh", missingKeyFiles: [], keyFilesNotYetCreated: ["src/parser.ts"] });
    expect(d.summary).toContain('key files not created yet (absent at the save too): "src/parser.ts"');
    expect((await p.run("brief")).stdout).toMatch(/^Drift & lessons: fresh: .*key files not created yet \(absent at the save too\): "src\/parser\.ts"/m);
    expect((await p.run("drift")).stdout).toContain('key files not created yet (absent at the save too): "src/parser.ts"\n');
  });

  it("a key file that existed at the save (committed, or new and dirty) and is gone now: drifted", async () => {
    const p = project();
    mkdirSync(path.join(p.root, "src"));
    writeFileSync(path.join(p.root, "src", "parser.ts"), "export {};\n");
    await p.saveWith("src/parser.ts");
    rmSync(path.join(p.root, "src"), { recursive: true });
    expect(await p.drift()).toMatchObject({ verdict: "drifted", missingKeyFiles: ["src/parser.ts"], keyFilesNotYetCreated: [] });
  });

  it("install, save, publish (memory and our .gitattributes block in one commit): fresh, the commit not counted", async () => {
    const p = project();
    expect((await p.run("install", "--agent", "claude-code")).code).toBe(0);
    await p.saveWith("README.md");
    const pub = await p.run("publish");
    expect(pub.code, pub.stderr).toBe(0);
    expect(git(p.root, "show", "--name-only", "--format=", "HEAD").split("\n").filter(Boolean)).toContain(".gitattributes");
    expect(await p.drift()).toMatchObject({ verdict: "fresh", ahead: 0, memoryOnlyCommits: 1 });
  });

  it("the same commit with a line of the user's in .gitattributes: drifted (1 commit ahead)", async () => {
    const p = project();
    expect((await p.run("install", "--agent", "claude-code")).code).toBe(0);
    await p.saveWith("README.md");
    appendFileSync(path.join(p.root, ".gitattributes"), "*.png binary\n");
    git(p.root, "add", ".gitattributes", ".ai");
    git(p.root, "commit", "-qm", "memory and attributes");
    expect(await p.drift()).toMatchObject({ verdict: "drifted", ahead: 1, memoryOnlyCommits: 0 });
  });

  it("a commit of the user's .gitattributes line, then publish adding our block: 1 commit ahead, publish's not counted", async () => {
    const p = project();
    await p.saveWith("README.md");
    writeFileSync(path.join(p.root, ".gitattributes"), "*.png binary\n");
    git(p.root, "add", ".gitattributes");
    git(p.root, "commit", "-qm", "attributes");
    expect((await p.run("publish")).code).toBe(0);
    expect(git(p.root, "show", "--name-only", "--format=", "HEAD").split("\n")).toContain(".gitattributes");
    expect(await p.drift()).toMatchObject({ verdict: "drifted", ahead: 1, memoryOnlyCommits: 1 });
  });

  it("folder key files (lib/, lib) that held files at the save and are deleted since: missing, not 'not created yet'", async () => {
    const p = project();
    mkdirSync(path.join(p.root, "lib"));
    mkdirSync(path.join(p.root, "lib2"));
    writeFileSync(path.join(p.root, "lib", "a.ts"), "a\n");
    writeFileSync(path.join(p.root, "lib2", "c"), "c\n");
    writeFileSync(path.join(p.root, "b.ts"), "b\n");
    git(p.root, "add", "lib", "lib2", "b.ts");
    git(p.root, "commit", "-qm", "lib");
    await p.saveWith("lib/ — the library\n- lib2 — the other\n- b.ts — b\n- new.ts");
    git(p.root, "rm", "-rq", "lib", "lib2", "b.ts");
    git(p.root, "commit", "-qm", "gone");
    const d = await p.drift();
    expect(d.missingKeyFiles.sort()).toEqual(["b.ts", "lib", "lib2"]);
    expect(d.keyFilesNotYetCreated).toEqual(["new.ts"]);
    expect((await p.run("drift")).stdout).toContain('key files not created yet (absent at the save too): "new.ts"\n');
  });

  it("a dirty list cut at 50 (… and 11 more): an untracked key file beyond it, deleted since, is missing; 61 then, 60 now", async () => {
    const p = project();
    for (let i = 10; i <= 70; i++) writeFileSync(path.join(p.root, `u${i}.txt`), `${i}\n`);
    await p.saveWith("u70.txt");
    expect(readFileSync(path.join(p.root, ".ai", "memory", "HANDOFF.md"), "utf8")).toMatch(/^- Dirty files: .*\u2026 and 11 more$/m);
    rmSync(path.join(p.root, "u70.txt"));
    const d = await p.drift();
    expect(d).toMatchObject({ verdict: "drifted", missingKeyFiles: ["u70.txt"], keyFilesNotYetCreated: [] });
    expect(d.summary).toContain("dirty files: 61 then, 60 now");
    expect((await p.run("drift")).stdout).toContain("dirty files: 61 then, 60 now (changed)\n");
  });
});
