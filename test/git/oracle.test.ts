// A git oracle for the brief (docs/design.md#what-became-of-the-dirty-files): seeded sequences
// of ordinary operations after a save, then every fate, the key-file clauses, reachability and
// the counts of `brief --json` (which carries `drift --json`) checked against git's own answers,
// computed here with other git commands. SEEDS=n runs n sequences (50 by default; `npm run
// test:oracle` runs 1,000); SEED=n replays one. A failing seed prints its operations.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { cleanEnv, HELPER } from "../helpers.ts";

const run = promisify(execFile);
const BASE = mkdtempSync(path.join(tmpdir(), "sh-oracle-"));
afterAll(() => rmSync(BASE, { recursive: true, force: true }), 600_000);
const HOME = path.join(BASE, "home");
mkdirSync(path.join(HOME, ".config"), { recursive: true });
writeFileSync(path.join(HOME, ".gitconfig"), "[user]\n\tname = Ora\n\temail = ora@example.com\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n[advice]\n\tdetachedHead = false\n");
const ENV = { ...cleanEnv(), HOME, XDG_CONFIG_HOME: path.join(HOME, ".config"), GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: path.join(HOME, ".gitconfig"), GIT_CEILING_DIRECTORIES: BASE };
for (const k of Object.keys(ENV)) if (k.startsWith("GIT_") && !["GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_CEILING_DIRECTORIES"].includes(k)) delete (ENV as Record<string, unknown>)[k];

async function git(dir: string, ...args: string[]): Promise<string> {
  return (await run("git", args, { cwd: dir, env: ENV, encoding: "utf8" })).stdout.replace(/\s+$/, "");
}
async function tryGit(dir: string, ...args: string[]): Promise<boolean> {
  try {
    await git(dir, ...args);
    return true;
  } catch {
    return false;
  }
}

// mulberry32: a small seeded generator, so a seed replays the same operations.
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FILES = ["a.ts", "b.ts", "c.ts", "K1.ts", "K2.ts"];
const KEYS = ["K1.ts", "K2.ts", "a.ts"];

const DOC = [
  "<!-- memory-schema: v1 -->",
  "# Session Handoff",
  "",
  "## Current goal",
  "Keep the oracle honest.",
  "",
  "## Plan",
  "- [~] check",
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
  "- check",
  "",
  "## Key files",
  ...KEYS.map((k) => `- ${k} — key`),
  "",
  "## Environment anchors",
  "",
].join("\n");

interface Fate {
  path: string;
  fate: string;
  commit?: string;
  stash?: string;
  onHead?: boolean;
  reverted?: string;
}

type Op = (dir: string, r: () => number, log: string[]) => Promise<string | void>;
const pick = <T,>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

