// Dirty files anchored by content (docs/design.md#verdicts-and-the-brief): `anchors` prints
// each dirty file's blob id as `git add` would store it (line ends converted), `write` keeps it fresh
// in anchors it keeps, drift tells a dirty file edited since the save from one untouched.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, helper, HELPER, tempDir } from "../helpers.ts";
import { inProcess } from "../in-process.ts";
import { DAY, ENV, commit, git, newRepo } from "./repo.ts";

const NOW = Date.now();
const env = { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };

function doc(anchors: string): string {
  return [
    "<!-- memory-schema: v1 -->",
    "# Session Handoff",
    "",
    "## Current goal",
    "Tune the parser.",
    "",
    "## Plan",
    "- [~] tune",
    "",
    "## Decisions",
    "- [user-directed] keep the API",
    "",
    "## Failed approaches",
    "- none",
    "",
    "## Open questions",
    "- none",
    "",
    "## Next steps",
    "- tune",
    "",
    "## Key files",
    "- a.txt — tuned",
    "- b.txt — untouched",
    "",
    "## Environment anchors",
    anchors,
  ].join("\n");
}

// The verbs run in this process (inProcess); spawned: one plain save, and anchors under a preload that counts opens.
describe("dirty hashes", () => {
  it("anchors prints git's blob ids of dirty files, line ends converted as git stores them, deleted ones too", async () => {
    const root = newRepo(NOW - DAY, { "a.txt": "a\n", "b.txt": "b\n", "gone.txt": "g\n", ".gitattributes": "*.txt text eol=crlf\n" });
    writeFileSync(path.join(root, "a.txt"), "a changed\r\n");
    writeFileSync(path.join(root, "new file.txt"), "new\n");
    unlinkSync(path.join(root, "gone.txt"));
    const r = await inProcess(["anchors", "--root", root], { env });
    expect(r.code, r.stderr).toBe(0);
    const line = r.stdout.split("\n").find((l) => l.startsWith("- Dirty hashes: "))!;
    const id = (p: string) => execFileSync("git", ["hash-object", "--", p], { cwd: root, env: ENV, encoding: "utf8" }).trim();
    const raw = execFileSync("git", ["hash-object", "--no-filters", "--", "a.txt"], { cwd: root, env: ENV, encoding: "utf8" }).trim();
    expect(id("a.txt")).not.toBe(raw);
    expect(line).toBe(`- Dirty hashes: a.txt ${id("a.txt")}, gone.txt deleted, new file.txt ${id("new file.txt")}`);
    // What anchors prints, validate accepts.
    const v = await inProcess(["validate", "handoff", "--stdin"], { input: doc(r.stdout), env });
    expect(v.stdout + v.stderr).not.toContain("anchor-line");
  });

  // The helper's own opens of a path are counted by a preload around node:fs (reads still real): git's are its own.
  it("anchors reads each dirty file once, to hash it and to look for a CR alike", async () => {
    const root = newRepo(NOW - DAY, { "a.txt": "a\n", "b.txt": "b\n" });
    writeFileSync(path.join(root, "a.txt"), "a changed\r\n");
    writeFileSync(path.join(root, "b.txt"), "b changed\n");
    const dir = tempDir("sh-opens-");
    const preload = path.join(dir, "count.cjs");
    const out = path.join(dir, "opens.json");
    writeFileSync(preload, `const fs = require("node:fs"); const n = {}; let depth = 0;
for (const f of ["readFileSync", "openSync"]) { const real = fs[f]; fs[f] = function (p, ...rest) {
  if (depth === 0 && typeof p === "string") n[p] = (n[p] || 0) + 1;
  depth++; try { return real.call(this, p, ...rest); } finally { depth--; } }; }
process.on("exit", () => { const s = JSON.stringify(n); depth++; fs.writeFileSync(${JSON.stringify(out)}, s); });\n`);
    const r = spawnSync(process.execPath, ["--require", preload, HELPER, "anchors", "--root", root], { env: cleanEnv(env), encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^- Dirty hashes: a\.txt [0-9a-f]{40}, b\.txt [0-9a-f]{40}$/m);
    const opens = JSON.parse(readFileSync(out, "utf8")) as Record<string, number>;
    expect([opens[path.join(root, "a.txt")], opens[path.join(root, "b.txt")]]).toEqual([1, 1]);
  });

  it("drift: a dirty file edited after the save is changed, one untouched (or still deleted) is unchanged since the save", async () => {
    const root = newRepo(NOW - DAY, { "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" });
    writeFileSync(path.join(root, "a.txt"), "a dirty\n");
    writeFileSync(path.join(root, "b.txt"), "b dirty\n");
    unlinkSync(path.join(root, "c.txt"));
    const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: doc(""), env });
    expect(w.code, w.stderr).toBe(0);
    expect(readFileSync(path.join(root, ".ai/memory/HANDOFF.md"), "utf8")).toMatch(/^- Dirty hashes: a\.txt [0-9a-f]{40}, b\.txt [0-9a-f]{40}, c\.txt deleted$/m);
    const before = JSON.parse((await inProcess(["drift", "--root", root, "--json"], { env })).stdout);
    expect(before.dirtyFates).toEqual([
      { path: "a.txt", fate: "unchanged" }, { path: "b.txt", fate: "unchanged" }, { path: "c.txt", fate: "unchanged" },
    ]);
    expect(before.changedKeyFiles).toEqual([]);
    expect(before.summary).toContain('dirty at the save, still dirty and unchanged: "a.txt", "b.txt", "c.txt"');
    writeFileSync(path.join(root, "a.txt"), "a dirty, then edited again\n");
    const after = JSON.parse((await inProcess(["drift", "--root", root, "--json"], { env })).stdout);
    expect(after.dirtyFates).toEqual([
      { path: "a.txt", fate: "changed" }, { path: "b.txt", fate: "unchanged" }, { path: "c.txt", fate: "unchanged" },
    ]);
    // Key files changed are the commits' diff since the save; an uncommitted edit is a fate, not a changed key file.
    expect(after.changedKeyFiles).toEqual([]);
    expect(after.summary).toContain('dirty at the save, still dirty and changed since: "a.txt"');
  });

  it("write refreshes the line in anchors it keeps whose Branch and HEAD are current, not in stale ones", async () => {
    const root = newRepo(NOW - DAY, { "a.txt": "a\n", "b.txt": "b\n" });
    const head = git(root, ["rev-parse", "HEAD"]);
    writeFileSync(path.join(root, "a.txt"), "a dirty\n");
    const date = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    const kept = `- Branch: main\n- HEAD: ${head}\n- Dirty files: a.txt\n- Date: ${date}\n`;
    expect((await inProcess(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: doc(kept), env })).code).toBe(0);
    const id = execFileSync("git", ["hash-object", "--no-filters", "a.txt"], { cwd: root, env: ENV, encoding: "utf8" }).trim();
    expect(readFileSync(path.join(root, ".ai/memory/HANDOFF.md"), "utf8")).toContain(`- Dirty files: a.txt\n- Dirty hashes: a.txt ${id}\n- Date: ${date}`);
    // Dirty files pasted from another clone at the same HEAD: this clone's own list replaces them.
    writeFileSync(path.join(root, "a.txt"), "a\n");
    const pasted = `- Branch: main\n- HEAD: ${head}\n- Dirty files: b.txt, .claude/\n- Date: ${date}\n`;
    const token = execFileSync("sha256sum", [path.join(root, ".ai/memory/HANDOFF.md")], { encoding: "utf8" }).slice(0, 64);
    const w = await inProcess(["write", "handoff", "--root", root, "--expected-current-sha256", token], { input: doc(pasted), env });
    expect(w.code, w.stderr).toBe(0);
    expect(w.stderr).toContain("the - Dirty files: anchor was not what is dirty now; set it to none");
    expect(readFileSync(path.join(root, ".ai/memory/HANDOFF.md"), "utf8")).toContain(`- HEAD: ${head}\n- Dirty files: none\n- Date: ${date}`);
    const brief = await inProcess(["brief", "--root", root], { env });
    expect(brief.stdout).not.toContain("reverted");
    // Anchors of another HEAD are kept as written: no hash of today's bytes is put in them.
    const root2 = newRepo(NOW - DAY, { "a.txt": "a\n" });
    const old = git(root2, ["rev-parse", "HEAD"]);
    commit(root2, "later", NOW - DAY / 2, { "c.txt": "c\n" });
    writeFileSync(path.join(root2, "a.txt"), "dirty\n");
    const stale = `- Branch: main\n- HEAD: ${old}\n- Dirty files: a.txt\n- Date: ${date}\n`;
    expect((await inProcess(["write", "handoff", "--root", root2, "--expected-current-sha256", "absent"], { input: doc(stale), env })).code).toBe(0);
    expect(readFileSync(path.join(root2, ".ai/memory/HANDOFF.md"), "utf8")).not.toContain("Dirty hashes");
  });

  it("an anchor line with a label this helper does not know is a finding, not an error", async () => {
    const root = newRepo(NOW - DAY);
    const head = git(root, ["rev-parse", "HEAD"]);
    const date = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    const text = doc(`- Branch: main\n- HEAD: ${head}\n- Dirty files: none\n- Date: ${date}\n- Shiny future: 42\n`);
    const v = await inProcess(["validate", "handoff", "--stdin", "--json"], { input: text, env });
    expect(v.code, v.stdout).toBe(0);
    expect(v.stdout).toContain("anchor-unknown");
  });
});

