// Test helpers: real git repositories in temp dirs, removed when the test finishes.
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { onTestFinished } from "vitest";

export const DAY = 86_400_000;

/** Environment for git in tests: no user or system config, so results do not depend on the machine. */
export const ENV: Record<string, string> = {
  ...(Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && (!k.startsWith("GIT_") || k === "GIT_CEILING_DIRECTORIES"))) as Record<string, string>),
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

/** A fresh temp dir (real path), removed after the test. */
export function tempDir(prefix = "sh-git-"): string {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const USER = ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", "-c", "advice.detachedHead=false"];

/** Runs git with the test user config; `at` (ms) sets author and committer dates. */
export function git(cwd: string, args: string[], at?: number): string {
  const env: Record<string, string> = { ...ENV };
  if (at !== undefined) {
    const d = `@${Math.floor(at / 1000)} +0000`;
    env.GIT_AUTHOR_DATE = d;
    env.GIT_COMMITTER_DATE = d;
  }
  return execFileSync("git", [...USER, ...args], { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** Writes files (relative path -> content) under `dir`, making folders. */
export function writeTree(dir: string, tree: Record<string, string>): void {
  for (const [rel, content] of Object.entries(tree)) {
    const p = path.join(dir, rel);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, content);
  }
}

/** Commits everything in `dir` (or an empty commit) at time `at`; returns the new HEAD. */
export function commit(dir: string, message: string, at: number, tree: Record<string, string> = {}): string {
  writeTree(dir, tree);
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-q", "--allow-empty", "-m", message], at);
  return git(dir, ["rev-parse", "HEAD"]);
}

/** A new repository with one commit at `at`; returns its path. */
export function newRepo(at: number, tree: Record<string, string> = { "README.md": "hi\n" }): string {
  const dir = tempDir();
  git(dir, ["init", "-q"]);
  commit(dir, "initial", at, tree);
  return dir;
}

/** ISO-8601 UTC with Z for ms. */
export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Fields of a handoff's anchors and key files. */
export interface HandoffSpec {
  saved?: string | null;
  branch?: string | null;
  head?: string | null;
  dirty?: string | null;
  date?: string | null;
  keyFiles?: string[];
  anchors?: boolean;
  goal?: string;
}

/** A schema-v1 handoff with the given anchors (null omits a line). */
export function handoff(s: HandoffSpec): string {
  const lines = ["<!-- memory-schema: v1 -->", "# Session Handoff", ""];
  if (s.saved !== null && s.saved !== undefined) lines.splice(2, 0, `Saved: ${s.saved}`);
  lines.push("## Current goal", s.goal ?? "Make the parser fast.", "", "## Plan", "- [x] profile", "- [~] rewrite the tokenizer", "- [ ] benchmark", "");
  lines.push("## Decisions", "- [user-directed] keep the API", "", "## Failed approaches", "- caching tokens: memory blew up", "");
  lines.push("## Open questions", "- none", "", "## Next steps", "- run `npm test` in src/", "");
  lines.push("## Key files", ...(s.keyFiles ?? ["README.md — entry"]).map((k) => `- ${k}`), "");
  if (s.anchors !== false) {
    lines.push("## Environment anchors");
    if (s.branch !== null) lines.push(`- Branch: ${s.branch ?? "main"}`);
    if (s.head !== null) lines.push(`- HEAD: ${s.head ?? ""}`);
    if (s.dirty !== null) lines.push(`- Dirty files: ${s.dirty ?? "none"}`);
    if (s.date !== null) lines.push(`- Date: ${s.date ?? ""}`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * A directory holding a `git` that logs its argument vector (one argument per line, a blank
 * line after each call) to `log`, then runs the real git: not a mock, a witness.
 */
export function loggingGit(): { bin: string; log: string } {
  const dir = tempDir("sh-gitlog-");
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  const log = path.join(dir, "argv.log");
  const bin = path.join(dir, "bin");
  mkdirSync(bin);
  // One printf per call, so a call's lines land in one append even when the helper runs git processes at once.
  writeFileSync(path.join(bin, "git"), `#!/bin/sh\nprintf '%s\\n' "$@" '' >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(path.join(bin, "git"), 0o755);
  writeFileSync(log, "");
  return { bin, log };
}

/** The git processes `loggingGit` saw, each its arguments after the settings the runner adds (`-c k=v`, --no-pager). */
export function gitCalls(log: string): string[][] {
  return readFileSync(log, "utf8").split("\n\n").filter((c) => c !== "").map((c) => {
    const argv = c.split("\n");
    return argv.filter((a, i) => a !== "-c" && argv[i - 1] !== "-c" && a !== "--no-pager");
  });
}
