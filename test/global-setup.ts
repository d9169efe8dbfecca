import { execFileSync } from "node:child_process";

// Integration tests spawn the built bundle; build it once from the current src/.
export default function setup(): void {
  execFileSync(process.execPath, ["build.mjs"], { stdio: "inherit" });
}
