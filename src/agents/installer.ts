// install and uninstall of one agent's files, used by their verbs and by init.
import { existsSync, lstatSync, readFileSync } from "node:fs";
import path from "node:path";
import { Refused } from "../errors.ts";
import { mergeDriverStep } from "../git/merge-driver-config.ts";
import { quotedValue } from "../guard/quote.ts";
import { tokenOf } from "../store/files.ts";
import { assertNotPaused } from "../store/pause.ts";
import { dropRecord, makeDirs, missingDirs, prepareDir, readAgentFile, readRecord } from "./agent-file.ts";
import { recordNode, recordsDir, removeEmptyDirs, writeAgentFile, writeRecord } from "./agent-file.ts";
import { userDir } from "../store/home.ts";
import { AGENTS } from "./index.ts";
import { editPath, holdsOurs, installText, snippetOf, uninstallText } from "./plan.ts";
import type { Target } from "./target.ts";

type Env = Record<string, string | undefined>;

/** Writes the agent's entries into its files. @returns a line per file, and notes for stderr. */
export async function install(t: Target, env: Env) {
  const homeVar = process.platform === "win32" ? "USERPROFILE" : "HOME";
  if (!t.home) {
    const why = "the per-user records and the recorded Node live under it";
    throw new Refused(`install needs ${homeVar} set (${why}); nothing was changed`);
  }
  if (!existsSync(t.home)) {
    const where = "install keeps its records under it, so nothing was changed";
    throw new Refused(`${homeVar} (${quotedValue(t.home)}) does not exist; ${where}`);
  }
  assertNotPaused(t.memDir, env);
  const targets = t.targets();
  for (const { file } of targets) missingDirs(t.base, path.dirname(file));
  // Every new text is computed before anything is written: a refusal for one file changes none.
  const plans = [];
  for (const { edit, file, shown } of targets) {
    const snap = await readAgentFile(file, snippetOf(edit, t.agent.name));
    const next = installText(edit, t.agent.name, snap.bytes?.toString("utf8") ?? null, shown);
    plans.push({ edit, file, shown, snap, next });
  }
  const lines: string[] = [];
  const records = recordsDir(env, t.home);
  // The folders made for the records go in the first record written.
  let madeForRecords: string[] = [];
  if (!t.dryRun) {
    madeForRecords = prepareDir(records);
    recordNode(userDir(env, t.home), process.execPath);
  }
  for (const p of plans) {
    const bytes = Buffer.from(p.next, "utf8");
    const verb = p.snap.bytes === null ? "create" : "update";
    if (p.snap.bytes?.equals(bytes) || t.dryRun) {
      lines.push(p.snap.bytes?.equals(bytes) ? `unchanged ${p.shown}` : `would ${verb} ${p.shown}`);
      continue;
    }
    const dirs = missingDirs(t.base, path.dirname(p.file));
    makeDirs(dirs);
    const mode = p.edit.kind === "owned-file" ? p.edit.mode : 0o644;
    try {
      await writeAgentFile(p.file, p.snap.token, bytes, mode, env.MEMORY_IO_FAILPOINT || undefined);
    } catch (err) {
      removeEmptyDirs(dirs);
      throw err;
    }
    const prior = readRecord(records, p.file);
    // The first bytes stay the ones to restore only while nobody else wrote the file since our last write.
    const kept = prior !== null && prior.after === p.snap.token;
    const record = {
      path: p.file,
      before: kept ? prior.before : (p.snap.bytes?.toString("base64") ?? null),
      after: tokenOf(bytes),
      createdDirs: [...(prior?.createdDirs ?? []), ...dirs, ...madeForRecords],
    };
    madeForRecords = [];
    const made = writeRecord(records, record);
    if (made.length > 0) writeRecord(records, { ...record, createdDirs: [...record.createdDirs, ...made] });
    lines.push(`${verb}d ${p.shown}`);
  }
  const driver = await mergeDriverStep(t.global ? null : t.base, { dryRun: t.dryRun, helperPath: t.helper.abs }, env);
  // A project file naming this clone's absolute path breaks the hook in every other clone.
  const local = t.global ? [] : plans.filter((p) => p.next.includes(t.helper.abs)).map((p) => p.shown);
  const keep = local.map((f) => `${f} names this clone's path to the helper: keep it out of git (docs/install.md)`);
  return { lines: [...lines, ...driver.lines], notes: [...driver.notes, ...keep] };
}

