import { execFileSync } from "node:child_process";
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { archives, gitRepo, handoff, helper, helperAsync, memFiles, tempDir, unstamped, waitFor } from "../helpers.ts";
import { inProcess, saveIn } from "../in-process.ts";

// A folder where the reference helper (memory_io.py)
// died mid-save is an interrupted save to every verb, exactly like one of ours. Its names:
// `.<FILE>.claim-<pid>-<32 hex>` (the prior version renamed aside) and
// `.<FILE>.tmp-<pid>-<16 hex>` (the new version; linked to <FILE> once published). It
// archives by writing a copy (another inode with the same bytes), not by a hard link.
// The verbs run in this process (test/in-process.ts); the first case, the writes paused at a
// failpoint and a symlinked archive/ also through the built helper.

/** The built helper, with inProcess's signature. */
const spawned = async (args: string[], opts: { input?: string } = {}) => helper(args, opts);

const mem = (root: string, ...p: string[]) => path.join(root, ".ai", "memory", ...p);
const HEX32 = "0123456789abcdef0123456789abcdef";
const HEX16 = "fedcba9876543210";
const LESSONS = (body: string) => `<!-- memory-schema: v1 -->\n# Lessons\n\n- ${body}\n`;
const HOOK_INTERRUPTED = "session-handoff: an interrupted save left session memory in recovery; run the helper's `recover` verb before resuming.";

function memory(root: string): void {
  mkdirSync(mem(root, "archive"), { recursive: true, mode: 0o700 });
}

