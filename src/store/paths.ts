import { quotedValue } from "../guard/quote.ts";
import { lstatSync, mkdirSync } from "../builtins.ts";
import path from "node:path";
import { Refused } from "../errors.ts";

export type Kind = "handoff" | "lessons" | "solutions";

export const FILE_OF: Record<Kind, string> = {
  handoff: "HANDOFF.md",
  lessons: "LESSONS.md",
  solutions: "SOLUTIONS.md",
};

// The heading each kind must carry in its first four lines.
export const HEADING_OF: Record<Kind, string> = {
  handoff: "# Session Handoff",
  lessons: "# Lessons",
  solutions: "# Solutions",
};

export const MAX_DOCUMENT_BYTES = 1_000_000;

// The root files `read --target` and `promote` may touch.
export const TARGETS = ["AGENTS.md", "CLAUDE.md"] as const;

export function archivePrefixOf(file: string): string {
  return file.replace(/\.md$/, "");
}

export function parseKind(value: string | undefined): Kind {
  if (value === "handoff" || value === "lessons" || value === "solutions") return value;
  throw new Refused(`unknown kind ${quotedValue(value ?? "")}: use handoff, lessons or solutions`);
}

export function parseTarget(value: string | undefined): (typeof TARGETS)[number] {
  if (value === "AGENTS.md" || value === "CLAUDE.md") return value;
  throw new Refused(`--target must be AGENTS.md or CLAUDE.md, got ${quotedValue(value ?? "")}`);
}

export function memoryDir(root: string): string {
  return path.join(root, ".ai", "memory");
}

export function archiveDir(root: string): string {
  return path.join(root, ".ai", "memory", "archive");
}

const REAL_DIRS = "memory must live in real directories under the root";

/** Makes `dir` (0700) when missing, and returns it. @throws Refused (exit 2) when it is a link or not a directory. */
export function ensureDir(dir: string): string {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    const why = (err as Error).message;
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new Refused(`cannot create ${dir}: ${why}`);
  }
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (st === undefined || st.isSymbolicLink() || !st.isDirectory()) {
    throw new Refused(`${dir} is a link or not a directory; ${REAL_DIRS} (move it away)`);
  }
  return dir;
}

const MEMORY_SUBDIRS = ["archive", "journal", "checkpoints", "drafts"];

/** The one verdict on the memory tree's folders; a folder of root's is allowed (a save run with sudo made it). */
export function treeVerdict(root: string, uid = process.getuid?.()): "missing" | "ok" | { dir: string; why: string } {
  const mem = memoryDir(root);
  for (const dir of [path.join(root, ".ai"), mem, ...MEMORY_SUBDIRS.map((d) => path.join(mem, d))]) {
    let st;
    try {
      st = lstatSync(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") return { dir, why: `cannot be inspected (${code ?? "error"})` };
      if (dir === mem || dir === path.dirname(mem)) return "missing";
      continue;
    }
    if (st.isSymbolicLink()) return { dir, why: "is a link" };
    if (!st.isDirectory()) return { dir, why: "is not a directory" };
    if (uid !== undefined && st.uid !== uid && st.uid !== 0) {
      return { dir, why: `belongs to another user (uid ${st.uid})` };
    }
  }
  return "ok";
}

/** Checks the memory tree (with `create`, makes it); true when the memory dir exists. @throws Refused. */
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
  throw new Refused(treeRefusal(verdict));
}

/** What is wrong with an unsafe memory tree and what to do, as every verb says it. */
export function treeRefusal({ dir, why }: { dir: string; why: string }): string {
  if (why === "is a link") return `${dir} is a link; ${REAL_DIRS} (move the link away)`;
  if (why === "is not a directory") return `${dir} is not a directory; move it away so the memory tree can be used`;
  return `${dir} ${why}; memory must live in real directories of yours under the root (move it away)`;
}
