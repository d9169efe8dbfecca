import { quotedValue } from "../guard/quote.ts";
import { quotedPath } from "../schema/anchor-lines.ts";
import path from "node:path";
import { HelperError, Refused, UsageError } from "../errors.ts";
import { TOKEN_PATTERN } from "../store/files.ts";
import { exists, findRoot } from "../store/root.ts";
import type { VerbContext } from "./types.ts";

/**
 * The root every verb works in (contract "Words" 1.1, ruling 12; docs/design.md#the-root): found from `--root DIR` when
 * given, else from `fallbackStart` (the hook's stdin `cwd`), else from the current directory,
 * by `findRoot` (real path first, then up to `.ai/memory` or `.git`). When the root differs
 * from the real path of a `--root` given, `using root <path>` goes to stderr once.
 * @throws Refused (exit 2) when the start does not exist, is not a directory or is `$HOME`;
 *   UsageError for `--root ''`.
 */
export function rootOption(ctx: VerbContext, fallbackStart: string | null = null): string {
  const value = ctx.values.root;
  if (value === "") throw new UsageError("--root needs a folder: pass --root <project>, or leave it out to start from the current folder");
  const given = typeof value === "string";
  const found = findRoot(path.resolve(ctx.cwd, given ? value : (fallbackStart ?? ".")), ctx.env);
  if (given && found.root !== found.start) ctx.warn(`using root ${found.root}`);
  // Without --root the user may not know the walk stopped short (docs/design.md#the-root).
  // A memory adopted above a start that is in no git repository may be anyone's: say whose.
  if (!given && found.by === "memory" && found.root !== found.start && !exists(path.join(found.root, ".git"))) {
    ctx.warn(`using the memory of ${quotedPath(found.root)}, found above ${quotedPath(found.start)}, which is in no git repository: pass --root <project> to choose another`);
  }
  if (!given && found.stopped) ctx.warn(`stopped looking for the project root at ${quotedPath(found.stopped.at)} (${found.stopped.why}); using ${quotedPath(found.root)}: pass --root <project> to choose another`);
  return found.root;
}

/** `--expected-current-sha256 TOKEN`: `absent` or 64 lowercase hex (docs/design.md#tokens-and-the-publication-protocol). */
export function expectedTokenOption(ctx: VerbContext): string {
  const value = ctx.values["expected-current-sha256"];
  if (typeof value !== "string") {
    throw new UsageError("--expected-current-sha256 TOKEN is required: pass the CURRENT-SHA256 token from `read` (or `absent`)");
  }
  if (!TOKEN_PATTERN.test(value)) {
    throw new Refused(`--expected-current-sha256 must be \`absent\` or 64 lowercase hex characters, got ${quotedValue(value.slice(0, 80))}`);
  }
  return value;
}

/** `--lock-timeout SECONDS`: a decimal ≥ 0, default 10 (docs/design.md#tokens-and-the-publication-protocol). */
export function lockTimeoutOption(ctx: VerbContext): number {
  const value = ctx.values["lock-timeout"];
  if (value === undefined) return 10;
  if (typeof value !== "string" || !/^\d+(\.\d+)?$/.test(value)) {
    throw new UsageError(`--lock-timeout takes seconds as a decimal number ≥ 0, got ${quotedValue(String(value))}`);
  }
  return Number(value);
}

/** The failpoint seam's variable (docs/decisions/failpoints.md). */
export function failpointOf(ctx: VerbContext): string | undefined {
  return ctx.env.MEMORY_IO_FAILPOINT || undefined;
}

/** The root rule, as every verb's `--help` states it (contract "Words", ruling 12, docs/design.md#the-root). */
export const ROOT_HELP = `
The root: the real path of --root DIR (else the current directory), unless it holds
.ai/memory itself the nearest folder above holding .ai/memory or .git (a worktree's .git
file counts); never $HOME or above it from below it, nor into GIT_CEILING_DIRECTORIES;
else the start. The walk stops (stderr says where) at a folder of another user (root's
excepted) or a sticky one anyone can write to (/tmp), unless git's safe.directory lists
it, and adopts a .ai/memory above only when .ai and memory are yours or root's. A start
or --root equal to $HOME is refused: "not a project: run it from a project folder or
pass --root <project>". If the root differs from --root, stderr says \`using root <path>\`.
`;

/** Shared parseArgs options. */
export const ROOT = { root: { type: "string" } } as const;
export const CAS = {
  root: { type: "string" },
  "expected-current-sha256": { type: "string" },
  "lock-timeout": { type: "string" },
} as const;

/**
 * Reads stdin now (bounded: ruling 27; docs/design.md#tokens-and-the-publication-protocol) and returns a function that gives the bytes or throws
 * the refusal, so that a mutating verb refuses a too-long stdin in contract §2's order (docs/design.md#tokens-and-the-publication-protocol)
 * (usage, then paused, then busy, then the rest) by calling it from `validate`.
 */
export async function stdinForValidate(ctx: VerbContext, maxBytes?: number): Promise<() => Buffer> {
  try {
    const bytes = await ctx.readStdin(maxBytes);
    return () => bytes;
  } catch (err) {
    if (!(err instanceof HelperError)) throw err;
    return () => {
      throw err;
    };
  }
}