describe("the reference helper's claim with no current file (it died between claim and publication)", () => {
  it.each([
    ["HANDOFF.md", "handoff", handoff("parked by the reference")],
    ["LESSONS.md", "lessons", LESSONS("parked by the reference")],
    ["SOLUTIONS.md", "solutions", "<!-- memory-schema: v1 -->\n# Solutions\n\n- parked\n"],
  ] as const)("%s: read refuses, hook and check say interrupted, write absent is refused, recover puts it back", async (file, kind, doc) => {
    const root = gitRepo();
    memory(root);
    const run = file === "HANDOFF.md" ? spawned : inProcess;
    const claim = mem(root, `.${file}.claim-4242-${HEX32}`);
    writeFileSync(claim, doc, { mode: 0o600 });
    const read = await run(["read", kind, "--root", root]);
    expect(read.code).toBe(2);
    expect(read.stderr).toMatch(/an interrupted save left .* in recovery .*run `recover`/);
    expect((await run(["check", "--root", root])).code).toBe(1);
    if (kind !== "solutions") {
      const mode = kind === "handoff" ? "session" : "lessons";
      expect((await run(["hook", "--mode", mode, "--root", root])).stdout).toContain(HOOK_INTERRUPTED);
    }
    // `write … absent` repairs first: the parked version is current again, so `absent` is stale.
    const w = await run(["write", kind, "--root", root, "--expected-current-sha256", "absent"], { input: doc.replace("parked", "new") });
    expect(w.code).toBe(2);
    expect(w.stderr).toMatch(/changed since it was read \(expected absent, current [0-9a-f]{64}\)/);
    expect(readFileSync(mem(root, file), "utf8")).toBe(doc);
    expect(existsSync(claim)).toBe(false);
    expect((await run(["check", "--root", root])).code).toBe(kind === "handoff" ? 2 : 0);
  });

  it("recover alone rolls it back, for AGENTS.md at the root too", async () => {
    const root = gitRepo();
    writeFileSync(path.join(root, `.AGENTS.md.claim-77-${HEX32}`), "# Agents\n\n- kept\n");
    expect((await inProcess(["read-target", "--root", root, "--target", "AGENTS.md"])).stderr).toMatch(/run `recover`/);
    expect((await inProcess(["check", "--root", root])).code).toBe(1);
    const r = await inProcess(["recover", "--root", root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/AGENTS\.md: rolled back/);
    expect(readFileSync(path.join(root, "AGENTS.md"), "utf8")).toBe("# Agents\n\n- kept\n");
    expect((await inProcess(["check", "--root", root])).code).toBe(0);
  });
});

describe("the reference helper's other leftovers", () => {
  it("a published temp (two links with the current file) is finished: dropped, the file single-linked", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("v1"), "absent");
    // As the reference leaves it between its publication link and the temp's unlink.
    linkSync(mem(root, "HANDOFF.md"), mem(root, `.HANDOFF.md.tmp-4242-${HEX16}`));
    expect((await inProcess(["check", "--root", root])).code).toBe(1);
    expect((await inProcess(["read", "handoff", "--root", root])).stderr).toMatch(/run `recover`/);
    const r = await inProcess(["recover", "--root", root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/finished a publication/);
    expect(lstatSync(mem(root, "HANDOFF.md")).nlink).toBe(1);
    expect((await inProcess(["check", "--root", root])).code).toBe(2);
  });

  it("an unpublished temp beside the current file is dropped; the old version stays", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("v1"), "absent");
    writeFileSync(mem(root, `.HANDOFF.md.tmp-4242-${HEX16}`), handoff("half"));
    expect((await inProcess(["check", "--root", root])).code).toBe(1);
    expect((await inProcess(["recover", "--root", root])).stdout).toMatch(/dropped an unpublished new version/);
    expect(unstamped(readFileSync(mem(root, "HANDOFF.md"), "utf8"))).toBe(unstamped(handoff("v1")));
    expect(memFiles(root).filter((n) => n.startsWith(".") && n !== ".lock")).toEqual([]);
  });

  it("a claim beside the new file whose archive copy the reference already wrote is not archived twice", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("new"), "absent");
    memory(root);
    const copy = "HANDOFF-2026-11-29T08-00-00.123456Z-0a1b2c3d.md";
    writeFileSync(mem(root, "archive", copy), handoff("old"), { mode: 0o600 });
    writeFileSync(mem(root, `.HANDOFF.md.claim-4242-${HEX32}`), handoff("old"), { mode: 0o600 });
    const r = await inProcess(["recover", "--root", root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`kept the prior version as archive/${copy}`);
    expect(archives(root)).toEqual([copy]);
    expect(unstamped(readFileSync(mem(root, "HANDOFF.md"), "utf8"))).toBe(unstamped(handoff("new")));
  });

  it("a claim beside the new file with no archive copy is archived (nothing lost)", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("new"), "absent");
    writeFileSync(mem(root, `.HANDOFF.md.claim-4242-${HEX32}`), handoff("old"), { mode: 0o600 });
    expect((await inProcess(["recover", "--root", root])).code).toBe(0);
    expect(archives(root).map((n) => readFileSync(mem(root, "archive", n), "utf8"))).toEqual([handoff("old")]);
  });

  it("its half-written archive copy in archive/ is dropped by recover, published or not; the archive entry stays", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("v1"), "absent");
    memory(root);
    const entry = "HANDOFF-2026-11-29T08-00-00.123456Z-0a1b2c3d.md";
    writeFileSync(mem(root, "archive", entry), handoff("old"), { mode: 0o600 });
    linkSync(mem(root, "archive", entry), mem(root, "archive", `.${entry}.tmp-4242-${HEX16}`));
    writeFileSync(mem(root, "archive", `.HANDOFF-2026-11-29T09-00-00.000000Z-0a0a0a0a.md.tmp-4243-${HEX16}`), "half");
    const r = await inProcess(["recover", "--root", root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.match(/dropped an archive copy left half-done/g)).toHaveLength(2);
    expect(archives(root)).toEqual([entry]);
    expect(lstatSync(mem(root, "archive", entry)).nlink).toBe(1);
  });

  it.each([
    [`.HANDOFF.md.claim-1-${HEX32}0`, "33 hex"],
    [`.HANDOFF.md.claim-1-${HEX16}`, "16 hex on a claim"],
    [`.HANDOFF.md.tmp-1-${HEX32}`, "32 hex on a temp"],
    [`.HANDOFF.md.claim-1-${HEX32.toUpperCase()}`, "upper-case hex"],
    [`.HANDOFF.md.claim-x-${HEX32}`, "no pid"],
  ])("%s (%s) is no private name of either helper: ignored", async (name) => {
    const root = gitRepo();
    await saveIn(root, handoff("v1"), "absent");
    writeFileSync(mem(root, name), "stray\n");
    expect((await inProcess(["check", "--root", root])).code).toBe(2);
    expect((await inProcess(["recover", "--root", root])).stdout).toBe("nothing to recover\n");
    expect(existsSync(mem(root, name))).toBe(true);
  });
});

