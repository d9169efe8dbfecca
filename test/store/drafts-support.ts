// Many sessions saving the same project at once through SKILL.md's flow (docs/decisions/drafts.md):
// each is its own process (test/store/draft-saver.mjs) that reads, writes its draft, and saves
// with the compare-and-swap token, all of them past a barrier so their saves overlap. A save
// must publish only the document its own session wrote. Every version is archived here
// (archivesKept), so the token each success printed is traced to the text it published.
// Used by drafts-concurrent.test.ts (every session until saved) and its sample in npm test.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { cleanEnv, gitRepo, handoff, HELPER, save, sha, tempDir } from "../helpers.ts";

const SAVER = path.join(path.dirname(fileURLToPath(import.meta.url)), "draft-saver.mjs");
export const MEM = (root: string) => path.join(root, ".ai", "memory");

interface Attempt {
  round: number;
  draft: string;
  code: number | null;
  stdout: string;
  stderr: string;
  kept: string | null;
}
interface Saver {
  index: number;
  doc: string;
  attempts: Attempt[];
}

function runSaver(root: string, index: number, mode: "own" | "shared", barrier: string, savers: number, rounds: number): Promise<Saver> {
  return new Promise((resolve, reject) => {
    const args = [SAVER, HELPER, root, String(index), mode, barrier, String(savers), String(rounds)];
    const child = spawn(process.execPath, args, { env: cleanEnv(), cwd: root });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out) as Saver) : reject(new Error(`saver ${index} exited ${code}: ${err}`))));
  });
}

// Every version ever published, by its token: the archives (all kept) and the current file.
function versions(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const dir = path.join(MEM(root), "archive");
  for (const n of readdirSync(dir).filter((n) => n.startsWith("HANDOFF-"))) {
    const bytes = readFileSync(path.join(dir, n));
    out.set(sha(bytes), bytes.toString("utf8"));
  }
  const current = readFileSync(path.join(MEM(root), "HANDOFF.md"));
  out.set(sha(current), current.toString("utf8"));
  return out;
}

const goal = (text: string | undefined) => /^SAVER-(\d+):/m.exec(text ?? "")?.[1] ?? `none in ${JSON.stringify(text?.slice(0, 200))}`;

/** Runs `savers` sessions at once, each saving at most `rounds` times; what each did, every version published. */
export async function saveAtOnce(savers: number, mode: "own" | "shared", rounds: number) {
  const root = gitRepo();
  mkdirSync(MEM(root), { recursive: true, mode: 0o700 });
  writeFileSync(path.join(MEM(root), "settings.json"), '{"archivesKept": 1000}\n');
  // A first version, so every session reads a token and every save archives one.
  save(root, handoff("the version every session starts from"), "absent");
  const barrier = tempDir("sh-barrier-");
  const results = await Promise.all(Array.from({ length: savers }, (_, i) => runSaver(root, i, mode, barrier, savers, rounds)));
  return { root, results, versions: versions(root) };
}

/**
 * Every success published its session's own text; every loser was told why and kept its draft;
 * with `all`, every session saved in the end, each version once.
 */
export function checkOutcomes(results: Saver[], published: Map<string, string>, all: boolean): void {
  for (const s of results) {
    const last = s.attempts.at(-1)!;
    if (all) expect(last.code, `saver ${s.index}: ${last.stderr}`).toBe(0);
    for (const a of s.attempts) {
      if (a.code === 0) {
        // A success published this session's own text, nobody else's.
        const token = /CURRENT-SHA256: (\S+)\n$/.exec(a.stdout)?.[1] ?? "";
        expect(goal(published.get(token)), `saver ${s.index} was told ${a.stdout.split("\n")[0]}`).toBe(String(s.index));
        expect(a.kept, `saver ${s.index}: its draft is removed after its save`).toBeNull();
      } else {
        // A loser was told why, and its own draft is still there.
        expect(a.code, a.stderr).toBe(2);
        expect(a.stderr).toMatch(/changed since it was read|is not read any more/);
        if (/changed since it was read/.test(a.stderr)) expect(a.kept === null ? null : goal(a.kept), a.draft).toBe(String(s.index));
      }
    }
  }
  if (!all) return;
  // Every session's document was saved in the end, each exactly once.
  const goals = [...published.values()].map((t) => goal(t)).filter((g) => /^\d+$/.test(g)).sort();
  expect(goals).toEqual(results.map((s) => String(s.index)).sort());
}

