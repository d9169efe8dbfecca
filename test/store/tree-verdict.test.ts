// One verdict on every folder under the memory dir, for every verb (docs/design.md#the-memory-dir):
// a link, a non-folder or another user's folder at .ai/memory, journal/, checkpoints/,
// archive/ or drafts/ is refused by every verb that reads, lists, deletes or searches. Nothing
// reached through it is printed, and nothing outside the project is deleted.
import { chownSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, helper, save, snapshot, tempDir, type Run } from "../helpers.ts";

const BAIT = "zanzibarquokka";
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const PLACES = ["", "journal", "checkpoints", "archive", "drafts"] as const;
type Shape = "link" | "file" | "other user's";
const SHAPES: Shape[] = asRoot ? ["link", "file", "other user's"] : ["link", "file"];

/** A folder outside the project holding files each reader would take for its own, all with the bait. */
function outside(): string {
  const dir = tempDir("sh-outside-");
  const doc = handoff(`${BAIT} goal`);
  writeFileSync(path.join(dir, "HANDOFF.md"), doc);
  writeFileSync(path.join(dir, "LESSONS.md"), `<!-- memory-schema: v1 -->\n# Lessons\n\n## ${BAIT}\n- ${BAIT}\n`);
  writeFileSync(path.join(dir, "2026-01.md"), `# Journal 2026-01\n\n## 2026-01-05T10:00:00Z save 0123456789abcdef\n- Goal: ${BAIT}\n`);
  writeFileSync(path.join(dir, "2025.md"), `# Journal 2025\n\n- 2025-03-01 resume 0123456789abcdef: Score: 90; Followed: yes\n`);
  writeFileSync(path.join(dir, "HANDOFF-2026-01-01T00-00-00.000Z-0123abcd.md"), doc);
  writeFileSync(path.join(dir, "s1.md"), `<!-- memory-schema: v1 -->\n# Checkpoint\n\n${BAIT}\n`);
  writeFileSync(path.join(dir, "handoff.md"), doc);
  return dir;
}

/** A project with a saved handoff whose memory dir (or one folder in it) has `shape`. */
function arrange(place: (typeof PLACES)[number], shape: Shape): { root: string; out: string } {
  const root = gitRepo();
  save(root, handoff("the real goal"), "absent");
  const mem = path.join(root, ".ai", "memory");
  const at = place === "" ? mem : path.join(mem, place);
  rmSync(at, { recursive: true, force: true });
  const out = outside();
  if (shape === "link") symlinkSync(out, at);
  else if (shape === "file") writeFileSync(at, `${BAIT}\n`);
  else {
    mkdirSync(at);
    for (const f of ["HANDOFF.md", "2026-01.md", "HANDOFF-2026-01-01T00-00-00.000Z-0123abcd.md", "s1.md"]) writeFileSync(path.join(at, f), `${BAIT}\n`);
    chownSync(at, NOBODY, NOBODY);
  }
  return { root, out };
}

const WHO = { GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@example.com" };
const hookInput = (root: string, extra: Record<string, unknown> = {}) => JSON.stringify({ cwd: root, session_id: "s1", source: "startup", ...extra });

/**
 * Every verb that reads, lists, deletes, searches or writes memory (refused: exit not 0); the
 * hooks exit 0 and say nothing of it (`quiet`); `anchors` reads no memory (any exit), but may
 * print nothing from it either.
 */
const VERBS: { name: string; run: (root: string) => Run; quiet?: boolean; any?: boolean }[] = [
  { name: "read", run: (root) => helper(["read", "handoff", "--root", root]) },
  { name: "read lessons", run: (root) => helper(["read", "lessons", "--root", root]) },
  { name: "read checkpoint", run: (root) => helper(["read", "checkpoint", "--root", root]) },
  { name: "brief", run: (root) => helper(["brief", "--root", root]) },
  { name: "drift", run: (root) => helper(["drift", "--root", root]) },
  { name: "anchors", run: (root) => helper(["anchors", "--root", root]), any: true },
  { name: "check", run: (root) => helper(["check", "--root", root]) },
  { name: "search", run: (root) => helper(["search", BAIT, "--root", root]) },
  { name: "impact", run: (root) => helper(["impact", "--root", root]) },
  { name: "journal purge", run: (root) => helper(["journal", "purge", "--root", root]) },
  { name: "archives list", run: (root) => helper(["archives", "list", "--root", root]) },
  { name: "recover", run: (root) => helper(["recover", "--root", root]) },
  { name: "write", run: (root) => helper(["write", "lessons", "--root", root, "--expected-current-sha256", "absent"], { input: "<!-- memory-schema: v1 -->\n# Lessons\n" }) },
  { name: "publish", run: (root) => helper(["publish", "--root", root], { env: WHO }) },
  { name: "hook", run: (root) => helper(["hook", "--mode", "session"], { input: hookInput(root) }), quiet: true },
  { name: "checkpoint", run: (root) => helper(["checkpoint"], { input: hookInput(root, { hook_event_name: "PreCompact" }) }), quiet: true },
];

describe("one verdict on the memory tree's folders, every verb", () => {
  for (const place of PLACES) {
    for (const shape of SHAPES) {
      it(`${shape} at .ai/memory${place ? `/${place}` : ""}: refused by every verb, nothing printed from it, nothing outside touched`, () => {
        const { root, out } = arrange(place, shape);
        const before = snapshot(out);
        const failures: string[] = [];
        for (const verb of VERBS) {
          const r = verb.run(root);
          const text = `${r.stdout}\n${r.stderr}`;
          if (text.includes(BAIT)) failures.push(`${verb.name}: printed a file reached through it`);
          if (!verb.any && (verb.quiet ? r.code !== 0 : r.code === 0)) failures.push(`${verb.name}: exit ${r.code}`);
          if (JSON.stringify(snapshot(out)) !== JSON.stringify(before)) failures.push(`${verb.name}: changed the folder outside`);
        }
        expect(failures).toEqual([]);
      });
    }
  }
});