describe("something that is not a regular file put at HANDOFF.md between the read and the claim", () => {
  const shapes = ["directory", "fifo", "symlink"] as const;
  it.each(shapes)("a %s is put back and the write refused; check, recover, hook never wedge", async (shape) => {
    const root = gitRepo();
    const t = await saveIn(root, handoff("v1"), "absent");
    const gate = path.join(tempDir("sh-gate-"), "gate");
    const run = helperAsync(["write", "handoff", "--root", root, "--expected-current-sha256", t], {
      input: handoff("v2"),
      env: { MEMORY_IO_FAILPOINT: `before-claim:pause=${gate}` },
    });
    await waitFor(`${gate}.ready`);
    const outside = path.join(tempDir("sh-outside-"), "x.md");
    writeFileSync(outside, "outside\n");
    renameSync(mem(root, "HANDOFF.md"), path.join(path.dirname(outside), "moved-away.md"));
    if (shape === "directory") mkdirSync(mem(root, "HANDOFF.md"));
    if (shape === "fifo") execFileSync("mkfifo", [mem(root, "HANDOFF.md")]);
    if (shape === "symlink") symlinkSync(outside, mem(root, "HANDOFF.md"));
    writeFileSync(`${gate}.go`, "");
    const r = await run;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^memory operation refused: HANDOFF\.md was replaced by something that is not a regular file since it was read; it was put back and nothing was saved; move it away, then read again/);
    const st = lstatSync(mem(root, "HANDOFF.md"));
    expect(shape === "directory" ? st.isDirectory() : shape === "fifo" ? st.isFIFO() : st.isSymbolicLink()).toBe(true);
    expect(memFiles(root).filter((n) => n.startsWith(".") && n !== ".lock")).toEqual([]);
    expect(readFileSync(outside, "utf8")).toBe("outside\n");
    expect(archives(root)).toEqual([]);
    // A fifo through the built helper: a wedge there ends at the spawn's timeout.
    const verb = shape === "fifo" ? spawned : inProcess;
    expect((await verb(["check", "--root", root])).code).toBe(3);
    const rec = await verb(["recover", "--root", root]);
    expect(rec.code, rec.stderr).toBe(0);
    expect(rec.stdout).toBe("nothing to recover\n");
    expect((await verb(["hook", "--mode", "session", "--root", root])).stdout).toContain("failed memory safety or schema checks");
    // Once the user moves it away, saving works again.
    rmSync(mem(root, "HANDOFF.md"), { recursive: true, force: true });
    expect((await verb(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: handoff("v3") })).code).toBe(0);
  });

  it("a regular file put there instead is handed back the same way (the neighbour that already worked)", async () => {
    const root = gitRepo();
    const t = await saveIn(root, handoff("v1"), "absent");
    const gate = path.join(tempDir("sh-gate-"), "gate");
    const run = helperAsync(["write", "handoff", "--root", root, "--expected-current-sha256", t], { input: handoff("v2"), env: { MEMORY_IO_FAILPOINT: `before-claim:pause=${gate}` } });
    await waitFor(`${gate}.ready`);
    unlinkSync(mem(root, "HANDOFF.md"));
    writeFileSync(mem(root, "HANDOFF.md"), handoff("editor"));
    writeFileSync(`${gate}.go`, "");
    const r = await run;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/changed since it was read \(another program wrote it\); read again and merge/);
    expect(readFileSync(mem(root, "HANDOFF.md"), "utf8")).toBe(handoff("editor"));
    expect((await inProcess(["check", "--root", root])).code).toBe(2);
  });
});

