import { homedir } from "node:os";
import path from "node:path";

/** The home folder from `env` (a verb's environment): USERPROFILE on Windows, which sets no HOME; "" when empty. */
export function homeFolder(env: Record<string, string | undefined>, platform = process.platform): string {
  const value = platform === "win32" ? env.USERPROFILE : env.HOME;
  return value ?? homedir();
}

/** True when two absolute paths name the same folder, compared as the platform compares them. */
export function samePath(a: string, b: string, platform = process.platform): boolean {
  if (platform !== "win32") return a === b;
  const norm = (p: string) => path.win32.resolve(p).toLowerCase();
  return norm(a) === norm(b);
}

/** `${XDG_CONFIG_HOME:-$HOME/.config}/session-handoff`: the per-user folder of ours. */
export function userDir(env: Record<string, string | undefined>, home = homeFolder(env)): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(home, ".config"), "session-handoff");
}
