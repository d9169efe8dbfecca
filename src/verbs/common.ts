import { quotedValue } from "../guard/quote.ts";
import { quotedPath } from "../schema/anchor-lines.ts";
import path from "node:path";
import { HelperError, Refused, UsageError } from "../errors.ts";
import { TOKEN_PATTERN } from "../store/files.ts";
import { exists, findRoot } from "../store/root.ts";
import type { VerbContext } from "./types.ts";

/**
 * The root every verb works in (docs/design.md#the-root): found from `--root DIR` when
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

/** `--expected-current-sha256 TOKEN`: `absent` or 64 lowercase hex. */
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

/** The one line on the root every verb's `--help` carries; the rule is in references/verbs.md. */
export const ROOT_HELP = `
root: --root DIR, else found upward from here (references/verbs.md#the-root)
`;

/** Shared parseArgs options. */
export const ROOT = { root: { type: "string" } } as const;
export const CAS = {
  root: { type: "string" },
  "expected-current-sha256": { type: "string" },
  "lock-timeout": { type: "string" },
} as const;

/**
 * Reads stdin now (bounded; docs/design.md#tokens-and-the-publication-protocol) and returns a function that gives the
 * bytes or throws the refusal, so that a mutating verb refuses a too-long stdin in the refusal order of
 * docs/design.md#tokens-and-the-publication-protocol (usage, then paused, then busy, then the rest) by calling it
 * from `validate`.
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
