import { quotedPath } from "../schema/anchor-lines.ts";
import { closeSync, linkSync, unlinkSync } from "node:fs";
import path from "node:path";
import { Refused } from "../errors.ts";
import { failpoint } from "./failpoint.ts";
import { openRegular, readAll, UnsafeFile } from "./files.ts";
import { listPrivate, lstatBig, processAlive, type PrivateEntry } from "./private.ts";

// Agent files (`.claude/settings.json`, `AGENTS.md`, `~/.gemini/settings.json`, Cline's hook
// scripts…) are published with `write`'s claim-and-link protocol (docs/design.md#integrations, docs/design.md#tokens-and-the-publication-protocol),
// but outside the memory dir: no lock, and `recover` never looks there. A crash
// mid-publication can leave, beside the file, a temp (`.<file>.tmp-<pid>-<hex>`), or the
// user's file renamed to a claim (`.<file>.claim-<pid>-<hex>`) with nothing in its place, or
// the new version published with the claim still beside it. `install` and `uninstall` repair
// what such a crash left before they read a file; `doctor` reports it. The design is silent
// on this; the rule is ours (docs/decisions/agent-file-repair.md).

/** One step of the repair of an agent file's leftovers. */
export type LeftoverStep =
  /** No file, one claim: the claim is linked back as the file (never over one), then dropped. */
  | { kind: "restore"; entry: PrivateEntry }
  /** The claim is the file itself (a put-back killed before its last unlink): its name goes. */
  | { kind: "finish-restore"; entry: PrivateEntry }
  /** The claim is a version the file no longer needs: its save was published, or it holds the file's very bytes. */
  | { kind: "drop-claim"; entry: PrivateEntry; why: "published" | "same-bytes" }
  /** A temp of a dead edit: unpublished, or published (a second name of the file). */
  | { kind: "drop-temp"; entry: PrivateEntry; published: boolean };

/** What was found beside one agent file, and what repairing it means. */
export interface LeftoverPlan {
  /** Absolute path of the agent file. */
  file: string;
  /** The repair, in order (claims before temps: a published temp proves its claim obsolete). */
  steps: LeftoverStep[];
  /**
   * Why nothing may be repaired because only the user can choose (two claims and no file; a
   * claim whose file was written since by someone else): what was found, naming the paths,
   * and what to do. Null when the steps may run.
   */
  conflict: { found: string; todo: string } | null;
  /** Entries named like ours that no interrupted edit leaves (a link, a directory, a foreign hard link): left alone, reported. */
  planted: { entry: PrivateEntry; reason: string }[];
  /** Entries of a process that is still running (an edit in progress): left alone. */
  live: PrivateEntry[];
  /** Every other entry of `name`'s private names found (repairable or not). */
  found: PrivateEntry[];
}

// The pid and random part shared by one publication's temp and claim.
function saveId(e: PrivateEntry): string {
  return e.name.slice(e.name.lastIndexOf(".") + 1).replace(/^(tmp|claim)-/, "");
}

