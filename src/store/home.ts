import { homedir } from "node:os";
import path from "node:path";

/**
 * The user's home folder as `os.homedir()` finds it, but read from `env` (a verb's environment,
 * which tests set): USERPROFILE on Windows (cmd and PowerShell set no HOME), HOME elsewhere;
 * `os.homedir()` when that variable is unset; "" when it is set but empty.
 */
export function homeFolder(env: Record<string, string | undefined>, platform = process.platform): string {
  const value = platform === "win32" ? env.USERPROFILE : env.HOME;
  return value ?? homedir();
}

/**
 * True when two absolute paths name the same folder: on Windows compared as Windows compares
 * them (either slash, any case, a trailing separator ignored), elsewhere byte for byte.
 */
export function samePath(a: string, b: string, platform = process.platform): boolean {
  if (platform !== "win32") return a === b;
  const norm = (p: string) => path.win32.resolve(p).toLowerCase();
  return norm(a) === norm(b);
}
