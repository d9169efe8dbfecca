import type { HelperLocation } from "./types.ts";

/** A POSIX shell word for `s`: single-quoted, with `'` written as `'\''`. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * The shell command an installed hook runs (contract §7 last sentence, §9): exits 0 with
 * nothing printed when the helper file is missing (a branch without the skill checked out),
 * else runs it. With `projectVar` and a skill inside the project, the path is relative to
 * that variable, so a committed settings file works in every clone; otherwise absolute and
 * quoted (paths with spaces are common; harnesses.md).
 */
export function hookCommand(helper: HelperLocation, args: string, projectVar: string | null): string {
  const file = projectVar !== null && helper.rel !== null ? `"$${projectVar}"/${shellQuote(helper.rel)}` : shellQuote(helper.abs);
  return `f=${file}; [ ! -f "$f" ] || node "$f" ${args}`;
}