// The bytes of a regular file with one link, read without following a link; null otherwise.
function bytesOf(p: string): Buffer | null {
  let opened;
  try {
    opened = openRegular(p);
  } catch (err) {
    if (err instanceof UnsafeFile || err instanceof Refused) return null;
    throw err;
  }
  if (opened === null) return null;
  try {
    return opened.stat.nlink === 1n ? readAll(opened.fd) : null;
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * Inspects what interrupted publications of `dir/name` left (reads only; changes nothing).
 * Only entries with `name`'s private names are looked at, and only those whose pid is not a
 * running process here (`processAlive`; an entry with this process's own pid is from a dead
 * one, since nothing of ours exists before the repair). Each is lstat'ed, never followed:
 * anything but a regular file whose link count the protocol explains is planted.
 *
 * - no file, one claim: restore it; no file, two or more claims: conflict (the user picks);
 * - a claim that is the file's inode: finish the put-back (drop the claim's name);
 * - a claim beside a file that its own save's temp published, or holding the file's very
 *   bytes: drop it (agent files are never archived: `archivePrior` is false);
 * - any other claim beside a file: conflict (the file was written by someone else since; the
 *   claim may be the user's only copy of what was there);
 * - a temp: drop it (its second link, if any, must be the file: a published one).
 */
export function planLeftovers(dir: string, name: string): LeftoverPlan {
  const file = path.join(dir, name);
  const plan: LeftoverPlan = { file, steps: [], conflict: null, planted: [], live: [], found: [] };
  const dead: { entry: PrivateEntry; ino: bigint; nlink: bigint }[] = [];
  for (const entry of listPrivate(dir)) {
    if (entry.file !== name) continue;
    if (entry.pid !== process.pid && processAlive(entry.pid)) {
      plan.live.push(entry);
      continue;
    }
    const st = lstatBig(entry.path);
    if (st === null) continue; // gone meanwhile
    plan.found.push(entry);
    if (st.isSymbolicLink()) plan.planted.push({ entry, reason: "is a link" });
    else if (!st.isFile()) plan.planted.push({ entry, reason: "is not a regular file" });
    else dead.push({ entry, ino: st.ino, nlink: st.nlink });
  }
  const target = lstatBig(file);
  const targetIno = target !== null && target.isFile() ? target.ino : null;
  // A running process has the file set aside and nothing in its place: an edit in progress (or
  // a dead one whose process number another program now has). Going on would write a file
  // without the user's settings: only waiting, or the user, can settle it.
  const away = target === null ? plan.live.find((e) => e.role === "claim") : undefined;
  if (away !== undefined) {
    plan.found.push(away);
    plan.conflict = {
      found: `${file} is missing while process ${away.pid}, still running, has its previous version set aside as ${quotedPath(away.path)} (an install or uninstall in progress, or an interrupted one whose process number another program now has)`,
      todo: `wait for that edit to end; if no install or uninstall is running, rename ${quotedPath(away.name)} back to ${quotedPath(name)}`,
    };
    return plan;
  }
  const published = new Set(dead.filter((d) => d.entry.role === "tmp" && d.ino === targetIno).map((d) => saveId(d.entry)));

  const claims = dead.filter((d) => d.entry.role === "claim");
  const temps = dead.filter((d) => d.entry.role === "tmp");
  const usable = claims.filter((c) => {
    // A claim's only possible second link is the file itself (a put-back killed mid-way).
    const ok = c.nlink === 1n || (c.nlink === 2n && c.ino === targetIno);
    if (!ok) plan.planted.push({ entry: c.entry, reason: `has ${c.nlink} hard links` });
    return ok;
  });
  if (target === null) {
    if (usable.length > 1) {
      const paths = usable.map((c) => quotedPath(c.entry.path)).join(" and ");
      plan.conflict = {
        found: `${file} is missing and interrupted edits left ${usable.length} earlier versions of it: ${paths}`,
        todo: `keep the one you want by renaming it to ${quotedPath(name)}, delete the other${usable.length > 2 ? "s" : ""}`,
      };
      return plan;
    }
    if (usable.length === 1) plan.steps.push({ kind: "restore", entry: usable[0]!.entry });
  } else {
    let current: Buffer | null | undefined;
    for (const c of usable) {
      if (c.ino === targetIno) {
        plan.steps.push({ kind: "finish-restore", entry: c.entry });
        continue;
      }
      if (published.has(saveId(c.entry))) {
        plan.steps.push({ kind: "drop-claim", entry: c.entry, why: "published" });
        continue;
      }
      current ??= bytesOf(file);
      const mine = current === null ? null : bytesOf(c.entry.path);
      if (current !== null && mine !== null && mine.equals(current)) {
        plan.steps.push({ kind: "drop-claim", entry: c.entry, why: "same-bytes" });
        continue;
      }
      plan.conflict = {
        found: `${quotedPath(c.entry.path)} holds the version of ${file} that an interrupted edit set aside, and ${file} was written since by another program`,
        todo: `compare the two, keep what you want as ${quotedPath(name)}, delete ${quotedPath(c.entry.name)}`,
      };
      return plan;
    }
  }
  for (const t of temps) {
    if (t.nlink === 1n) plan.steps.push({ kind: "drop-temp", entry: t.entry, published: false });
    else if (t.nlink === 2n && t.ino === targetIno) plan.steps.push({ kind: "drop-temp", entry: t.entry, published: true });
    else plan.planted.push({ entry: t.entry, reason: `has ${t.nlink} hard links` });
  }
  return plan;
}

/** What one step does, in words (after `repaired an interrupted edit of F: `). */
export function describeStep(step: LeftoverStep): string {
  switch (step.kind) {
    case "restore":
      return `put its previous version back (it had been set aside as ${step.entry.name})`;
    case "finish-restore":
      return `finished putting its previous version back (removed its second name ${step.entry.name})`;
    case "drop-claim":
      return step.why === "published"
        ? `the new version was in place; removed the previous one set aside as ${step.entry.name}`
        : `removed ${step.entry.name}, a copy of the file as it is now`;
    case "drop-temp":
      return step.published ? `removed ${step.entry.name}, a second name of the file as it is now` : `removed an unfinished new version (${step.entry.name})`;
  }
}

/** What one step's entry is, in words (for `doctor`, which changes nothing). */
export function describeFound(step: LeftoverStep): string {
  const n = step.entry.name;
  switch (step.kind) {
    case "restore":
      return `${n} is its previous version, with no file in its place`;
    case "finish-restore":
      return `${n} is a second name of the file, left by an unfinished put-back`;
    case "drop-claim":
      return step.why === "published" ? `${n} is the previous version, which a finished edit replaced` : `${n} is a copy of the file as it is now`;
    case "drop-temp":
      return step.published ? `${n} is a second name of the file as it is now` : `${n} is an unfinished new version`;
  }
}

/** One line per entry left alone because no interrupted edit leaves it. */
export function plantedLines(plan: LeftoverPlan, verb: string, shown: string): string[] {
  return plan.planted.map(
    (p) => `${verb}: left ${quotedPath(p.entry.path)} alone: it is named like a private file of ${shown}'s edits but ${p.reason}, which no interrupted edit leaves; move it away if you do not need it`,
  );
}

/**
 * Repairs `plan` (from `planLeftovers`): each step is idempotent and the private name that
 * marks work as pending goes last, so a repair killed at any step is finished by the next
 * run (failpoints `recover-after-restore`, `recover-after-claim-drop`,
 * `recover-after-temp-drop`, docs/decisions/failpoints.md). A restore links (never renames): it
 * cannot replace a file that appeared meanwhile. With `dryRun`, nothing changes and each
 * line says what would be done.
 * @returns one stderr line per step and per planted entry, prefixed with `verb`:
 *   `install: repaired an interrupted edit of .claude/settings.json: put its previous version back (…)`.
 * @throws Refused (exit 2) for a conflict (nothing changed), or when a file appeared at the
 *   name while its previous version was being put back (that file and the claim both kept).
 */
export async function repairLeftovers(plan: LeftoverPlan, verb: string, shown: string, opts: { dryRun?: boolean; failpoint?: string } = {}): Promise<string[]> {
  if (plan.conflict !== null) throw conflictRefusal(plan.conflict);
  const lines: string[] = [];
  for (const step of plan.steps) {
    if (opts.dryRun) {
      lines.push(`${verb}: found an interrupted edit of ${shown}; without --dry-run: ${describeStep(step)}`);
      continue;
    }
    const p = step.entry.path;
    if (step.kind === "restore") {
      try {
        linkSync(p, plan.file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EEXIST") {
          throw new Refused(`${plan.file} appeared while its previous version was being put back from ${quotedPath(p)}; both were kept; run this again`);
        }
        throw err;
      }
      await failpoint(opts.failpoint, "recover-after-restore");
    }
    try {
      unlinkSync(p);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
    await failpoint(opts.failpoint, step.kind === "drop-temp" ? "recover-after-temp-drop" : "recover-after-claim-drop");
    lines.push(`${verb}: repaired an interrupted edit of ${shown}: ${describeStep(step)}`);
  }
  return [...lines, ...plantedLines(plan, verb, shown)];
}

/** The refusal for a conflict: what was found, that nothing changed, what to do. */
export function conflictRefusal(c: { found: string; todo: string }): Refused {
  return new Refused(`${c.found}; nothing was changed. To go on, ${c.todo}, then run this again`);
}

/** The claim a repair would put back as the file (for `--dry-run`'s view of the file), or null. */
export function restoredFrom(plan: LeftoverPlan): string | null {
  const step = plan.steps.find((s) => s.kind === "restore");
  return step ? step.entry.path : null;
}
