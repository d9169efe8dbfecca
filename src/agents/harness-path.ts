// Paths a harness hands us (the hook input's `cwd` and `transcript_path`, a transcript's recorded
// `cwd` and `--root`) come from the harness's OS, not ours. On Windows they are `C:\…` or
// `\\server\share\…` (docs/design.md#integrations); read the POSIX way, such a path is relative,
// and `path.resolve` would join it under the current folder. So a Windows-shaped path is parsed
// with `path.win32` whatever the OS: on Windows it is used, anywhere else it is refused by name.
import { quotedValue } from "../guard/quote.ts";
import { quotedPath } from "../schema/anchor-lines.ts";
import path from "node:path";

/** True for a Windows path: a drive letter (`C:\…`, `C:/…`, `C:…`) or `\\` (UNC, `\\?\`). */
export function windowsShaped(p: string): boolean {
  return /^([A-Za-z]:|\\\\)/.test(p);
}

/** A harness's path as this OS opens it, or why it cannot be used. */
type HarnessPath = { ok: true; path: string } | { ok: false; reason: string; windows: boolean };

/**
 * Reads the absolute path `p` that a harness gave for `what`: a Windows-shaped one through
 * `path.win32`, normalised on Windows and refused elsewhere; a NUL byte is refused. Never throws.
 */
export function harnessPath(what: string, p: string, platform: NodeJS.Platform = process.platform): HarnessPath {
  const windows = windowsShaped(p);
  const absolute = (windows || platform === "win32" ? path.win32 : path.posix).isAbsolute(p);
  if (p.includes("\0") || !absolute) return { ok: false, reason: `${what} is not an absolute path`, windows };
  if (windows && platform !== "win32") {
    const reason = `${what} ${quotedPath(p.slice(0, 200))} is a Windows path and this helper runs on ${platform}`;
    return { ok: false, reason, windows };
  }
  return { ok: true, path: platform === "win32" ? path.win32.normalize(p) : p };
}

/**
 * The hook input's `cwd` as a place to start the root walk, or null when it has none. Throws, naming
 * what was given, when it cannot be used: the hook must not guess a project.
 */
export function hookCwd(cwd: unknown, platform: NodeJS.Platform = process.platform): string | null {
  if (cwd === undefined || cwd === null) return null;
  const what = "the hook input's cwd";
  if (typeof cwd !== "string") throw new Error(`${what} is not a string (pass --root <project>)`);
  if (cwd === "") throw new Error(`${what} is empty (pass --root <project>)`);
  const got = harnessPath(what, cwd, platform);
  if (got.ok) return got.path;
  if (got.windows) throw new Error(`${got.reason} (pass --root <project>)`);
  throw new Error(`${what} ${quotedValue(cwd.slice(0, 200))} is not an absolute path (pass --root <project>)`);
}
