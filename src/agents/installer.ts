// install and uninstall of one agent's files, and the lock they take, used by their verbs and by init.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmdirSync,
  statSync } from "../builtins.ts";
import path from "node:path";
import writeFileAtomic from "write-file-atomic";
import { HelperError, Refused } from "../errors.ts";
import { commonDirOf, gitDirOf, gitTopOf } from "../git/git-dir.ts";
import { assertAttributesReadable, assertDriverFits, mergeDriverStep } from "../git/merge-driver-config.ts";
import { findRoot } from "../git/root.ts";
import { runGit } from "../git/run.ts";
import { quotedValue } from "../guard/quote.ts";
import { orNull, readSmall, realOrNull, succeeds, tokenOf } from "../store/files.ts";
import { acquireLockDir } from "../store/lock.ts";
import { assertNotPaused } from "../store/pause.ts";
import { committedText, dirsBelow, missingDirs, readAgentFile, recordMade, recordNode, removeEmptyDirs,
  removeMade, writeAgentFile } from "./agent-file.ts";
import { homeFolder, userDir } from "../store/home.ts";
import { AGENTS } from "./index.ts";
import { runsOurStatusLine, setsStatusLine, strictSkip } from "./json-hooks.ts";
import { claudeUserDir, holdsOurs, installText, snippetOf, uninstallText, userPath } from "./plan.ts";
import { assertLoadable, type Caller, type Env, type Target } from "./target.ts";
import type { Edit } from "./types.ts";

const isDir = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;

/** What a run has done so far, its lines and the merge driver's: said before a refusal that comes after them. */
export type Said = { lines: string[]; driver: string[] };

/** Writes the agent's entries into its files. @returns a line per file, and notes for stderr. */
export async function install(t: Target, env: Env, said: Said) {
  const hv = process.platform === "win32" ? "USERPROFILE" : "HOME";
  if (!t.home) throw new Refused(`install needs ${hv} set (the recorded Node lives under it); nothing was changed`);
  const where = "install records the Node under it, so nothing was changed";
  if (!existsSync(t.home)) throw new Refused(`${hv} (${quotedValue(t.home)}) does not exist; ${where}`);
  assertNotPaused(t.memDir, env);
  if (!t.global) assertDriverFits(t.base, env);
  assertLoadable(t.helper);
  const targets = t.targets();
  // A folder outside the base (CLAUDE_CONFIG_DIR elsewhere) is the user's, never made by install: it must be there.
  const away = targets.map((x) => path.dirname(x.file)).find((d) => !dirsBelow(t.base, d).length && !isDir(d));
  if (away) throw new Refused(`${away} is not a folder; create it (or unset CLAUDE_CONFIG_DIR): nothing was changed`);
  for (const { file } of targets) missingDirs(t.base, path.dirname(file));
  // Every new text is computed before anything is written: a refusal for one file changes none.
  const plans = [];
  const notes: string[] = [];
  const first = t.planned.size === 0;
  for (const { edit, file, shown } of targets) {
    const snap = await readAgentFile(file, snippetOf(edit, t.agent.name));
    // A dry run of several agents (init) reads the texts the earlier ones would leave, as the real run reads theirs.
    const current = t.dryRun && t.planned.has(file) ? t.planned.get(file) ?? null : snap.bytes?.toString() ?? null;
    const kept = keepingUserStatusLine(edit, current, t.global, t.home, env);
    const theirs = claudeSettings(t.home, env);
    const global = `the status line install --global set (${theirs}) runs ours: not set again in ${shown}`;
    const own = `kept your own status line (${theirs}): ours is not set in ${shown}`;
    const ours = kept !== edit && edit.kind === "json-hooks" && runsOurStatusLine(readSmall(theirs), edit);
    if (kept !== edit) notes.push(ours ? global : own);
    const next = installText(kept, t.agent.name, current, shown);
    const skipped = edit.kind === "json-hooks" ? strictSkip(edit, next, shown) : null;
    if (skipped !== null) notes.push(`${skipped.what}: ${skipped.fix}`);
    if (t.dryRun) t.planned.set(file, next);
    plans.push({ edit, file, shown, snap, current, next });
  }
  const lines = said.lines;
  if (!t.dryRun) recordNode(userDir(env, t.home), process.execPath);
  for (const p of plans) {
    const bytes = Buffer.from(p.next, "utf8");
    const verb = p.current === null ? "create" : "update";
    if (p.current === p.next || t.dryRun) {
      lines.push(p.current === p.next ? `unchanged ${p.shown}` : `would ${verb} ${p.shown}`);
      continue;
    }
    const dirs = missingDirs(t.base, path.dirname(p.file));
    for (const d of dirs) mkdirSync(d, { mode: 0o755 });
    const mode = p.edit.kind === "owned-file" ? p.edit.mode : 0o644;
    try {
      await writeAgentFile(p.file, p.snap.token, bytes, mode, env.MEMORY_IO_FAILPOINT || undefined);
    } catch (err) {
      removeEmptyDirs(dirs);
      throw err;
    }
    recordMade(madeListFile(t, env), dirs);
    lines.push(`${verb}d ${p.shown}`);
  }
  // The driver once per dry run too: the real run's first agent registers it, the others find it there.
  const once = t.global || (t.dryRun && !first) ? null : t.base;
  const driver = await mergeDriverStep(once, { dryRun: t.dryRun, helperPath: t.helper.abs }, env);
  said.driver.push(...driver.lines);
  // A project file naming this clone's absolute path breaks the hook in every other clone: kept out of git, or noted.
  const keep: string[] = [];
  for (const p of t.global ? [] : plans.filter((q) => q.next.includes(t.helper.abs))) {
    const x = excludeOf(t.base, p.file, env);
    if (x !== null && x.at >= 0) continue;
    const ls = x === null || p.snap.bytes !== null ? null : await runGit(x.top, x.ls, env).catch(() => null);
    if (x !== null && ls?.stdout.length === 0) {
      if (!t.dryRun) {
        const made = [path.dirname(x.file), x.file].filter((f) => !existsSync(f));
        mkdirSync(path.dirname(x.file), { recursive: true });
        writeFileAtomic.sync(x.file, x.pair + x.text);
        recordMade(madeListFile(t, env), made);
      }
      lines.push(`${t.dryRun ? "would add" : "added"} ${p.shown} to .git/info/exclude: it names this clone's path`);
    } else keep.push(`${p.shown} names this clone's path to the helper: keep it out of git (docs/install.md)`);
  }
  return { lines, driver: driver.lines, notes: [...notes, ...driver.notes, ...keep] };
}

