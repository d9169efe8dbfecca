import { linkSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { newestFirst, PRUNABLE_NAME } from "../../src/store/archive.ts";
import { archives, gitRepo, handoff, helper, unstamped } from "../helpers.ts";
import { saveIn } from "../in-process.ts";

// Retention by order, not by the clock (docs/decisions/archive-order.md): each save's archive
// carries a sequence number one above the largest present, so archives dated ahead (a clock
// that ran fast, or pulled through git from such a machine) never push out what the last
// save archived. The saves run in this process (test/in-process.ts); the listing and the
// refused write through the built helper.

const archiveDir = (root: string) => path.join(root, ".ai", "memory", "archive");
const contents = (root: string) => archives(root).map((n) => unstamped(readFileSync(path.join(archiveDir(root), n), "utf8")));

describe("archive order", () => {
  it("after a spell of clock-ahead saves (future names of both patterns), each correct-clock save keeps the previous save's archive", async () => {
    const root = gitRepo();
    let t = await saveIn(root, handoff("v0"), "absent");
    const dir = archiveDir(root);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // What a clock five years ahead left: three of ours (seq 1-3), two of the reference's.
    for (let i = 1; i <= 3; i++) writeFileSync(path.join(dir, `HANDOFF-2031-0${i}-01T00-00-00.000000Z-${i}-0000000${i}.md`), handoff(`ahead ${i}`), { mode: 0o600 });
    for (let i = 1; i <= 2; i++) writeFileSync(path.join(dir, `HANDOFF-2030-0${i}-01T00-00-00.000000Z-a000000${i}.md`), handoff(`old ahead ${i}`), { mode: 0o600 });
    for (let i = 1; i <= 7; i++) {
      t = await saveIn(root, handoff(`v${i}`), t);
      const kept = contents(root);
      // This save archived v(i-1); the save before it archived v(i-2): both kept.
      expect(kept).toContain(unstamped(handoff(`v${i - 1}`)));
      if (i >= 2) expect(kept).toContain(unstamped(handoff(`v${i - 2}`)));
      expect(archives(root).filter((n) => PRUNABLE_NAME.test(n)).length).toBeLessThanOrEqual(5);
    }
    // The newest five saves' archives are what is left; the future-dated ones went first.
    expect(contents(root).sort()).toEqual([2, 3, 4, 5, 6].map((i) => unstamped(handoff(`v${i}`))).sort());
    expect(archives(root).every((n) => /^HANDOFF-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{6}Z-\d+-[0-9a-f]{8}\.md$/.test(n))).toBe(true);
  });

  it("new names carry <seq> one above the largest present, any clone's", async () => {
    const root = gitRepo();
    let t = await saveIn(root, handoff("v0"), "absent");
    mkdirSync(archiveDir(root), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(archiveDir(root), "HANDOFF-2020-01-01T00-00-00.000000Z-41-0badf00d.md"), handoff("other clone"), { mode: 0o600 });
    t = await saveIn(root, handoff("v1"), t);
    const made = archives(root).filter((n) => !n.includes("0badf00d"));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(/Z-42-[0-9a-f]{8}\.md$/);
  });

  it("archives list shows the order: by seq, then time, then name; old-pattern names below, by time then mtime", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("v0"), "absent");
    const dir = archiveDir(root);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const names = [
      "HANDOFF-2035-01-01T00-00-00.000000Z-aaaaaaa1.md", // old pattern, far future
      "HANDOFF-2020-01-01T00-00-00.000000Z-2-bbbbbbb1.md",
      "HANDOFF-2021-01-01T00-00-00.000000Z-2-bbbbbbb0.md",
      "HANDOFF-2021-01-01T00-00-00.000000Z-2-bbbbbbb2.md",
      "HANDOFF-2019-01-01T00-00-00.000000Z-10-ccccccc1.md",
      "HANDOFF-2034-01-01T00-00-00.000000Z-aaaaaaa2.md",
      "HANDOFF-my-notes.md", // no time: its mtime
    ];
    for (const n of names) writeFileSync(path.join(dir, n), handoff(n), { mode: 0o600 });
    utimesSync(path.join(dir, "HANDOFF-my-notes.md"), new Date("2036-01-01T00:00:00Z"), new Date("2036-01-01T00:00:00Z"));
    const expected = [
      "HANDOFF-2019-01-01T00-00-00.000000Z-10-ccccccc1.md",
      "HANDOFF-2021-01-01T00-00-00.000000Z-2-bbbbbbb2.md",
      "HANDOFF-2021-01-01T00-00-00.000000Z-2-bbbbbbb0.md",
      "HANDOFF-2020-01-01T00-00-00.000000Z-2-bbbbbbb1.md",
      "HANDOFF-my-notes.md",
      "HANDOFF-2035-01-01T00-00-00.000000Z-aaaaaaa1.md",
      "HANDOFF-2034-01-01T00-00-00.000000Z-aaaaaaa2.md",
    ];
    const withTimes = readdirSync(dir).map((name) => ({ name, mtimeMs: name === "HANDOFF-my-notes.md" ? Date.parse("2036-01-01T00:00:00Z") : 0 }));
    expect(withTimes.sort(newestFirst).map((e) => e.name)).toEqual(expected);
    const r = helper(["archives", "list", "--root", root]);
    expect(r.code, r.stderr).toBe(0);
    const listed = expected.map((n) => r.stdout.indexOf(n));
    expect(listed.every((i) => i >= 0)).toBe(true);
    expect([...listed].sort((a, b) => a - b)).toEqual(listed);
  });

  it("the unsafe-entry check covers the new pattern: a hard-linked seq name stops pruning", async () => {
    const root = gitRepo();
    let t = await saveIn(root, handoff("v0"), "absent");
    for (let i = 1; i <= 6; i++) t = await saveIn(root, handoff(`v${i}`), t);
    expect(archives(root)).toHaveLength(5);
    const first = archives(root)[0]!;
    expect(PRUNABLE_NAME.test(first)).toBe(true);
    linkSync(path.join(archiveDir(root), first), path.join(root, "outside-link"));
    const r = helper(["write", "handoff", "--root", root, "--expected-current-sha256", t], { input: handoff("v7") });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/archive pruning skipped: archive\/.* is a link, hard-linked/);
    expect(archives(root)).toHaveLength(6);
  });
});