let counter = 0;
const OPS: Record<string, Op> = {
  async commitSome(dir, r) {
    const dirty = (await git(dir, "status", "--porcelain", "--untracked-files=all")).split("\n").filter(Boolean).map((l) => l.slice(3));
    const some = dirty.filter(() => r() < 0.6);
    if (some.length === 0) return "nothing";
    await git(dir, "add", "-A", "--", ...some);
    await tryGit(dir, "commit", "-qm", `some ${counter++}`);
    return some.join(",");
  },
  async commitKey(dir, r) {
    const k = pick(r, KEYS);
    writeFileSync(path.join(dir, k), `key ${counter++}\n`);
    await git(dir, "add", "--", k);
    await git(dir, "commit", "-qm", `key ${k}`);
    return k;
  },
  async deleteKey(dir, r) {
    const k = pick(r, KEYS);
    if (!(await tryGit(dir, "rm", "-qf", "--", k))) return "absent";
    await tryGit(dir, "commit", "-qm", `rm ${k}`);
    return k;
  },
  async stash(dir) {
    return (await tryGit(dir, "stash", "-q")) ? "ok" : "failed";
  },
  async stashUntracked(dir) {
    return (await tryGit(dir, "stash", "-u", "-q")) ? "ok" : "failed";
  },
  // Work on after the save, then put aside: the stash holds changes made since, not the saved content.
  async editStash(dir, r) {
    const f = pick(r, FILES);
    writeFileSync(path.join(dir, f), `edit ${counter++}\n`);
    return (await tryGit(dir, "stash", "-q")) ? f : "failed";
  },
  async stashPop(dir) {
    if (await tryGit(dir, "stash", "pop", "-q")) return "ok";
    await tryGit(dir, "reset", "-q", "--hard");
    return "conflict, reset";
  },
  async branchSwitch(dir, r) {
    if (r() < 0.5) return (await tryGit(dir, "switch", "-q", "-c", `b${counter++}`)) ? "new" : "failed";
    return (await tryGit(dir, "switch", "-q", "-")) ? "back" : "failed";
  },
  async amend(dir) {
    return (await tryGit(dir, "commit", "-q", "--amend", "-am", `amended ${counter++}`)) ? "ok" : "failed";
  },
  async rebase(dir) {
    return (await tryGit(dir, "rebase", "-q", "--onto", "HEAD~2", "HEAD~1")) ? "ok" : ((await tryGit(dir, "rebase", "--abort")), "failed");
  },
  async reset(dir, r) {
    return (await tryGit(dir, "reset", "-q", r() < 0.5 ? "--hard" : "--mixed", "HEAD~1")) ? "ok" : "failed";
  },
  async edit(dir, r) {
    const f = pick(r, FILES);
    writeFileSync(path.join(dir, f), `edit ${counter++}\n`);
    return f;
  },
  // A branch whose commits predate the save, merged now: commits ahead that are not work since the save.
  async mergeOld(dir, r) {
    const ff = r() < 0.5 ? "--ff" : "--no-ff";
    return (await tryGit(dir, "merge", "-q", ff, "--no-edit", "old")) ? ff : ((await tryGit(dir, "merge", "--abort")), "failed");
  },
  async revert(dir, r) {
    const f = pick(r, FILES);
    return (await tryGit(dir, "checkout", "-q", "HEAD", "--", f)) ? f : "failed";
  },
};

async function helper(dir: string, args: string[], input = ""): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [HELPER, ...args, "--root", dir], { env: ENV, encoding: "utf8", timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin?.end(input);
  });
}

/**
 * What git says became of each saved dirty file: the same fates, asked of git another way. `savedSec`: the save's
 * second; a commit or stash entry from then on is since the save, and so is a commit on HEAD's first-parent line down
 * to the saved one.
 */