/** Takes the agent's entries out of its files, restoring the recorded bytes where nothing else changed. */
export async function uninstall(t: Target, env: Env) {
  assertNotPaused(t.memDir, env);
  const records = recordsDir(env, t.home);
  const targets = t.targets();
  // As install: a link on the way is refused (a linked .claude/ is the user's own settings).
  for (const { file } of targets) missingDirs(t.base, path.dirname(file));
  const plans = [];
  for (const { edit, file, shown } of targets) {
    const snap = await readAgentFile(file, snippetOf(edit, t.agent.name));
    const record = readRecord(records, file);
    if (snap.bytes === null) {
      plans.push({ edit, file, shown, snap, next: null as string | null, verb: "unchanged", record });
      continue;
    }
    const current = snap.bytes.toString("utf8");
    let next = uninstallText(edit, t.agent.name, current, shown);
    let verb = next === null ? "removed" : next === current ? "unchanged" : "updated";
    // Recorded bytes holding an entry of ours (an install killed before its record) would revive it.
    const before = record?.before == null ? null : Buffer.from(record.before, "base64").toString("utf8");
    const clean = (next === null || !holdsOurs(edit, next)) && (before === null || !holdsOurs(edit, before));
    if (record !== null && record.after === snap.token && clean) {
      next = before;
      verb = next === null ? "removed" : "restored";
    }
    plans.push({ edit, file, shown, snap, next, verb, record });
  }
  const lines: string[] = [];
  const dirs: string[] = [];
  for (const p of plans) {
    if (t.dryRun) {
      lines.push(p.verb === "unchanged" ? `unchanged ${p.shown}` : `would ${p.verb.replace(/d$/, "")} ${p.shown}`);
      continue;
    }
    if (p.verb !== "unchanged") {
      const bytes = p.next === null ? null : Buffer.from(p.next, "utf8");
      await writeAgentFile(p.file, p.snap.token, bytes, 0o644, env.MEMORY_IO_FAILPOINT || undefined);
    }
    lines.push(`${p.verb} ${p.shown}`);
    // A record stays while something of ours is left in the file (another agent's block), following what we wrote.
    if (p.record !== null && (p.next === null || p.verb === "restored" || !holdsOurs(p.edit, p.next))) {
      dropRecord(records, p.file);
      dirs.push(...p.record.createdDirs);
    } else if (p.record !== null && p.next !== null && p.verb !== "unchanged") {
      writeRecord(records, { ...p.record, after: tokenOf(Buffer.from(p.next, "utf8")) });
    }
  }
  // The driver serves every agent installed here: it goes with the last one, before the folders it may empty.
  const last = !t.global && !anotherInstalled(t, t.dryRun ? new Set(plans.map((p) => p.file)) : new Set());
  const none = { lines: [] as string[], notes: [] as string[] };
  const driver = last ? await mergeDriverStep(t.base, { remove: true, dryRun: t.dryRun }, env) : none;
  if (!t.dryRun) removeEmptyDirs(dirs);
  return { lines: [...lines, ...driver.lines], notes: driver.notes };
}

// Whether another agent's files here still hold an entry of ours; `skip` holds the files a dry run
// would change. Only small regular files are read (a FIFO would block).
function anotherInstalled(t: Target, skip: Set<string>): boolean {
  return Object.values(AGENTS).some((a) => a.name !== t.agent.name && a.edits(t.helper, false).some((edit) => {
    const file = editPath(t.base, edit);
    const st = lstatSync(file, { throwIfNoEntry: false });
    if (skip.has(file) || st === undefined || !st.isFile() || st.size > 4_000_000) return false;
    return holdsOurs(edit, readFileSync(file, "utf8"));
  }));
}
