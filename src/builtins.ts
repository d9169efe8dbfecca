// Node builds every export of a built-in module imported as an ES module (node:util then loads
// its worker and diff code, node:crypto all of its ciphers, node:child_process the network
// stack): ~10 ms that a session start mostly does not need. These load them with require, on
// first use (docs/decisions/hook-startup.md).
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

export const nodeCrypto = (): typeof import("node:crypto") => load("node:crypto");
export const nodeUtil = (): typeof import("node:util") => load("node:util");
export const childProcess = (): typeof import("node:child_process") => load("node:child_process");
