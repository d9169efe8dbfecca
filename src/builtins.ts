// How the helper loads Node's built-in modules (docs/decisions/hook-startup.md). Imported as an ES
// module, a built-in first builds a view of every export: node:crypto all of its ciphers, node:util
// worker threads, and node:fs its `promises`, which loads streams and readline (30 internal modules,
// about 2.5 ms of a session start's wall time). `require` skips that view.
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

export const nodeCrypto = (): typeof import("node:crypto") => load("node:crypto");
export const nodeUtil = (): typeof import("node:util") => load("node:util");
export const childProcess = (): typeof import("node:child_process") => load("node:child_process");

const fs: typeof import("node:fs") = load("node:fs");
export type { BigIntStats, Stats } from "node:fs";
export const {
  accessSync, chmodSync, closeSync, constants, existsSync, fchmodSync, fchownSync, fstatSync,
  fsyncSync, lchownSync, linkSync, lstatSync, mkdirSync, mkdtempSync, openSync, readFileSync,
  readSync, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, rmdirSync, statSync,
  symlinkSync, unlinkSync, utimesSync, writeFileSync, writeSync
} = fs;