async function oracleFates(dir: string, saved: string, savedSec: number, dirtyThen: Map<string, string | null>, cloned: boolean): Promise<Fate[]> {
  const status = (await git(dir, "status", "--porcelain", "--untracked-files=normal")).split("\n").filter(Boolean).map((l) => l.slice(3));
  const blobAt = async (rev: string, p: string) => (await tryGitOut(dir, "rev-parse", "-q", "--verify", `${rev}:${p}`)) ?? null;
  const stashes = ((await tryGitOut(dir, "stash", "list", "--format=%gd %ct"))?.split("\n").filter(Boolean) ?? []).map((l) => l.split(" "));
  const line = await lineOf(dir, saved);
  const out: Fate[] = [];
  for (const [p, blob] of dirtyThen) {
    if (status.includes(p)) {
      const now = existsSync(path.join(dir, p)) ? await git(dir, "hash-object", "--", p) : null;
      out.push({ path: p, fate: now === blob ? "unchanged" : "changed" });
      continue;
    }
    // A commit since the save whose tree holds the saved content (or, for a deletion, lacks the file) and whose parent does not.
    const holds = async (c: string) => (await blobAt(c, p)) === blob && (await blobAt(`${c}^`, p)) !== blob;
    const onHead = (await git(dir, "log", "--format=%H %ct", "HEAD", `^${saved}`, "--", p)).split("\n").filter(Boolean).map((l) => l.split(" "));
    let found: Fate | null = null;
    for (const [c] of onHead) if (!found && (await holds(c!))) found = { path: p, fate: "committed", commit: c, onHead: true };
    // Then reverted: the newest commit to touch the file gave back its content from before the committing one.
    const last = onHead[0]?.[0];
    if (found?.fate === "committed" && last !== found.commit && (await blobAt(last!, p)) === (await blobAt(`${found.commit}^`, p))) found.reverted = last;
    // `stash -u` keeps untracked files in the entry's third parent.
    const inStash = async (s: string) => (blob !== null && (await blobAt(`${s}^3`, p)) === blob) || ((await blobAt(s, p)) === blob && (await blobAt(`${s}^1`, p)) !== blob);
    for (const [s] of stashes) if (!found && (await inStash(s!))) found = { path: p, fate: "stashed", stash: s };
    const others = (await git(dir, "rev-list", "--exclude=refs/stash", "--all", "^HEAD", `^${saved}`, "--", p)).split("\n").filter(Boolean);
    for (const c of others) if (!found && (await holds(c))) found = { path: p, fate: "committed", commit: c, onHead: false };
    // No entry holds the saved content: the newest commit on HEAD, or stash entry, made since the save that changed the file.
    const changed = async (c: string) => (await blobAt(c, p)) !== (await blobAt(`${c}^`, p));
    const stashChanged = async (s: string) => (await blobAt(`${s}^3`, p)) !== null || (await blobAt(s, p)) !== (await blobAt(`${s}^1`, p));
    let commit: string[] | undefined;
    for (const c of onHead) if (!found && !commit && (line.has(c[0]!) || Number(c[1]) >= savedSec) && (await changed(c[0]!))) commit = c;
    let stash: string[] | undefined;
    for (const s of stashes) if (!found && !stash && Number(s[1]) >= savedSec && (await stashChanged(s[0]!))) stash = s;
    if (!found && stash && (!commit || Number(stash[1]) > Number(commit[1]))) found = { path: p, fate: "edited", stash: stash[0] };
    else if (!found && commit) found = { path: p, fate: "edited", commit: commit[0] };
    out.push(found ?? { path: p, fate: cloned ? "not-here" : "reverted" });
  }
  return out;
}
// HEAD's first-parent line down to the saved commit, when it reaches it: since the save by ancestry, whatever the dates.
async function lineOf(dir: string, saved: string): Promise<Set<string>> {
  const line = ((await tryGitOut(dir, "rev-list", "--first-parent", "HEAD")) ?? "").split("\n").filter(Boolean);
  return new Set(line.includes(saved) ? line.slice(0, line.indexOf(saved)) : []);
}
async function tryGitOut(dir: string, ...args: string[]): Promise<string | null> {
  try {
    return await git(dir, ...args);
  } catch {
    return null;
  }
}

