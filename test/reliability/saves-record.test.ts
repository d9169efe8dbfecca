// Worktrees of one clone saving at once: each save adds its line to the clone's shared `saves` record
// (src/git/saves.ts) by read-then-rename under a lock the worktrees share; a line lost there makes check, brief
// and the hook miss where that save went (docs/design.md#a-handoff-away-from-the-working-tree).
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, handoff, helperAsync } from "../helpers.ts";

const ROUNDS = Number(process.env.SAVES_ROUNDS ?? 20);
// Four worktrees make six pairs a round: the old record lost a line in about one round of 30 with two.
const WORKTREES = 4;

describe("the clone's saves record", () => {
  it(`${WORKTREES} worktrees saving at once, ${ROUNDS} rounds: every save's line is in the record`, { timeout: 600_000 }, async () => {
    const main = gitRepo();
    const roots = [main];
    for (let i = 1; i < WORKTREES; i++) {
      roots.push(`${main}-wt${i}`);
      git(main, "worktree", "add", "-q", "-b", `wt${i}`, roots[i]!);
    }
    const record = path.join(main, ".git", "session-handoff", "saves");
    const tokens = new Map(roots.map((r) => [r, "absent"]));
    const lost: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // All spawned together, so that their records are written as close in time as saves can be.
      const saved = await Promise.all(roots.map(async (root) => {
        const args = ["write", "handoff", "--root", root, "--expected-current-sha256", tokens.get(root)!];
        const r = await helperAsync(args, { input: handoff(`Round ${round} in ${path.basename(root)}.`) });
        expect(r.code, r.stderr).toBe(0);
        const token = /CURRENT-SHA256: ([0-9a-f]{64})/.exec(r.stdout)![1]!;
        tokens.set(root, token);
        return token;
      }));
      const lines = readFileSync(record, "utf8");
      for (const t of saved) if (!lines.includes(t)) lost.push(`round ${round}: ${t.slice(0, 12)}`);
    }
    expect(lost).toEqual([]);
  });
});
