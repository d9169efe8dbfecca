// A Windows Node killed at every failpoint of a save, of a writer's rollback, of recover's repair
// and of the journal's append (docs/decisions/failpoints.md): on Windows the crash is the
// process ending itself at once (TerminateProcess), and `recover` under the same Node must leave
// the old or the new version, whole, and no private file. Wine runs on the Linux file system,
// so this proves the protocol's steps, not NTFS (docs/windows.md).
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { handoff, helper as linuxHelper, unstamped } from "../helpers.ts";
import { PHASES, RECOVER_PHASES, ROLLBACK_PHASES } from "../reliability/support.ts";
import { get, helperIn, runBatch, scratch, winPath, windowsUser, type Result, type Step } from "./wine.ts";

const JOURNAL_PHASES = ["journal-before-publication", "journal-after-publication"] as const;

interface Case {
  name: string;
  /** The failpoint spec of the save. */
  save: string;
  /** The failpoint spec of a first `recover`, when the case crashes recover itself. */
  recover?: string;
}

const CASES: Case[] = [
  ...PHASES.map((p) => ({ name: `save crash at ${p}`, save: `${p}:crash` })),
  ...ROLLBACK_PHASES.map((p) => ({ name: `rollback crash at ${p}`, save: `before-publication:fail,${p}:crash` })),
  ...RECOVER_PHASES.map((p) => ({ name: `recover crash at ${p}`, save: "after-publication:crash", recover: `${p}:crash` })),
  ...JOURNAL_PHASES.map((p) => ({ name: `journal crash at ${p}`, save: `${p}:crash` })),
];

const OLD = handoff("the old version");
const NEW = handoff("the new version");

let dir: string;
let results: Record<string, Result>;
const roots = new Map<string, string>();

beforeAll(() => {
  dir = scratch("sh-win-crash-");
  const { env } = windowsUser(dir);
  const helper = helperIn(path.join(dir, "skill"));
  const pool: Step[] = [];
  CASES.forEach((c, i) => {
    const root = path.join(dir, `case-${i}`);
    mkdirSync(root);
    roots.set(c.name, root);
    // The old version saved on Linux (fast); everything after it by the Windows Node.
    const seeded = linuxHelper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: OLD, env: { GIT_CEILING_DIRECTORIES: dir } });
    if (seeded.code !== 0) throw new Error(seeded.stderr);
    const token = /CURRENT-SHA256: (\S+)/.exec(seeded.stdout)![1]!;
    const R = winPath(root);
    const steps: Step[] = [
      { id: `${i}:save`, args: ["write", "handoff", "--root", R, "--expected-current-sha256", token, "--lock-timeout", "20"], env: { ...env, MEMORY_IO_FAILPOINT: c.save }, stdin: NEW, cwd: R },
    ];
    // Each Windows Node start costs ~1.5 s under Wine: `check` runs where a crash surely left a claim.
    if (c.save === "after-claim:crash") steps.push({ id: `${i}:check`, args: ["check", "--root", R], env, cwd: R });
    if (c.recover) steps.push({ id: `${i}:recover-crash`, args: ["recover", "--root", R], env: { ...env, MEMORY_IO_FAILPOINT: c.recover }, cwd: R });
    steps.push(
      { id: `${i}:recover`, args: ["recover", "--root", R], env, cwd: R },
      { id: `${i}:read`, args: ["read", "handoff", "--root", R], env, cwd: R },
    );
    pool.push({ id: `case-${i}`, sequence: steps });
  });
  results = runBatch(helper, [{ id: "pool", pool }]);
});

describe("crash recovery under a Windows Node (Wine): every failpoint", () => {
  it.each(CASES.map((c, i) => [c.name, c, i] as const))("%s: old or new, whole; recover leaves no private file", (_name, c, i) => {
    const root = roots.get(c.name)!;
    const save = get(results, `${i}:save`);
    // The save either ended itself at the failpoint (any exit but 0 with no signal on Windows) or passed it.
    expect(save.signal, save.stderr).toBeNull();
    const rec = get(results, `${i}:recover`);
    expect(rec.code, `${rec.stdout}${rec.stderr}`).toBe(0);
    const file = path.join(root, ".ai", "memory", "HANDOFF.md");
    expect(existsSync(file)).toBe(true);
    expect([unstamped(OLD), unstamped(NEW)]).toContain(unstamped(readFileSync(file, "utf8")));
    const left = readdirSync(path.join(root, ".ai", "memory")).filter((n) => n.startsWith(".") && !n.startsWith(".lock"));
    expect(left).toEqual([]);
    const read = get(results, `${i}:read`);
    expect(read.code, read.stderr).toBe(0);
    // The version a save replaced is current or archived.
    const archived = existsSync(path.join(root, ".ai", "memory", "archive"))
      ? readdirSync(path.join(root, ".ai", "memory", "archive")).map((n) => unstamped(readFileSync(path.join(root, ".ai", "memory", "archive", n), "utf8")))
      : [];
    if (!readFileSync(file, "utf8").includes("the old version")) expect(archived).toContain(unstamped(OLD));
  });

  it("the crash really ended the process at its failpoint on Windows", () => {
    // A save crashed before publication never printed a token.
    const i = CASES.findIndex((c) => c.save === "after-claim:crash");
    const save = get(results, `${i}:save`);
    expect(save.code).not.toBe(0);
    expect(save.stdout).not.toContain("CURRENT-SHA256");
    expect(get(results, `${i}:check`).code).toBe(1);
  });
});