/** `run` for each target in turn; its lines start with the agent's name when `named`, never the shared driver's. */
export async function forAgents<R extends Said & { notes: string[] }>(
  ts: Target[], run: (t: Target, said: Said) => Promise<R>, named = ts.length > 1,
) {
  // Every agent's files are checked first, by a dry run of all: one refused stops the run before any is written.
  const planned = new Map<string, string | null>();
  for (const t of ts.length > 1 && !ts[0]!.dryRun ? ts : []) await run({ ...t, dryRun: true, planned }, nothingSaid());
  const out = { lines: [] as string[], notes: [] as string[], last: null as R | null };
  for (const t of ts) {
    const now = nothingSaid();
    const lines = () => [...out.lines, ...now.lines.map((l) => (named ? `${t.agent.name}: ${l}` : l)), ...now.driver];
    const r = await run(t, now).catch(afterWrites(lines));
    [out.last, out.lines] = [r, lines()];
    out.notes.push(...r.notes);
  }
  return out;
}

const nothingSaid = (): Said => ({ lines: [], driver: [] });

/** A catch for a step after `done()` (stdout's lines so far): they go first on stderr; a file system error refuses. */
export const afterWrites = (done: () => string[]) => (err: unknown): Promise<never> => {
  const code = (err as NodeJS.ErrnoException).code;
  const fsError = err instanceof Error && !(err instanceof HelperError) && typeof code === "string";
  const refusal = fsError ? new Refused(`file system error: ${err.message}`) : err;
  if (refusal instanceof HelperError) refusal.before = [...done(), ...refusal.before];
  return Promise.reject(refusal);
};

// In the clone's git dir, found under any HOME; outside git one file per project, as two projects' installs may race.
function madeListFile(t: Target, env: Env): string {
  const trees = t.global ? null : treesOf(t.base, env);
  if (trees !== null) return path.join(trees.common, "session-handoff", "made-folders");
  return path.join(userDir(env, t.home), t.global ? "made-folders" : `made-folders-${tokenOf(t.base).slice(0, 16)}`);
}

