// `require` skips the view of every export an ES import builds (node:fs's `promises` alone costs a session start
// ~2.5 ms): docs/decisions/hook-startup.md.
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
