import { quotedPath, quotedValue } from "../guard/quote.ts";
import path from "node:path";
import { HelperError, UsageError } from "../errors.ts";
import { exists, TOKEN_PATTERN } from "../store/files.ts";
import { findRoot } from "../git/root.ts";
import { renderEnvelope } from "../guard/untrusted.ts";
import { ok, type Outcome, type VerbContext } from "./types.ts";

const CHOOSE = "pass --root <project> to choose another";

/** The root (docs/design.md#the-root) found from `--root DIR`, else `fallbackStart` (the hook's `cwd`), else here. */
export function rootOption(ctx: VerbContext, fallbackStart: string | null = null): string {
  const value = ctx.values.root;
  const leave = "or leave it out to start from the current folder";
  if (value === "") throw new UsageError(`--root needs a folder: pass --root <project>, ${leave}`);
  const given = typeof value === "string";
  const found = findRoot(path.resolve(ctx.cwd, given ? value : (fallbackStart ?? ".")), ctx.env);
  if (given && found.root !== found.start) ctx.warn(`using root ${found.root}`);
  // Without --root the user may not know the walk adopted a memory above a start in no repository: say whose.
  const [root, start] = [quotedPath(found.root), quotedPath(found.start)];
  if (!given && found.by === "memory" && found.root !== found.start && !exists(path.join(found.root, ".git"))) {
    ctx.warn(`using the memory of ${root}, found above ${start}, which is in no git repository: ${CHOOSE}`);
  }
  if (!given && found.stopped) {
    const at = quotedPath(found.stopped.at);
    ctx.warn(`stopped looking for the project root at ${at} (${found.stopped.why}); using ${root}: ${CHOOSE}`);
  }
  return found.root;
}

/** `--expected-current-sha256 TOKEN`: `absent` or 64 lowercase hex. */
export function expectedTokenOption(ctx: VerbContext): string {
  const value = ctx.values["expected-current-sha256"];
  if (typeof value !== "string") {
    const todo = "pass the CURRENT-SHA256 token from `read` (or `absent`)";
    throw new UsageError(`--expected-current-sha256 TOKEN is required: ${todo}`);
  }
  if (!TOKEN_PATTERN.test(value)) {
    const got = quotedValue(value.slice(0, 80));
    throw new UsageError(`--expected-current-sha256 must be \`absent\` or 64 lowercase hex characters, got ${got}`);
  }
  return value;
}

/** `--lock-timeout SECONDS`: a decimal ≥ 0, default 10. */
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

/** A file's bytes in the untrusted envelope with their token; exit 3 and `CURRENT-SHA256: absent` for none. */
export function envelope(file: string, got: { token: string; bytes: Buffer } | null): Outcome {
  if (got === null) return ok("CURRENT-SHA256: absent\n", [], 3);
  const { out, warning } = renderEnvelope(file, got.token, got.bytes);
  return ok(out, warning ? [warning] : []);
}

/** The one line on the root every verb's `--help` carries. */
export const ROOT_HELP = `
root: --root DIR, else found upward from here (references/verbs/root.md)
`;

export const CAS = {
  root: { type: "string" },
  "expected-current-sha256": { type: "string" },
  "lock-timeout": { type: "string" },
} as const;

// Reads stdin now and returns the bytes or the refusal later, so that a too-long stdin is refused in its turn.
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