const claudeSettings = (home: string, env: Env) => path.join(claudeUserDir(home, env), "settings.json");

/** The edit without our status line where a project's would hide the user's own (and every teammate's). */
export function keepingUserStatusLine(edit: Edit, current: string | null, global: boolean, home: string, env: Env) {
  const personal = edit.kind === "json-hooks" && edit.statusLine !== undefined && !global &&
    !setsStatusLine(current) && setsStatusLine(readSmall(claudeSettings(home, env)));
  return personal ? { ...edit, statusLine: undefined } : edit;
}

const EXCLUDE_MARK = "# session-handoff: the next line's file names this clone's path (uninstall removes both)";

// The work tree's top, the clone's common git dir and its other work trees, which share that dir; null outside git.
function treesOf(base: string, env: Env) {
  const top = gitTopOf(base, env);
  const gitDir = top === null ? null : gitDirOf(top);
  if (top === null || gitDir === null) return null;
  const common = commonDirOf(gitDir);
  return { top, common, others: workTrees(common).filter((w) => realOrNull(w) !== realOrNull(top)) };
}

// The clone's exclude file, its text and where our two lines for `file` start in it (-1: not there); null outside git.
function excludeOf(base: string, file: string, env: Env) {
  const trees = treesOf(base, env);
  if (trees === null) return null;
  const { top, common, others } = trees;
  const exclude = path.join(common, "info", "exclude");
  const text = existsSync(exclude) ? readFileSync(exclude, "utf8") : "";
  const rel = path.relative(top, file).split(path.sep).join("/");
  const pair = `${EXCLUDE_MARK}\n/${rel}\n`;
  // `ls` asks git whether it tracks the file; one it cannot ask is not excluded.
  const ls = ["ls-files", "--", `:(literal)${rel}`];
  // Linked work trees share the exclude file: another one's copy of the file still needs the line.
  const needed = others.some((w) => existsSync(path.join(w, rel)));
  return { top, file: exclude, text, pair, ls, needed, at: `\n${text}`.indexOf(`\n${pair}`) };
}

// The clone's work trees: the main one and each linked one, which its `gitdir` file under `worktrees/` names.
function workTrees(common: string): string[] {
  const linked = path.join(common, "worktrees");
  const gitdirs = (existsSync(linked) ? readdirSync(linked) : []).map((n) => readSmall(path.join(linked, n, "gitdir")));
  return [path.dirname(common), ...gitdirs.filter((g) => g !== null).map((g) => path.dirname(g.trim()))];
}

/** Takes the agent's entries out of its files, every other byte kept; a file left empty and its empty folders go. */
export async function uninstall(t: Target, env: Env, said: Said) {
  assertNotPaused(t.memDir, env);
  const targets = t.targets();
  // As install: a link on the way is refused (a linked .claude/ is the user's own settings).
  for (const { file } of targets) missingDirs(t.base, path.dirname(file));
  const plans = [];
  for (const { edit, file, shown } of targets) {
    const snap = await readAgentFile(file, snippetOf(edit, t.agent.name), true);
    const current = t.dryRun && t.planned.has(file) ? t.planned.get(file) ?? null : snap.bytes?.toString() ?? null;
    const committed = current === null ? null : await committedText(file, env);
    const next = current === null ? null : uninstallText(edit, t.agent.name, current, shown, committed);
    const verb = current === null ? "absent" : next === current ? "unchanged" : next === null ? "removed" : "updated";
    if (t.dryRun) t.planned.set(file, next);
    plans.push({ file, shown, snap, next, verb });
  }
  // The driver serves every agent installed here: it goes with the last one, before the folders it may empty.
  const left = new Map([...(t.dryRun ? t.planned : []), ...plans.map((p) => [p.file, p.next] as const)]);
  // A dry run of several agents previews the driver's removal once (the "" entry), as the real run removes it once.
  const last = !t.global && !anotherInstalled(t, left) && !(t.dryRun && t.planned.has(""));
  if (last && t.dryRun) t.planned.set("", null);
  if (last) assertAttributesReadable(t.base, env);
  // Linked work trees share git's config and the driver's copy: those stay while another one has an agent installed.
  const trees = last ? treesOf(t.base, env) : null;
  const rel = trees === null ? "" : path.relative(trees.top, t.base);
  const sharer = trees?.others.find((w) => anotherInstalled(t, new Map(), path.join(w, rel), ""));
  const lines = said.lines;
  for (const p of plans) {
    const acts = p.verb === "removed" || p.verb === "updated";
    const bytes = p.next === null ? null : Buffer.from(p.next, "utf8");
    const fp = env.MEMORY_IO_FAILPOINT || undefined;
    if (!t.dryRun && acts) await writeAgentFile(p.file, p.snap.token, bytes, 0o644, fp);
    lines.push(`${t.dryRun && acts ? `would ${p.verb.replace(/d$/, "")}` : p.verb} ${p.shown}`);
  }
  const none = { lines: [] as string[], notes: [] as string[] };
  const driver = last ? await mergeDriverStep(t.base, { remove: true, dryRun: t.dryRun, keep: sharer }, env) : none;
  said.driver.push(...driver.lines);
  const removed = t.dryRun ? [] : plans.filter((p) => p.verb === "removed");
  for (const p of removed) removeMade(madeListFile(t, env), dirsBelow(t.base, path.dirname(p.file)));
  // Our exclude line goes once the file no longer names this clone's path.
  for (const p of t.global ? [] : plans.filter((q) => q.next === null || !q.next.includes(t.helper.abs))) {
    const x = excludeOf(t.base, p.file, env);
    if (x === null || x.at < 0 || x.needed) continue;
    if (!t.dryRun) writeFileAtomic.sync(x.file, x.text.slice(0, x.at) + x.text.slice(x.at + x.pair.length));
    if (!t.dryRun) removeMade(madeListFile(t, env), [x.file, path.dirname(x.file)]);
    lines.push(`${t.dryRun ? "would remove" : "removed"} ${p.shown} from .git/info/exclude`);
  }
  return { lines, driver: driver.lines, notes: driver.notes, last };
}