async function oneSeed(seed: number): Promise<void> {
  const r = rng(seed);
  const log: string[] = [];
  let dir = path.join(BASE, `s${seed}`);
  mkdirSync(dir);
  await git(dir, "init", "-q");
  // Every fourth seed saves CRLF work under core.autocrlf (git stores LF), without drawing from `r`: the other seeds
  // replay as before.
  const eol = seed % 4 === 0 ? "\r\n" : "\n";
  if (eol === "\r\n") await git(dir, "config", "core.autocrlf", "true");
  for (const f of FILES) writeFileSync(path.join(dir, f), `${f} 0\n`);
  mkdirSync(path.join(dir, ".git", "info"), { recursive: true });
  writeFileSync(path.join(dir, ".git", "info", "exclude"), ".ai/\n");
  await git(dir, "add", "-A");
  await git(dir, "commit", "-qm", "initial");
  for (const f of FILES) if (r() < 0.3) (writeFileSync(path.join(dir, f), `${f} 1\n`), await git(dir, "commit", "-qam", `${f} 1`));
  // Two commits an hour before the save on a branch of their own, for `mergeOld`; the second touches c.ts, so that a
  // merge after the save brings in a change to a file that may be dirty at it, made before it.
  await git(dir, "branch", "old", "HEAD~0");
  const hourAgo = { ...ENV, GIT_COMMITTER_DATE: new Date(Date.now() - 3_600_000).toISOString() };
  for (const n of [1, 2]) {
    await run("git", ["switch", "-q", "old"], { cwd: dir, env: ENV });
    writeFileSync(path.join(dir, n === 1 ? "old.ts" : "c.ts"), `old ${n}\n`);
    await run("git", ["add", "old.ts", ...(n === 2 ? ["c.ts"] : [])], { cwd: dir, env: ENV });
    await run("git", ["commit", "-qm", `old ${n}`], { cwd: dir, env: hourAgo });
  }
  await git(dir, "switch", "-q", "main");
  // Dirty work at the save: some files edited, maybe a new one.
  const dirtyNames = FILES.filter(() => r() < 0.5);
  if (r() < 0.4) dirtyNames.push("new.ts");
  for (const f of dirtyNames) writeFileSync(path.join(dir, f), `${f} dirty ${seed}${eol}`);
  const w = await helper(dir, ["write", "handoff", "--expected-current-sha256", "absent"], DOC);
  if (w.code !== 0) throw new Error(`seed ${seed}: write failed: ${w.stderr}`);
  const saved = await git(dir, "rev-parse", "HEAD");
  const dirtyThen = new Map<string, string | null>();
  for (const f of (await git(dir, "status", "--porcelain", "--untracked-files=normal")).split("\n").filter(Boolean).map((l) => l.slice(3))) {
    // The blob `git add` would store: line ends converted as git does.
    dirtyThen.set(f, existsSync(path.join(dir, f)) ? await git(dir, "hash-object", "--", f) : null);
  }
  const n = 1 + Math.floor(r() * 5);
  const names = Object.keys(OPS);
  let cloned = false;
  for (let i = 0; i < n; i++) {
    const name = r() < 0.06 ? "clone" : pick(r, names);
    if (name === "clone") {
      const c = `${dir}-clone`;
      await git(BASE, "clone", "-q", dir, c);
      mkdirSync(path.join(c, ".ai", "memory"), { recursive: true });
      writeFileSync(path.join(c, ".ai", "memory", "HANDOFF.md"), readFileSync(path.join(dir, ".ai", "memory", "HANDOFF.md")));
      writeFileSync(path.join(c, ".git", "info", "exclude"), ".ai/\n");
      dir = c;
      cloned = true;
      log.push("clone");
      continue;
    }
    log.push(`${name}(${(await OPS[name]!(dir, r, log)) ?? ""})`);
  }
  const context = `seed ${seed}: ${log.join(" ")} (replay: SEED=${seed})`;
  const b = await helper(dir, ["brief", "--json"]);
  expect(b.code, `${context}\n${b.stderr}`).toBe(0);
  const { brief, drift } = JSON.parse(b.stdout) as { brief: { driftAndLessons: string }; drift: Record<string, unknown> & { dirtyFates: Fate[]; summary: string } };
  const present = (await tryGitOut(dir, "cat-file", "-t", saved)) === "commit";
  const reachable = present && ((await tryGit(dir, "merge-base", "--is-ancestor", saved, "HEAD")) || (await git(dir, "for-each-ref", "--contains", saved)) !== "");
  if (cloned && !present) return;
  expect(drift.headReachable, context).toBe(reachable);
  const savedSec = Date.parse(/^- Date: (\S+)$/m.exec(readFileSync(path.join(dir, ".ai", "memory", "HANDOFF.md"), "utf8"))![1]!) / 1000;
  if (reachable) {
    expect(drift.ahead, context).toBe(Number(await git(dir, "rev-list", "--count", `${saved}..HEAD`)));
    expect(drift.behind, context).toBe(Number(await git(dir, "rev-list", "--count", `HEAD..${saved}`)));
    // The commits ahead that the 30-commit rule leaves out: committed before the save's second (its `- Date:`) and not
    // on HEAD's first-parent line down to the saved commit, which makes a commit since the save whatever its date.
    const line = await lineOf(dir, saved);
    const times = (await git(dir, "log", "--format=%H %ct", `${saved}..HEAD`)).split("\n").filter(Boolean).map((l) => l.split(" "));
    expect(drift.olderAhead, context).toBe(times.filter(([c, t]) => !line.has(c!) && Number(t) < savedSec).length);
  } else if (present) {
    // `git cherry` marks each saved commit HEAD lacks: `-` when HEAD holds a patch-identical copy, `+` when not.
    const marks = (await git(dir, "cherry", "HEAD", saved)).split("\n").filter(Boolean).map((l) => l[0]);
    const changed = marks.filter((m) => m === "+").length;
    expect([drift.savedCopied, drift.savedChanged], context).toEqual([marks.length - changed, changed]);
    // Only a rewrite that changed a saved patch leaves the plan unverified.
    expect(drift.verdict === "rewritten", context).toBe(changed > 0);
  }
  // A file HEAD holds exactly as it was dirty at the save is the save's own work committed, not a change since.
  const heldAsSaved = async (f: string) =>
    dirtyThen.has(f) && dirtyThen.get(f) === ((await tryGitOut(dir, "rev-parse", "--verify", "-q", `HEAD:${f}`)) || null);
  if (reachable) {
    const touched = (await git(dir, "log", "--format=", "--name-only", "--diff-merges=first-parent", `${saved}..HEAD`))
      .split("\n").filter((p) => p !== "" && !p.startsWith(".ai/memory/"));
    const held = await Promise.all(touched.map(heldAsSaved));
    const asSaved = Number(drift.ahead) > 0 && drift.behind === 0 && touched.length > 0 && held.every(Boolean);
    expect(drift.aheadAsSaved, context).toBe(asSaved);
  }
  const diff = (await git(dir, "diff", "--name-only", saved, "HEAD")).split("\n").filter(Boolean);
  const keysChanged = [];
  for (const k of KEYS) if (diff.includes(k) && !(await heldAsSaved(k))) keysChanged.push(k);
  expect([...(drift.changedKeyFiles as string[])].sort(), context).toEqual(keysChanged.sort());
  expect(drift.missingKeyFiles, context).toEqual(KEYS.filter((k) => !existsSync(path.join(dir, k))));
  expect(drift.current, context).toMatchObject({ branch: (await git(dir, "branch", "--show-current")) || "(detached)", head: await git(dir, "rev-parse", "HEAD") });
  expect(drift.dirtyFates, context).toEqual(await oracleFates(dir, saved, savedSec, dirtyThen, cloned));
  // The brief says nothing drift does not: each of its Drift clauses is one of the summary's.
  const clauses = new Set(drift.summary.split("; "));
  // A cut ends `…`, or `… +N files, +M facts` counting what it left out.
  const cut = /…( \+\d+ \w+(, \+\d+ \w+)*)?$/;
  for (const c of brief.driftAndLessons.split("; ")) if (!c.startsWith("ledgers:") && !cut.test(c)) expect(clauses.has(c), `${context}\nbrief clause: ${c}`).toBe(true);
  // And it keeps every fate clause and the missing and changed key files, the things a resume must not lose.
  for (const c of drift.summary.split("; ").filter((x) => /^(dirty at the save|dirty in the clone that saved|key files (missing|changed|with))/.test(x))) {
    expect(brief.driftAndLessons.includes(c) || cut.test(brief.driftAndLessons), `${context}\nmissing from the brief: ${c}`).toBe(true);
  }
}

const only = process.env.SEED === undefined ? null : Number(process.env.SEED);
const SEEDS = only !== null ? [only] : Array.from({ length: Number(process.env.SEEDS ?? 50) }, (_, i) => i + 1);

describe("the brief against git, seeded", () => {
  it(`${SEEDS.length} sequences of ordinary operations after a save`, { timeout: 3_600_000 }, async () => {
    const started = Date.now();
    const queue = [...SEEDS];
    const failures: string[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let s = queue.shift(); s !== undefined; s = queue.shift()) {
          try {
            await oneSeed(s);
          } catch (err) {
            failures.push((err as Error).message.split("\n").slice(0, 12).join("\n"));
          } finally {
            // A seed's repositories go as soon as it is judged: 1,000 of them would fill the disk.
            for (const d of [`s${s}`, `s${s}-clone`]) rmSync(path.join(BASE, d), { recursive: true, force: true });
          }
        }
      }),
    );
    console.log(`oracle: ${SEEDS.length} sequences in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(failures.slice(0, 5).join("\n\n"), `${failures.length} of ${SEEDS.length} seeds failed`).toBe("");
  });
});