describe("untracked files in a new folder", () => {
  // The newcomer's case: a new test file, a key file, in a folder git had never seen.
  const KEY = "test/helpWidth.test.js";
  const keyDoc = () => doc("").replace("- b.txt — untouched", `- ${KEY} — the new test`);
  const drift = async (root: string) => JSON.parse((await inProcess(["drift", "--root", root, "--json"], { env })).stdout);
  async function savedWithNewFolder() {
    const root = newRepo(NOW - DAY, { "a.txt": "a\n", "b.txt": "b\n" });
    mkdirSync(path.join(root, "test"));
    writeFileSync(path.join(root, KEY), "it('wraps', () => {});\n");
    writeFileSync(path.join(root, "a.txt"), "a dirty\n");
    const w = await inProcess(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: keyDoc(), env });
    expect(w.code, w.stderr).toBe(0);
    const id = execFileSync("git", ["hash-object", "--", KEY], { cwd: root, env: ENV, encoding: "utf8" }).trim();
    const text = readFileSync(path.join(root, ".ai/memory/HANDOFF.md"), "utf8");
    expect(text).toContain(`- Dirty files: a.txt, ${KEY}\n`);
    expect(text).toContain(`, ${KEY} ${id}\n`);
    return root;
  }

  it("each is followed by its own path and hash: rewritten after the save, it is changed since", async () => {
    const root = await savedWithNewFolder();
    expect((await drift(root)).dirtyFates).toContainEqual({ path: KEY, fate: "unchanged" });
    writeFileSync(path.join(root, KEY), "it('wraps at 80', () => {});\n");
    expect((await drift(root)).dirtyFates).toContainEqual({ path: KEY, fate: "changed" });
    const brief = await inProcess(["brief", "--root", root], { env });
    expect(brief.stdout).toContain(`dirty at the save, still dirty and changed since: "${KEY}"`);
    expect(brief.stdout).not.toContain('"test/"');
  });

  it("committed exactly as saved, like a tracked file, it is the save's own work: no key file changed", async () => {
    const root = await savedWithNewFolder();
    git(root, ["add", "a.txt", KEY]);
    git(root, ["commit", "-qm", "the saved work"], NOW);
    const d = await drift(root);
    expect(d.changedKeyFiles).toEqual([]);
    expect(d.aheadAsSaved).toBe(true);
    expect(d.verdict).toBe("fresh");
    expect((await inProcess(["brief", "--root", root], { env })).stdout).not.toContain("key files changed");
  });

  it("a new folder of more than 20 files (build output) stays one entry; an older handoff's folder is still dirty", async () => {
    const root = newRepo(NOW - DAY, { "a.txt": "a\n", "b.txt": "b\n" });
    mkdirSync(path.join(root, "dist"));
    for (let i = 0; i < 25; i++) writeFileSync(path.join(root, `dist/f${i}.js`), `${i}\n`);
    mkdirSync(path.join(root, "newdir"));
    writeFileSync(path.join(root, "newdir/x.js"), "b\n");
    const a = await inProcess(["anchors", "--root", root], { env });
    expect(a.stdout).toContain("- Dirty files: dist/, newdir/x.js\n");
    expect(a.stdout).toMatch(/^- Dirty hashes: newdir\/x\.js [0-9a-f]{40}$/m);
    // Anchors as an older version wrote them (`newdir/` one entry): the folder is still dirty, not reverted.
    const head = git(root, ["rev-parse", "HEAD"]);
    const date = new Date(NOW).toISOString().replace(/\.\d{3}Z$/, "Z");
    const old = doc(`- Branch: main\n- HEAD: ${head}\n- Dirty files: dist/, newdir/\n- Date: ${date}\n`);
    const d = JSON.parse((await inProcess(["drift", "--root", root, "--stdin", "--json"], { input: old, env })).stdout);
    expect(d.dirtyFates).toEqual([{ path: "dist/", fate: "dirty" }, { path: "newdir/", fate: "dirty" }]);
    expect(d.dirtyChanged).toBe(false);
    expect(d.verdict).toBe("fresh");
  });
});
