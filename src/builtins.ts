// Imported as an ES module, a built-in builds every export (node:crypto all of its ciphers): ~10 ms
// a session start mostly does not need; these require them on first use (docs/decisions/hook-startup.md).
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

export const nodeCrypto = (): typeof import("node:crypto") => load("node:crypto");
export const nodeUtil = (): typeof import("node:util") => load("node:util");
export const childProcess = (): typeof import("node:child_process") => load("node:child_process");
