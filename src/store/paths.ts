import { quotedValue } from "../guard/quote.ts";
import { lstatSync, mkdirSync, type Stats } from "node:fs";
import path from "node:path";
import { Refused } from "../errors.ts";

/** The three memory kinds. */
export type Kind = "handoff" | "lessons" | "solutions";

/** File name of each kind under the memory dir (docs/design.md#files-on-disk). */
export const FILE_OF: Record<Kind, string> = {
  handoff: "HANDOFF.md",
  lessons: "LESSONS.md",
  solutions: "SOLUTIONS.md",
};

/** The heading each kind must carry in its first four lines (docs/design.md#files-on-disk). */
export const HEADING_OF: Record<Kind, string> = {
  handoff: "# Session Handoff",
  lessons: "# Lessons",
  solutions: "# Solutions",
};

/** The exact first line of every memory document (docs/design.md#files-on-disk). */
export const MARKER = "<!-- memory-schema: v1 -->";

/** Largest memory document, in bytes (docs/design.md#files-on-disk). */
export const MAX_DOCUMENT_BYTES = 1_000_000;

/** Root-level files `read-target` and `promote` may touch (docs/design.md#tokens-and-the-publication-protocol). */
export const TARGETS = ["AGENTS.md", "CLAUDE.md"] as const;
export type Target = (typeof TARGETS)[number];

/** Prefix of a file's archive names (docs/design.md#files-on-disk): `HANDOFF.md` -> `HANDOFF`. */
export function archivePrefixOf(file: string): string {
  return file.replace(/\.md$/, "");
}

/** Parses a kind argument; throws `UsageError`-like `Refused` (exit 2) naming the allowed ones. */
export function parseKind(value: string | undefined): Kind {
  if (value === "handoff" || value === "lessons" || value === "solutions") return value;
  throw new Refused(`unknown kind ${quotedValue(value ?? "")}: use handoff, lessons or solutions`);
}

/** Parses `--target`; throws `Refused` (exit 2) unless it is AGENTS.md or CLAUDE.md. */
export function parseTarget(value: string | undefined): Target {
  if (value === "AGENTS.md" || value === "CLAUDE.md") return value;
  throw new Refused(`--target must be AGENTS.md or CLAUDE.md, got ${quotedValue(value ?? "")}`);
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new Refused(`cannot inspect ${p}: ${(err as Error).message}`);
  }
}

/** `<root>/.ai/memory`. */
export function memoryDir(root: string): string {
  return path.join(root, ".ai", "memory");
}

/** `<root>/.ai/memory/archive`. */
export function archiveDir(root: string): string {
  return path.join(root, ".ai", "memory", "archive");
}

/**
 * Makes `dir` (mode 0700) when missing and checks it is a real directory.
 * @throws Refused (exit 2) when it is a link or not a directory.
 */
export function ensureDir(dir: string): void {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new Refused(`cannot create ${dir}: ${(err as Error).message}`);
  }
  const st = lstatOrNull(dir);
  if (st === null || st.isSymbolicLink() || !st.isDirectory()) {
    throw new Refused(`${dir} is a link or not a directory; memory must live in real directories under the root (move it away)`);
  }
}

/** The folders the helper keeps under the memory dir (docs/design.md#the-memory-dir). */
export const MEMORY_SUBDIRS = ["archive", "journal", "checkpoints", "drafts"] as const;

/**
 * The one verdict on the memory tree's folders, every verb's (docs/design.md#the-memory-dir):
 * `missing` when `.ai` or the memory dir is absent, `ok`, or why it is unsafe: `.ai`, the memory
 * dir or any of {@link MEMORY_SUBDIRS} that exists is a link, not a folder, unreadable, or
 * another user's (root's excepted: a save run with sudo). Never follows a link.
 */
export function treeVerdict(root: string, uid: number | undefined = process.getuid?.()): "missing" | "ok" | { dir: string; why: string } {
  const mem = memoryDir(root);
  for (const dir of [path.join(root, ".ai"), mem, ...MEMORY_SUBDIRS.map((d) => path.join(mem, d))]) {
    let st: Stats;
    try {
      st = lstatSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") return { dir, why: `cannot be inspected (${(err as NodeJS.ErrnoException).code ?? "error"})` };
      if (dir === mem || dir === path.dirname(mem)) return "missing";
      continue;
    }
    if (st.isSymbolicLink()) return { dir, why: "is a link" };
    if (!st.isDirectory()) return { dir, why: "is not a directory" };
    if (uid !== undefined && st.uid !== uid && st.uid !== 0) return { dir, why: `belongs to another user (uid ${st.uid})` };
  }
  return "ok";
}

/**
 * Checks the memory tree by {@link treeVerdict}; with `create`, makes `.ai` and the memory
 * dir (mode 0700) when missing (docs/design.md#files-on-disk).
 * @returns true when the memory dir exists (after creation, when asked).
 * @throws Refused (exit 2) when a folder of the tree is a link, not a folder or another user's.
 */
export function checkTree(root: string, opts: { create?: boolean } = {}): boolean {
  let verdict = treeVerdict(root);
  if (verdict === "missing") {
    if (!opts.create) return false;
    ensureDir(path.join(root, ".ai"));
    ensureDir(memoryDir(root));
    verdict = treeVerdict(root);
  }
  if (verdict === "ok") return true;
  if (verdict === "missing") return false;
  const { dir, why } = verdict;
  if (why === "is a link") throw new Refused(`${dir} is a link; memory must live in real directories under the root (move the link away)`);
  if (why === "is not a directory") throw new Refused(`${dir} is not a directory; move it away so the memory tree can be used`);
  throw new Refused(`${dir} ${why}; memory must live in real directories of yours under the root (move it away)`);
}