// Whether another agent's files under `base` hold an entry of ours; only small regular files are read (not a FIFO).
function anotherInstalled(t: Target, planned: Map<string, string | null>, base = t.base, skip: string = t.agent.name) {
  return Object.values(AGENTS).some((a) => a.name !== skip && a.edits(t.helper, false).some((edit) => {
    const file = userPath(base, edit.file);
    const st = lstatSync(file, { throwIfNoEntry: false });
    if (planned.has(file)) return holdsOurs(edit, planned.get(file) ?? "");
    if (st === undefined || !st.isFile() || st.size > 4_000_000) return false;
    return holdsOurs(edit, readFileSync(file, "utf8"));
  }));
}

/** Runs `run` under the project's (--global: the user's) install lock, so that two installs lose no edit. */
export async function underInstallLock<T>(ctx: Caller, uninstall: boolean, run: () => Promise<T>): Promise<T> {
  if (ctx.values["dry-run"] === true) return run();
  const global = ctx.values.global === true;
  const given = typeof ctx.values.root === "string" && ctx.values.root !== "" ? ctx.values.root : ".";
  const root = global ? null : orNull(() => findRoot(path.resolve(ctx.cwd, given), ctx.env).root);
  // A bad --root takes no lock: the run itself refuses it.
  if (!global && root === null) return run();
  const lockDir = path.join(root === null ? userDir(ctx.env) : path.join(root, ".ai"), ".install.lock");
  const parent = path.dirname(lockDir);
  const made = makeParent(parent);
  try {
    const what = "another install or uninstall is editing these agent files";
    const retry = "wait for it to finish and retry";
    const lock = await acquireLockDir(lockDir, 10, { what, retry, makeParent: true });
    try {
      return await run();
    } finally {
      await lock.release();
    }
  } finally {
    const stop = global ? path.resolve(homeFolder(ctx.env) || "/") : root!;
    const below = (dir: string) => dir.startsWith(`${stop}${path.sep}`);
    for (let dir = parent; (made !== null || uninstall) && below(dir); dir = path.dirname(dir)) {
      if (!succeeds(() => rmdirSync(dir))) break; // not empty: something else lives there
      if (dir === made && !uninstall) break;
    }
  }
}

// The topmost folder this call made (it and those below it are removed when left empty), or null.
function makeParent(dir: string): string | null {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (st === undefined) return mkdirSync(dir, { recursive: true, mode: 0o700 }) ?? null;
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new Refused(`${dir} is ${st.isSymbolicLink() ? "a link" : "not a directory"}; move it away and retry`);
  }
  return null;
}
