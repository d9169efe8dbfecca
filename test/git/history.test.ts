// The history log's memory-only commits: parsing `git log --left-right --name-only -z`. Pure.
import { describe, expect, it } from "vitest";
import { parseHistory } from "../../src/git/drift.ts";

describe("memory-only commits in the history log", () => {
  const rec = (side: "<" | ">", email: string, paths: string[]) => `\x01${side}\x02${email}\0${paths.length > 0 ? `\n${paths.map((p) => `${p}\0`).join("")}` : ""}`;
  it.each<[string, string, string, { ahead: number; behind: number; memoryOnlyAhead: number; memoryOnlyBehind: number; handoffCommitter: string | null; emptyBehind?: number; attributesAhead?: string[] }]>([
    ["nothing", "", ".ai/memory/", { ahead: 0, behind: 0, memoryOnlyAhead: 0, memoryOnlyBehind: 0, handoffCommitter: null }],
    ["the handoff committed", rec(">", "me@x", [".ai/memory/HANDOFF.md"]), ".ai/memory/", { ahead: 1, behind: 0, memoryOnlyAhead: 1, memoryOnlyBehind: 0, handoffCommitter: "me@x" }],
    ["memory and code together", rec(">", "me@x", [".ai/memory/HANDOFF.md", "src/a.ts"]), ".ai/memory/", { ahead: 1, behind: 0, memoryOnlyAhead: 0, memoryOnlyBehind: 0, handoffCommitter: "me@x" }],
    ["an empty commit is not memory-only", rec(">", "me@x", []), ".ai/memory/", { ahead: 1, behind: 0, memoryOnlyAhead: 0, memoryOnlyBehind: 0, handoffCommitter: null }],
    ["a lookalike folder is not the memory dir", rec(">", "me@x", [".ai/memory-old/x.md"]), ".ai/memory/", { ahead: 1, behind: 0, memoryOnlyAhead: 0, memoryOnlyBehind: 0, handoffCommitter: null }],
    ["an empty commit on the saved side is counted apart", rec("<", "t@x", []), ".ai/memory/", { ahead: 0, behind: 1, memoryOnlyAhead: 0, memoryOnlyBehind: 0, handoffCommitter: null, emptyBehind: 1 }],
    ["behind side", rec("<", "t@x", [".ai/memory/LESSONS.md"]) + rec(">", "me@x", ["a.ts"]), ".ai/memory/", { ahead: 1, behind: 1, memoryOnlyAhead: 0, memoryOnlyBehind: 1, handoffCommitter: null }],
    ["a memory below the top", rec(">", "me@x", ["pkg/.ai/memory/HANDOFF.md"]) + rec(">", "me@x", [".ai/memory/HANDOFF.md"]), "pkg/.ai/memory/", { ahead: 2, behind: 0, memoryOnlyAhead: 1, memoryOnlyBehind: 0, handoffCommitter: "me@x" }],
    ["a path holding \\x01 does not start a record", rec(">", "me@x", [".ai/memory/a\x01b.md"]) + rec(">", "me@x", ["x\x01>y"]), ".ai/memory/", { ahead: 2, behind: 0, memoryOnlyAhead: 1, memoryOnlyBehind: 0, handoffCommitter: null }],
    ["the newest commit names the committer", rec(">", "new@x", [".ai/memory/HANDOFF.md"]) + rec(">", "old@x", [".ai/memory/HANDOFF.md"]), ".ai/memory/", { ahead: 2, behind: 0, memoryOnlyAhead: 2, memoryOnlyBehind: 0, handoffCommitter: "new@x" }],
    ["a merge joined the handoffs: its author is not the one named", rec(">", "merger@x\x04a1 b2", [".ai/memory/HANDOFF.md"]) + rec(">", "mate@x\x04c3", [".ai/memory/HANDOFF.md"]), ".ai/memory/", { ahead: 2, behind: 0, memoryOnlyAhead: 2, memoryOnlyBehind: 0, handoffCommitter: "mate@x" }],
    ["memory and .gitattributes: its id kept, for the check of what changed in that file", rec(">", "me@x\x04p1\x04c1", [".ai/memory/HANDOFF.md", ".gitattributes"]) + rec(">", "me@x\x04p2\x04c2", [".gitattributes", "a.ts"]), ".ai/memory/", { ahead: 2, behind: 0, memoryOnlyAhead: 0, memoryOnlyBehind: 0, handoffCommitter: "me@x", attributesAhead: ["c1"] }],
  ])("%s", (_name, out, prefix, want) => {
    const { aheadPaths: _paths, since: _since, parents: _parents, ...counts } = parseHistory(Buffer.from(out, "utf8"), prefix);
    expect(counts).toEqual({ emptyBehind: 0, attributesAhead: [], ...want, attributesBehind: [], olderAhead: 0, olderAttributes: [], olderLogged: 0, truncated: false, cutAhead: false });
  });

  it("the paths the commits ahead changed leave out memory and memory-only commits", () => {
    const out = rec(">", "me@x\x04p1\x04c1", [".ai/memory/HANDOFF.md", ".gitattributes"]) +
      rec(">", "me@x\x04p2\x04c2", ["a.ts", ".ai/memory/lessons.md"]) + rec("<", "me@x\x04p3\x04c3", ["b.ts"]);
    expect([...parseHistory(Buffer.from(out, "utf8"), ".ai/memory/").aheadPaths]).toEqual(["a.ts"]);
  });

  it("commits ahead committed before the save are counted apart, memory-only ones aside", () => {
    const at = (id: string, ct: number) => `me@x\x04p1\x04${id}\x04${ct}`;
    const out = rec(">", at("c1", 99), ["a.ts"]) + rec(">", at("c2", 100), ["b.ts"]) + rec(">", at("c3", 50), [".ai/memory/HANDOFF.md"]) +
      rec(">", at("c4", 60), [".gitattributes"]) + rec("<", at("c5", 10), ["c.ts"]);
    expect(parseHistory(Buffer.from(out, "utf8"), ".ai/memory/", 100)).toMatchObject({ ahead: 4, behind: 1, memoryOnlyAhead: 1, attributesAhead: ["c4"], olderAhead: 1, olderAttributes: ["c4"], olderLogged: 3 });
    // With no save time, nothing is older.
    expect(parseHistory(Buffer.from(out, "utf8"), ".ai/memory/")).toMatchObject({ olderAhead: 0, olderAttributes: [] });
  });

  it("HEAD's first-parent line down to the saved commit is since the save whatever its dates; a side merged in is not", () => {
    const at = (id: string, parents: string, ct: number) => `me@x\x04${parents}\x04${id}\x04${ct}`;
    // m merges x (off an older commit o) into c2, c1 and c2 built on the saved s; every date is before the save.
    const out = rec(">", at("m", "c2 x", 50), ["x.ts"]) + rec(">", at("c2", "c1", 40), ["b.ts"]) +
      rec(">", at("c1", "s", 30), ["a.ts"]) + rec(">", at("x", "o", 20), ["x.ts"]) + rec(">", at("o", "", 10), ["o.ts"]);
    const h = parseHistory(Buffer.from(out, "utf8"), ".ai/memory/", 100, undefined, { id: "s", head: "m" });
    expect(h).toMatchObject({ ahead: 5, olderAhead: 2 });
    expect([...h.since]).toEqual([["m", true], ["c2", true], ["c1", true], ["x", false], ["o", false]]);
    expect(h.parents.get("m")).toEqual(["c2", "x"]);
    // `o` an ancestor of the saved commit that git's walk listed: left out.
    const without = parseHistory(Buffer.from(out, "utf8"), ".ai/memory/", 100, undefined, { id: "s", head: "m", notAhead: new Set(["o"]) });
    expect(without).toMatchObject({ ahead: 4, olderAhead: 1 });
    // Its line not reaching the saved commit (HEAD off it), every commit goes by its date.
    expect(parseHistory(Buffer.from(out, "utf8"), ".ai/memory/", 100, undefined, { id: "z", head: "m" })).toMatchObject({ olderAhead: 5 });
  });
});