describe("shapes check calls unsafe (3), never parked (2) or interrupted for good (1)", () => {
  it("a symlinked archive/", async () => {
    const root = gitRepo();
    await saveIn(root, handoff("v1"), "absent");
    const elsewhere = tempDir("sh-arch-");
    symlinkSync(elsewhere, mem(root, "archive"));
    const c = await inProcess(["check", "--root", root]);
    expect(c.code).toBe(3);
    expect((await inProcess(["check", "--root", root, "--json"])).stdout).toMatch(/"state":"unsafe"/);
    // The hook says it of the folder, and names no file (docs/design.md#the-session-start-hook).
    const hook = helper(["hook", "--mode", "session", "--root", root]).stdout;
    expect(hook).toContain("session-handoff: the memory folder .ai/memory failed memory safety or schema checks");
    expect(hook).not.toMatch(/HANDOFF\.md|LESSONS\.md/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it.each([
    ["an archive/ that is a file", (root: string) => writeFileSync(mem(root, "archive"), "x\n")],
    ["a real archive/ (the neighbour: parked)", (root: string) => mkdirSync(mem(root, "archive"))],
  ])("%s", async (name, plant) => {
    const root = gitRepo();
    await saveIn(root, handoff("v1"), "absent");
    plant(root);
    expect((await inProcess(["check", "--root", root])).code).toBe(name.includes("neighbour") ? 2 : 3);
  });

  it.each([
    ["a NUL in the middle", handoff("before\u0000after")],
    ["a NUL past the first 4 KiB", handoff(`${"- filler\n".repeat(600)}\u0000`)],
    ["a NUL as the last byte", `${handoff("x")}\u0000`],
  ])("a planted handoff with %s: check 3, the hook's unsafe sentence, never 'parked'", async (_n, doc) => {
    const root = gitRepo();
    mkdirSync(mem(root), { recursive: true, mode: 0o700 });
    writeFileSync(mem(root, "HANDOFF.md"), doc, { mode: 0o600 });
    expect((await inProcess(["check", "--root", root])).code).toBe(3);
    const hook = await inProcess(["hook", "--mode", "session", "--root", root]);
    expect(hook.stdout).toContain("session-handoff: .ai/memory/HANDOFF.md failed memory safety or schema checks");
    expect(hook.stdout).not.toContain("parked handoff exists");
  });

  it.each([
    ["a directory claim", (root: string) => mkdirSync(mem(root, ".HANDOFF.md.claim-1-00000000"))],
    ["a link temp", (root: string, outside: string) => symlinkSync(outside, mem(root, ".HANDOFF.md.tmp-1-00000000"))],
    ["a claim hard-linked outside", (root: string, outside: string) => linkSync(outside, mem(root, `.HANDOFF.md.claim-1-${HEX32}`))],
    ["a link claim for AGENTS.md", (root: string, outside: string) => symlinkSync(outside, path.join(root, ".AGENTS.md.claim-1-00000000"))],
  ])("a planted private name (%s): check 3, recover refuses naming it, nothing changes", async (_n, plant) => {
    const root = gitRepo();
    await saveIn(root, handoff("v1"), "absent");
    const outside = path.join(tempDir("sh-outside-"), "secret.md");
    writeFileSync(outside, "SECRET\n");
    plant(root, outside);
    expect((await inProcess(["check", "--root", root])).code).toBe(3);
    const r = await inProcess(["recover", "--root", root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/holds a private name of the helper but is not a file it left; move it away, then retry/);
    expect(readFileSync(outside, "utf8")).toBe("SECRET\n");
  });
});
