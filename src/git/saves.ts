// Which handoffs this clone saved (docs/design.md#verdicts-and-the-brief): the tokens of its
// last handoff saves in `<git dir>/session-handoff/saves`, never in the memory dir (which a
// pull or a merge brings from elsewhere). Files only, no git process: the hook reads it.
import { closeSync, constants, existsSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";
import { nodeCrypto } from "../builtins.ts";
import { commonDirOf, gitDirOf, gitTopOf } from "./git-dir.ts";

export const SAVES_KEPT = 10;

/**
 * `<common git dir>/session-handoff/saves` for the repository holding `root`; null outside git,
 * or when that repository is above a folder the root walk distrusts (`gitTopOf`; `opts.uid`: tests).
 */
export function savesPath(root: string, opts: { uid?: number } = {}): string | null {
  const top = gitTopOf(root, opts);
  const gitDir = top === null ? null : gitDirOf(top);
  return gitDir === null ? null : path.join(commonDirOf(gitDir), "session-handoff", "saves");
}

// Each line: `<token>` then, when known, the published file's `<size> <mtime ns> <ctime ns> <inode>`,
// then `@<Saved: stamp>` (a hand edit or the merge driver changes the token, never the stamp).
const LINE = /^([0-9a-f]{64})(?: (\d+ \d+ \d+ \d+))?(?: @(\S+))?$/;
function savesLines(p: string): RegExpExecArray[] {
  const lines = readFileSync(p, "utf8").slice(0, 16384).split("\n");
  return lines.map((l) => LINE.exec(l)).filter((m): m is RegExpExecArray => m !== null);
}

/**
 * What tells a save of this clone apart in a handoff's text: its `Saved:` stamp (to the second)
 * and the first 12 digits of its HEAD anchor, which a hand edit or the merge driver keeps; two
 * clones saving in one second on different commits then differ. Null without a `Saved:` line.
 */
export function savedStampOf(text: string): string | null {
  const saved = /^Saved: (\S+)[ \t]*\r?$/m.exec(text)?.[1];
  if (saved === undefined) return null;
  const head = /^- HEAD: ([0-9a-f]{12})/m.exec(text)?.[1];
  return head === undefined ? saved : `${saved}+${head}`;
}

// The line `write` puts after `Saved:`: which clone saved the handoff, by a random id kept in
// that clone's git dir, so two clones saving in one second on one commit never pass for each other.
const CLONE_MARK = /^<!-- saved in clone ([0-9a-f]{16}) -->[ \t]*\r?$/m;

/** This clone's id (`create`: made on the first save); null outside git, or none yet. */
export function cloneIdOf(root: string, create = false): string | null {
  const saves = savesPath(root);
  if (saves === null) return null;
  const p = path.join(path.dirname(saves), "clone-id");
  if (create && !existsSync(p)) {
    const tmp = `${p}.tmp-${process.pid}`;
    try {
      mkdirSync(path.dirname(p), { recursive: true, mode: 0o700 });
      writeFileSync(tmp, `${nodeCrypto().randomBytes(8).toString("hex")}\n`, { mode: 0o600 });
      // A link never replaces: of two first saves at once, both use the id that landed first.
      linkSync(tmp, p);
    } catch {
      // another save made it first, or a read-only git dir (the stamp then tells this clone's saves)
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  try {
    const id = readFileSync(p, "utf8").trim();
    return /^[0-9a-f]{16}$/.test(id) ? id : null;
  } catch {
    return null;
  }
}

/** The handoff text with this clone's mark after its `Saved:` line (an earlier mark replaced); as is with no id. */
export function markClone(text: string, id: string | null): string {
  if (id === null) return text;
  const lines = text.split("\n").filter((l) => !CLONE_MARK.test(l));
  const saved = lines.findIndex((l) => /^Saved:/.test(l));
  if (saved === -1) return text;
  lines.splice(saved + 1, 0, `<!-- saved in clone ${id} -->`);
  return lines.join("\n");
}

/**
 * Whether this clone saved the text, by its clone mark: true or false when both the mark and
 * this clone's id exist, null when either is missing (the stamp and token then decide).
 */
export function markedHere(root: string, text: string | null): boolean | null {
  const mark = text === null ? undefined : CLONE_MARK.exec(text)?.[1];
  const id = mark === undefined ? null : cloneIdOf(root);
  return mark === undefined || id === null ? null : mark === id;
}

/** A file's identity as the saves record keeps it: size, mtime and ctime in ns, inode. */
export function statKey(st: { size: bigint; mtimeNs: bigint; ctimeNs: bigint; ino: bigint }): string {
  return `${st.size} ${st.mtimeNs} ${st.ctimeNs} ${st.ino}`;
}

/**
 * True when the handoff is still the very file one of this clone's saves published (same
 * size, mtime, ctime and inode as recorded): then it was saved here, with no hashing (the
 * hook then loads no crypto). False means "not known so": the caller hashes.
 */
export function savedHereByStat(root: string, key: string): boolean {
  const p = savesPath(root);
  if (p === null) return false;
  try {
    return savesLines(p).some((m) => m[2] === key);
  } catch {
    return false;
  }
}

// Replaces the record at `p` with `lines` by a rename, so a reader never sees half of it.
function replaceLines(p: string, lines: string[]): void {
  const tmp = `${p}.tmp-${process.pid}`;
  const fd = openSync(
    tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0), 0o600,
  );
  try {
    writeSync(fd, `${lines.join("\n")}\n`);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, p);
}

/** The tokens and `Saved:` stamps this clone recorded; null outside git or before its first save with this version. */
export function readSaves(root: string): { tokens: string[]; stamps: string[] } | null {
  const p = savesPath(root);
  if (p === null) return null;
  try {
    if (!lstatSync(p).isFile()) return null;
    const lines = savesLines(p);
    return { tokens: lines.map((m) => m[1]!), stamps: lines.flatMap((m) => (m[3] === undefined ? [] : [m[3]])) };
  } catch {
    return null;
  }
}

/** Records a handoff save's token (the last SAVES_KEPT kept), through a temp file and a rename. */
export function recordSave(root: string, token: string, key: string | null = null, stamp: string | null = null): void {
  const p = savesPath(root);
  if (p === null || !/^[0-9a-f]{64}$/.test(token)) return;
  try {
    mkdirSync(path.dirname(p), { recursive: true, mode: 0o700 });
    let kept: string[] = [];
    try {
      kept = savesLines(p)
        .filter((m) => m[1] !== token)
        .map((m) => m[0]);
    } catch {
      // the first save recorded
    }
    const safeStamp = stamp !== null && /^\S{1,64}$/.test(stamp) ? ` @${stamp}` : "";
    kept.push(`${token}${key === null ? "" : ` ${key}`}${safeStamp}`);
    replaceLines(p, kept.slice(-SAVES_KEPT));
  } catch {
    // a read-only git dir: the save stands, provenance is unknown
  }
}

/**
 * True when this clone's record exists and holds neither `token` nor the text's `Saved:` stamp
 * (a handoff saved here keeps its stamp through a hand edit or the merge driver); false
 * outside git or before the first recorded save.
 */
export function notSavedHere(root: string, token: string, text: string | null = null): boolean {
  const marked = markedHere(root, text);
  if (marked !== null) return !marked;
  const saves = readSaves(root);
  if (saves === null || saves.tokens.includes(token)) return false;
  const stamp = text === null ? null : savedStampOf(text);
  return stamp === null || !saves.stamps.includes(stamp);
}

/**
 * The harness a save ran in, from what each sets in its tools' environment: Claude Code
 * `CLAUDECODE`, Gemini CLI `GEMINI_CLI`, Codex `CODEX_*` but CODEX_HOME (its sandbox's or npm launcher's),
 * OpenCode `OPENCODE`; `SESSION_HANDOFF_AGENT` names it when none of these is set. Null: unknown.
 */
export function agentOfEnv(env: Record<string, string | undefined>): string | null {
  const named = env.SESSION_HANDOFF_AGENT?.trim() ?? "";
  if (/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,39}$/.test(named)) return named;
  if (env.CLAUDECODE === "1" || env.CLAUDE_CODE_ENTRYPOINT) return "Claude Code";
  if (env.GEMINI_CLI === "1") return "Gemini CLI";
  // CODEX_HOME is the user's own setting, not a sign of a Codex session.
  if (Object.keys(env).some((k) => k.startsWith("CODEX_") && k !== "CODEX_HOME")) return "Codex";
  if (env.OPENCODE === "1") return "OpenCode";
  return null;
}

// `<token> <agent>` per line, in `<git dir>/session-handoff/saved-by` beside `saves`.
const SAVED_BY_LINE = /^([0-9a-f]{64}) ([A-Za-z0-9][A-Za-z0-9 ._-]{0,39})$/;

/** Records which agent made the save of `token` (the last SAVES_KEPT kept). Never throws. */
export function recordSavedBy(root: string, token: string, agent: string | null): void {
  const saves = savesPath(root);
  if (saves === null || agent === null || !SAVED_BY_LINE.test(`${token} ${agent}`)) return;
  const p = path.join(path.dirname(saves), "saved-by");
  try {
    mkdirSync(path.dirname(p), { recursive: true, mode: 0o700 });
    let kept: string[] = [];
    try {
      const lines = readFileSync(p, "utf8").slice(0, 16384).split("\n");
      kept = lines.filter((l) => SAVED_BY_LINE.test(l) && !l.startsWith(token));
    } catch {
      // the first one recorded
    }
    kept.push(`${token} ${agent}`);
    replaceLines(p, kept.slice(-SAVES_KEPT));
  } catch {
    // a read-only git dir: the save stands, the agent is unknown
  }
}

/** The agent this clone recorded for the save of `token`, or null. */
export function savedByOf(root: string, token: string): string | null {
  const saves = savesPath(root);
  if (saves === null) return null;
  try {
    const text = readFileSync(path.join(path.dirname(saves), "saved-by"), "utf8").slice(0, 16384);
    for (const l of text.split("\n")) {
      const m = SAVED_BY_LINE.exec(l);
      if (m && m[1] === token) return m[2]!;
    }
  } catch {
    // none recorded
  }
  return null;
}
