// Every verb's help is one page; the cases in full are in references/verbs/, which the help
// names. These words, checked there, are the ones a user or an agent looks up.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { referenceOf } from "../helpers.ts";

const BUNDLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../scripts/memory_io.mjs");
// What the bundle prints for `<args>`, spawned once per spelling: every case below reads the same page.
const printed = new Map<string, string>();
const printedBy = (args: string): string => {
  if (!printed.has(args)) printed.set(args, spawnSync(process.execPath, [BUNDLE, ...args.split(" ")], { encoding: "utf8" }).stdout);
  return printed.get(args)!;
};
const helpOnly = (verb: string) => printedBy(`${verb} --help`).replace(/\s+/g, " ");
const help = (verb: string) => `${helpOnly(verb)} ${referenceOf(verb)}`;
const norm = (s: string) => s.replace(/\s+/g, " ");

describe("the root rule's sentences are in references/verbs/ (docs/design.md#the-root)", () => {
  it.each(["read", "write", "read-target", "promote", "check", "recover", "anchors", "drift", "brief"])("%s --help names the root's section", (verb) => {
    const text = helpOnly(verb);
    expect(text).toContain("[--root DIR]");
    expect(text).toContain("references/verbs/root.md");
  });

  it("the root's section states the rule and `using root`", () => {
    const text = referenceOf("the-root");
    expect(text).toContain("nearest folder above holding `.ai/memory` or `.git`");
    expect(text).toContain("never `$HOME` or above it from below it");
    expect(text).toContain("a sticky one anyone can write to (`/tmp`)");
    expect(text).toContain('A start or `--root` equal to `$HOME` is refused: "not a project: run it from a project folder or pass --root <project>"');
    expect(text).toContain("stderr says `using root <path>`");
    expect(text).toContain("GIT_CEILING_DIRECTORIES");
  });

  it.each([
    "a parked handoff exists (.ai/memory/HANDOFF.md, saved today).",
    "\"saved 1 day ago\", \"saved N days ago\", or \"age unknown\"",
    "SESSION_HANDOFF_DISABLE is set to anything but empty, 0, false, no or off (any case)",
  ])("hook: %s", (sentence) => {
    expect(help("hook")).toContain(norm(sentence));
  });

  it.each([
    "no commits since the saved <id> but memory-only ones",
    "N memory-only commits (saves of .ai/memory) not counted",
    "(rebase, amend, reset, squash merge or force-push)",
    "<operation> was in progress at the save[, finished or aborted since]",
    "<operation> in progress now",
    "saved N days ago | age unknown",
    "age unknown: the handoff has no `- Date:` or `Saved:` time, so the handoff cannot be called fresh",
    "the saved time is not a strict ISO-8601 time with a zone",
    "the saved time is more than 5 minutes in the future",
    "key files missing: <paths> | key files changed: <paths>",
    'dirty at the save, committed[ as "<new path>"][ with other line endings] in <id>[ (not on HEAD)][, then reverted in <id>]: <paths> | dirty at the save, now in stash@{N}[ as "<new path>"][ with other line endings]: <paths>',
    'dirty at the save, renamed to "<new path>", not committed: <paths>',
    "changed since, stashed in stash@{N} (no branch, tag or stash holds the saved one at this path): <paths>",
    "the handoff was not saved in this clone; its last commit is by \"<author>\" \"<e-mail>\"",
    "saved HEAD <id> is not in this clone: fetch, or the history was rewritten",
    "saved HEAD <id> is not in this clone: deepen it (git fetch --deepen or --unshallow)",
    'branch "<then>" is not in this clone; on "<now>"',
    "dirty at the save, still dirty and changed since: <paths> | dirty at the save, still dirty and unchanged: <paths>",
    "\"headPresent\"",
    "\"notHereReason\" (\"not-fetched\", \"shallow\" or null)",
    "\"sinceSaved\"",
    "\"memoryOnlyCommits\", \"changedKeyFiles\"",
    "\"dirtyKeyFiles\", \"inProgress\": {\"saved\",\"current\"}",
  ])("drift: %s", (sentence) => {
    expect(help("drift")).toContain(norm(sentence));
  });

  it.each(["D done, P in progress, T todo[, A abandoned][, U unmarked]", "(open question first: <the first one>)", "each keeps its cause", "\"age unknown\""])("brief: %s", (sentence) => {
    expect(help("brief")).toContain(norm(sentence));
  });

  it("the helper's usage: the kill switch values and sentence", () => {
    const usage = printedBy("--help").replace(/\s+/g, " ");
    expect(usage).toContain("SESSION_HANDOFF_DISABLE set to anything but empty, 0, false, no or off");
    expect(usage).toContain("`memory writes are paused: remove <path> to resume`");
  });

  it("anchors: the In progress line", () => {
    expect(help("anchors")).toContain("- In progress: <operation>[ of <branch>] (<n> conflicted files)");
    expect(help("anchors")).toContain("nor the running skill's own folder when it lies inside the root");
  });
});

// Users read --help and the README with nothing else at hand: a number pointing into a document
// outside them is a reference they cannot follow (a newcomer's run found four).
describe("user-facing text cites no outside document", () => {
  const verbs = printedBy("--help")
    .split("\n")
    .map((l) => /^  ([a-z][a-z-]+) {2,}/.exec(l)?.[1])
    .filter((v): v is string => v !== undefined);
  it("the overview lists the verbs (the test can fail)", () => {
    expect(verbs).toEqual(expect.arrayContaining(["read", "write", "hook", "checkpoint", "brief", "drift", "validate", "install"]));
  });
  it.each(["--help", ...verbs.map((v) => `${v} --help`)])("%s", (args) => {
    const out = printedBy(args);
    expect(out.length).toBeGreaterThan(0);
    expect(out).not.toMatch(/§\s*\d|\bruling \d/i);
  });
  it("README.md", () => {
    const readme = readFileSync(path.join(path.dirname(BUNDLE), "..", "README.md"), "utf8");
    expect(readme).not.toMatch(/§\s*\d|\bruling \d/i);
  });
});
