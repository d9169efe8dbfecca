// `write <kind> --from-draft` (docs/decisions/save-form.md, docs/decisions/drafts.md): the agent
// writes the document with its own file tool to the draft its read named, the helper saves it
// as `write` saves stdin, removes it after a save and keeps it after a refusal.
import { chmodSync, closeSync, existsSync, fstatSync, openSync, readdirSync, linkSync, mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, handoff, helper, HELPER, MARKER, sha, snapshot, tempDir, unstamped, type Run } from "../helpers.ts";
import { inProcess, tokenIn } from "../in-process.ts";

const MEM = (root: string) => path.join(root, ".ai", "memory");
// A name as `read` prints one (any 8 hex digits are a per-read name).
const DRAFT = (root: string, kind = "handoff") => path.join(MEM(root), "drafts", `${kind}-0123abcd.md`);

// What a harness's file tool does: the folders made as needed, the file with the default mode.
function draft(root: string, text: string | Buffer, kind = "handoff", mode = 0o644): string {
  mkdirSync(path.dirname(DRAFT(root, kind)), { recursive: true });
  writeFileSync(DRAFT(root, kind), text, { mode });
  chmodSync(DRAFT(root, kind), mode);
  return DRAFT(root, kind);
}

const spawned = (root: string, kind: string, token: string): Run =>
  helper(["write", kind, "--from-draft", DRAFT(root, kind), "--expected-current-sha256", token], { cwd: root, input: "stdin is not the document\n" });
const write = (root: string, kind: string, token: string, extra: string[] = [], env: Record<string, string> = {}): Promise<Run> =>
  inProcess(["write", kind, "--from-draft", DRAFT(root, kind), "--expected-current-sha256", token, ...extra], { cwd: root, env, input: "stdin is not the document\n" });

// A document no inline shell form carries through Gemini CLI's policy: backticks, `$HOME`,
// `$(…)` and a line `EOF`, in the places a handoff holds them.
const TRICKY_GOAL = "Keep `$HOME` and $(rm -rf /) as text; a heredoc would stop at the line below\nEOF\nand go on here with 'quotes' and \"doubles\" and \\backslashes\\.";
const trickyHandoff = () =>
  handoff(TRICKY_GOAL).replace("## Key files\n- none\n", "## Key files\n- `src/$(whoami).ts` — named by `$(whoami)`, not run\n- `README.md` — says `EOF` and $HOME\n");

describe("write --from-draft: the document from drafts/<kind>-<8 hex>.md", () => {
  it("a handoff with backticks, $HOME, $(…) and a line EOF lands byte-exact; the draft is gone; stdin is not read", async () => {
    const root = gitRepo();
    writeFileSync(path.join(root, "README.md"), "x\n");
    const doc = trickyHandoff();
    draft(root, doc);
    // Spawned, as an agent runs it (stdin given and not read); the other cases run write in this process.
    const r = spawned(root, "handoff", "absent");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^saved HANDOFF\.md\nCURRENT-SHA256: [0-9a-f]{64}\n$/);
    const saved = readFileSync(path.join(MEM(root), "HANDOFF.md"), "utf8");
    expect(unstamped(saved)).toBe(unstamped(doc));
    expect(saved).toContain(TRICKY_GOAL);
    expect(existsSync(DRAFT(root))).toBe(false);
    expect(statSync(path.join(MEM(root), "HANDOFF.md")).mode & 0o777).toBe(0o600);
  });

  it("what it reports names lines of the saved file, not of the draft it removed", async () => {
    const root = gitRepo();
    const secret = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789";
    draft(root, handoff(`ship it with ${secret}`).replace(/\nSaved: [^\n]*\n/, ""));
    const r = await write(root, "handoff", "absent");
    expect(r.code, r.stderr).toBe(0);
    const lines = readFileSync(path.join(MEM(root), "HANDOFF.md"), "utf8").split("\n");
    const at = lines.findIndex((l) => l.includes("<redacted: github-token>")) + 1;
    expect(at).toBeGreaterThan(0);
    expect(r.stderr).toContain(`redacted 1 secret(s): github-token (line ${at})\n`);
  });

  it("a ledger is published with exactly the draft's bytes, and the token is theirs", async () => {
    const root = gitRepo();
    const doc = `${MARKER}\n# Lessons\n\n## L-0001: Quote \`$HOME\`\n- When: $(always)\n- Lesson: a line\nEOF\n- Why: \`backticks\` break shells\n- Source: me, 2026-01-01\n- Status: active\n`;
    draft(root, doc, "lessons");
    const r = await write(root, "lessons", "absent");
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(path.join(MEM(root), "LESSONS.md"), "utf8")).toBe(doc);
    expect(r.stdout).toBe(`saved LESSONS.md\nCURRENT-SHA256: ${sha(doc)}\n`);
    expect(existsSync(DRAFT(root, "lessons"))).toBe(false);
  });

  it("a second save of the same draft is unchanged, and the draft is removed again", async () => {
    const root = gitRepo();
    draft(root, handoff("same"));
    expect((await write(root, "handoff", "absent")).code).toBe(0);
    draft(root, handoff("same"));
    const r = await write(root, "handoff", (await tokenIn(root)));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^unchanged HANDOFF\.md\n/);
    expect(existsSync(DRAFT(root))).toBe(false);
  });

  it("drafts/ is never seen by git: our drafts/.gitignore ignores all there, itself too; publish commits neither", async () => {
    const root = gitRepo();
    draft(root, handoff("goal"));
    expect((await write(root, "handoff", "absent")).code).toBe(0);
    expect(readFileSync(path.join(MEM(root), "drafts", ".gitignore"), "utf8")).toMatch(/^\*$/m);
    draft(root, handoff("leftover"));
    const status = git(root, "status", "--porcelain", "--untracked-files=all");
    expect(status).toContain(".ai/memory/HANDOFF.md");
    expect(status).not.toMatch(/drafts|\.gitignore/);
    const p = await inProcess(["publish", "--root", root]);
    expect(p.code, p.stderr).toBe(0);
    const files = git(root, "show", "--name-only", "--format=", "HEAD");
    expect(files).toContain(".ai/memory/HANDOFF.md");
    expect(files).not.toMatch(/drafts|\.gitignore/);
    // The ignore file is in drafts/: the memory dir itself gets no dot name of ours.
    expect(readdirSync(MEM(root)).filter((n) => n.startsWith("."))).toEqual([]);
    expect(readdirSync(MEM(root))).toContain("drafts");
  });

  it("a .gitignore of the user's in drafts/ is left as it is", async () => {
    const root = gitRepo();
    mkdirSync(path.join(MEM(root), "drafts"), { recursive: true });
    writeFileSync(path.join(MEM(root), "drafts", ".gitignore"), "mine\n");
    draft(root, handoff("goal"));
    expect((await write(root, "handoff", "absent")).code).toBe(0);
    expect(readFileSync(path.join(MEM(root), "drafts", ".gitignore"), "utf8")).toBe("mine\n");
  });
});

describe("write --from-draft: a refusal keeps the draft, a save removes it", () => {
  const refused = (r: Run, code: number, reason: RegExp) => {
    expect(r.code, r.stderr).toBe(code);
    expect(r.stderr).toMatch(reason);
    expect(r.stdout).toBe("");
  };
  const keptNote = /the draft \.ai\/memory\/drafts\/handoff-0123abcd\.md was kept \(for an hour after its last change\): fix it and run this again\n$/;

  it("a stale token: refused, nothing saved, the draft kept, the refusal says so", async () => {
    const root = gitRepo();
    draft(root, handoff("one"));
    expect((await write(root, "handoff", "absent")).code).toBe(0);
    const before = readFileSync(path.join(MEM(root), "HANDOFF.md"));
    draft(root, handoff("two"));
    const r = await write(root, "handoff", "absent");
    refused(r, 2, /changed since it was read/);
    expect(r.stderr).toMatch(/the draft \S+ was kept \(for an hour after its last change\): read again, merge it into that version and save with its token\n$/);
    expect(readFileSync(path.join(MEM(root), "HANDOFF.md")).equals(before)).toBe(true);
    expect(readFileSync(DRAFT(root), "utf8")).toBe(handoff("two"));
  });

  it("a malformed token: refused, the draft kept; the right token then saves it and removes it", async () => {
    const root = gitRepo();
    draft(root, handoff("x"));
    refused((await write(root, "handoff", "nope")), 2, /--expected-current-sha256 must be/);
    expect(readFileSync(DRAFT(root), "utf8")).toBe(handoff("x"));
    expect((await write(root, "handoff", "absent")).code).toBe(0);
    expect(existsSync(DRAFT(root))).toBe(false);
  });

  it("a schema error: refused with its lines, nothing created but the draft's folders, the draft kept", async () => {
    const root = gitRepo();
    draft(root, `${MARKER}\n# Session Handoff\n\n## Current goal\nx\n`);
    const r = await write(root, "handoff", "absent");
    refused(r, 2, /HANDOFF\.md has \d+ schema error\(s\)/);
    expect(r.stderr).toMatch(keptNote);
    expect(existsSync(path.join(MEM(root), "HANDOFF.md"))).toBe(false);
    expect(existsSync(DRAFT(root))).toBe(true);
  });

  it("the template copied unfilled: refused naming each placeholder line (the anchors' is write's to fill); one left is refused alone", async () => {
    const root = gitRepo();
    const skeleton = readFileSync(path.join(path.dirname(HELPER), "..", "templates", "handoff.md"), "utf8");
    draft(root, skeleton);
    const r = await write(root, "handoff", "absent");
    refused(r, 2, /HANDOFF\.md has 18 schema error\(s\)/);
    const todo = "placeholder: the template's placeholder text, unfilled: write this session's own words or delete the line";
    expect(r.stderr).toContain(`line 5: ${todo}\n`);
    expect(r.stderr.split("\n").filter((l) => l.endsWith(todo))).toHaveLength(18);
    expect(r.stderr).toMatch(keptNote);
    expect(existsSync(path.join(MEM(root), "HANDOFF.md"))).toBe(false);
    draft(root, handoff("one placeholder left").replace("## Open questions\n- none", "## Open questions\n- none\n- [ ] <to do>"));
    const one = await write(root, "handoff", "absent");
    refused(one, 2, /HANDOFF\.md has 1 schema error\(s\)/);
    expect(one.stderr).toMatch(/^line \d+: placeholder: /m);
  });

  it("a secret is redacted before anything is saved, and the draft is removed", async () => {
    const root = gitRepo();
    const token = ["gh", "p_", "R8x2Lq9vT4mN7pK3sW6yZ1aB5cD0eF8gH2jJ"].join("");
    draft(root, handoff(`the key is ${token}`));
    const r = await write(root, "handoff", "absent");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/redacted 1 secret\(s\): github-token/);
    const saved = readFileSync(path.join(MEM(root), "HANDOFF.md"), "utf8");
    expect(saved).toContain("<redacted: github-token>");
    expect(saved).not.toContain(token);
    expect(existsSync(DRAFT(root))).toBe(false);
  });

  it("a link planted at the draft: refused, the link removed unread, its target untouched", async () => {
    const root = gitRepo();
    const outside = path.join(tempDir(), "secret.md");
    writeFileSync(outside, handoff("not yours"));
    mkdirSync(path.dirname(DRAFT(root)), { recursive: true });
    symlinkSync(outside, DRAFT(root));
    refused((await write(root, "handoff", "absent")), 2, /drafts\/handoff-0123abcd\.md is a link; it was removed unread/);
    expect(existsSync(DRAFT(root))).toBe(false);
    expect(readFileSync(outside, "utf8")).toBe(handoff("not yours"));
    expect(existsSync(path.join(MEM(root), "HANDOFF.md"))).toBe(false);
  });

  it("a hard link: refused and removed unread; the other name keeps its bytes and mode", async () => {
    const root = gitRepo();
    const other = path.join(root, "other.md");
    writeFileSync(other, handoff("x"), { mode: 0o644 });
    mkdirSync(path.dirname(DRAFT(root)), { recursive: true });
    linkSync(other, DRAFT(root));
    refused((await write(root, "handoff", "absent")), 2, /hard-linked elsewhere; it was removed unread/);
    expect(existsSync(DRAFT(root))).toBe(false);
    expect(statSync(other).mode & 0o777).toBe(0o644);
  });

  it("a FIFO: refused without blocking, removed", async () => {
    const root = gitRepo();
    mkdirSync(path.dirname(DRAFT(root)), { recursive: true });
    execFileSync("mkfifo", [DRAFT(root)]);
    // Spawned: were the FIFO opened for reading, the spawn's timeout would end the hang, not this process.
    refused(spawned(root, "handoff", "absent"), 2, /not a regular file; it was removed unread/);
    expect(existsSync(DRAFT(root))).toBe(false);
  });

  it("over 1,000,000 bytes: refused naming the size, kept to be shortened", async () => {
    const root = gitRepo();
    draft(root, handoff("x".repeat(1_000_001)));
    refused((await write(root, "handoff", "absent")), 2, /the draft \.ai\/memory\/drafts\/handoff-0123abcd\.md is \d+ bytes; memory documents are at most 1000000 bytes/);
    expect(existsSync(DRAFT(root))).toBe(true);
  });

  it("paused: exit 4, the draft kept, nothing saved", async () => {
    const root = gitRepo();
    draft(root, handoff("x"));
    writeFileSync(path.join(MEM(root), "PAUSE"), "");
    const r = await write(root, "handoff", "absent");
    refused(r, 4, /memory writes are paused/);
    expect(r.stderr).toMatch(/the draft \.ai\/memory\/drafts\/handoff-0123abcd\.md was kept \(for an hour after its last change\): run this again once writes resume\n$/);
    expect(existsSync(DRAFT(root))).toBe(true);
    expect(existsSync(path.join(MEM(root), "HANDOFF.md"))).toBe(false);
  });

  it("no draft: refused, saying where to write it", async () => {
    const root = gitRepo();
    const r = await write(root, "handoff", "absent");
    refused(r, 2, /no draft at \.ai\/memory\/drafts\/handoff-0123abcd\.md: write the whole document there with your file tool/);
    expect(r.stderr).not.toMatch(/was removed/);
    expect(existsSync(MEM(root))).toBe(false);
  });

  it("a draft readable by others is tightened to 0600 before it is read (the folder to 0700)", async () => {
    const root = gitRepo();
    draft(root, handoff("x"), "handoff", 0o666);
    chmodSync(path.dirname(DRAFT(root)), 0o777);
    // The inode outlives its name while this descriptor is open: its mode is what write left.
    const fd = openSync(DRAFT(root), "r");
    try {
      expect((await write(root, "handoff", "absent")).code).toBe(0);
      expect(fstatSync(fd).mode & 0o777).toBe(0o600);
    } finally {
      closeSync(fd);
    }
    expect(statSync(path.dirname(DRAFT(root))).mode & 0o777).toBe(0o700);
    expect(existsSync(DRAFT(root))).toBe(false);
  });
});

describe("a leftover draft is private junk, not an interrupted save", () => {
  it("check keeps its code; recover removes it and says so; the saved handoff is untouched", async () => {
    const root = gitRepo();
    draft(root, handoff("saved"));
    expect((await write(root, "handoff", "absent")).code).toBe(0);
    const saved = readFileSync(path.join(MEM(root), "HANDOFF.md"));
    // An older flow's shared draft is junk at any age.
    const shared = path.join(MEM(root), "drafts", "handoff.md");
    writeFileSync(shared, handoff("left behind"));
    const c = await inProcess(["check", "--root", root]);
    expect(c.code).toBe(2);
    const r = await inProcess(["recover", "--root", root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("removed a leftover draft .ai/memory/drafts/handoff.md");
    expect(existsSync(shared)).toBe(false);
    expect(readFileSync(path.join(MEM(root), "HANDOFF.md")).equals(saved)).toBe(true);
    expect((await inProcess(["recover", "--root", root])).stdout).toBe("nothing to recover\n");
  });

  it("in a project with only a draft, check says nothing is parked", async () => {
    const root = gitRepo();
    draft(root, handoff("x"));
    expect((await inProcess(["check", "--root", root])).code).toBe(0);
  });

  it("recover never follows a link at drafts/ and never removes a directory there", async () => {
    const root = gitRepo();
    const elsewhere = tempDir();
    writeFileSync(path.join(elsewhere, "handoff.md"), "keep\n");
    mkdirSync(MEM(root), { recursive: true });
    symlinkSync(elsewhere, path.join(MEM(root), "drafts"));
    // The tree's one verdict refuses a linked drafts/ as a whole.
    expect((await inProcess(["recover", "--root", root])).code).toBe(2);
    expect(readFileSync(path.join(elsewhere, "handoff.md"), "utf8")).toBe("keep\n");
  });
});

describe("a draft per read (docs/decisions/drafts.md)", () => {
  const readDraft = async (root: string, kind = "handoff"): Promise<{ token: string; draft: string }> => {
    const r = await inProcess(["read", kind, "--root", root]);
    const draft = /^DRAFT: (\.ai\/memory\/drafts\/[a-z]+-[0-9a-f]{8}\.md)$/m.exec(r.stderr)?.[1];
    expect(draft, r.stderr).toBeDefined();
    return { token: /^CURRENT-SHA256: (\S+)$/m.exec(r.stdout)![1]!, draft: draft! };
  };
  const writeOwn = (root: string, kind: string, draft: string, token: string): Promise<Run> =>
    inProcess(["write", kind, "--from-draft", draft, "--expected-current-sha256", token], { cwd: root });
  const refused = (r: Run, code: number, reason: RegExp) => {
    expect(r.code, r.stderr).toBe(code);
    expect(r.stderr).toMatch(reason);
    expect(r.stdout).toBe("");
  };

  it("read names a new draft each time; the write of it saves it and removes the draft", async () => {
    const root = gitRepo();
    draft(root, handoff("first"));
    expect((await write(root, "handoff", "absent")).code).toBe(0);
    const a = await readDraft(root);
    const b = await readDraft(root);
    expect(a.draft).not.toBe(b.draft);
    expect(a.token).toBe(b.token);
    writeFileSync(path.join(root, a.draft), handoff("session A"));
    writeFileSync(path.join(root, b.draft), handoff("session B"));
    const r = await writeOwn(root, "handoff", a.draft, a.token);
    expect(r.code, r.stderr).toBe(0);
    expect(unstamped(readFileSync(path.join(MEM(root), "HANDOFF.md"), "utf8"))).toBe(unstamped(handoff("session A")));
    expect(existsSync(path.join(root, a.draft))).toBe(false);
    // B, same token: told it changed, its own draft kept, never A's text published as B's.
    const rb = await writeOwn(root, "handoff", b.draft, b.token);
    expect(rb.code).toBe(2);
    expect(rb.stderr).toMatch(/changed since it was read/);
    expect(rb.stderr).toContain(`the draft ${b.draft} was kept (for an hour after its last change): read again, merge it into that version and save with its token`);
    expect(readFileSync(path.join(root, b.draft), "utf8")).toBe(handoff("session B"));
  });

  it("the draft is named as printed, absolute or bare; only its name counts, always in drafts/", async () => {
    const root = gitRepo();
    for (const form of ["printed", "absolute", "bare"] as const) {
      const { token, draft: d } = await readDraft(root);
      mkdirSync(path.dirname(path.join(root, d)), { recursive: true });
      writeFileSync(path.join(root, d), handoff(`saved ${form}`));
      const arg = form === "printed" ? d : form === "absolute" ? path.join(root, d) : path.basename(d);
      const r = await writeOwn(root, "handoff", arg, token);
      expect(r.code, `${form}: ${r.stderr}`).toBe(0);
      expect(existsSync(path.join(root, d))).toBe(false);
    }
  });

  it.each([
    ["another folder's file", "/etc/passwd", /--from-draft takes the path `read handoff` printed on its DRAFT: line/],
    ["a made-up name", ".ai/memory/drafts/mine.md", /--from-draft takes the path/],
    ["a path out of drafts/", ".ai/memory/drafts/../handoff-0123abcd.md", /--from-draft takes the path/],
    ["another kind's draft", ".ai/memory/drafts/lessons-0123abcd.md", /is a draft of lessons, not of handoff: run `write lessons` for it/],
  ])("%s is a usage error; nothing changes", async (_name, arg, why) => {
    const root = gitRepo();
    draft(root, handoff("x"));
    const before = snapshot(MEM(root));
    const r = await writeOwn(root, "handoff", arg, "absent");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^usage error: /);
    expect(r.stderr).toMatch(why);
    expect(snapshot(MEM(root))).toEqual(before);
  });

  it("a draft path without --from-draft is a usage error", async () => {
    const root = gitRepo();
    const r = await inProcess(["write", "handoff", ".ai/memory/drafts/handoff-0123abcd.md", "--expected-current-sha256", "absent"], { cwd: root, input: handoff("x") });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^usage error: write takes a draft path only with --from-draft/);
  });

  it.each([
    ["without a path", [] as string[]],
    ["with the shared path", [".ai/memory/drafts/handoff.md"]],
  ])("--from-draft %s (an older SKILL.md's shared draft) is refused, naming a draft of its own", async (_name, given) => {
    const root = gitRepo();
    draft(root, handoff("first"));
    expect((await write(root, "handoff", "absent")).code).toBe(0);
    const { token } = await readDraft(root);
    const shared = path.join(MEM(root), "drafts", "handoff.md");
    writeFileSync(shared, handoff("whose?"));
    const before = snapshot(MEM(root));
    const r = await inProcess(["write", "handoff", "--from-draft", ...given, "--expected-current-sha256", token], { cwd: root });
    refused(r, 2, /^usage error: --from-draft takes the path `read handoff` printed on its DRAFT: line; the shared \.ai\/memory\/drafts\/handoff\.md is not read any more/);
    expect(snapshot(MEM(root))).toEqual(before);
    const own = /Write your whole document to (\S+) with your file tool, then run `write handoff --from-draft \1 --expected-current-sha256 <token>`/.exec(r.stderr)?.[1];
    expect(own, r.stderr).toMatch(/^\.ai\/memory\/drafts\/handoff-[0-9a-f]{8}\.md$/);
    writeFileSync(path.join(root, own!), handoff("mine"));
    const ok = await writeOwn(root, "handoff", own!, token);
    expect(ok.code, ok.stderr).toBe(0);
    expect(unstamped(readFileSync(path.join(MEM(root), "HANDOFF.md"), "utf8"))).toBe(unstamped(handoff("mine")));
  });

  it("a read removes drafts left behind for an hour and older flows' files; recover too, never a younger draft", async () => {
    const root = gitRepo();
    draft(root, handoff("first"));
    expect((await write(root, "handoff", "absent")).code).toBe(0);
    const old = await readDraft(root);
    const young = await readDraft(root);
    writeFileSync(path.join(root, old.draft), handoff("old"));
    writeFileSync(path.join(root, young.draft), handoff("young"));
    const hourAgo = new Date(Date.now() - 61 * 60 * 1000);
    utimesSync(path.join(root, old.draft), hourAgo, hourAgo);
    const retired = ["handoff.md", ".read-handoff-0123abcd"].map((n) => path.join(MEM(root), "drafts", n));
    for (const f of retired) writeFileSync(f, "");
    await readDraft(root);
    expect(existsSync(path.join(root, old.draft))).toBe(false);
    expect(retired.filter((f) => existsSync(f))).toEqual([]);
    const r = await inProcess(["recover", "--root", root]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(path.join(root, young.draft), "utf8")).toBe(handoff("young"));
    utimesSync(path.join(root, young.draft), hourAgo, hourAgo);
    const r2 = await inProcess(["recover", "--root", root]);
    expect(r2.stdout).toContain(`removed a leftover draft ${young.draft}`);
    expect(existsSync(path.join(root, young.draft))).toBe(false);
  });

  it("a first read makes the folder of the draft it names (0700), so a shell can write it; paused, it makes none", async () => {
    const root = gitRepo();
    const r = await inProcess(["read", "handoff", "--root", root]);
    expect(r.code).toBe(3);
    const draft = /^DRAFT: (\.ai\/memory\/drafts\/handoff-[0-9a-f]{8}\.md)$/m.exec(r.stderr)![1]!;
    // What `cat > <draft>` does: no folder is made on the way.
    writeFileSync(path.join(root, draft), handoff("first save"), { flag: "wx" });
    for (const dir of [".ai", ".ai/memory", ".ai/memory/drafts"]) expect(statSync(path.join(root, dir)).mode & 0o777).toBe(0o700);
    const token = "absent";
    expect((await inProcess(["write", "handoff", "--root", root, "--from-draft", draft, "--expected-current-sha256", token])).code).toBe(0);
    const paused = gitRepo();
    const p = await inProcess(["read", "handoff", "--root", paused], { env: { SESSION_HANDOFF_DISABLE: "1" } });
    expect(p.stderr).toMatch(/^DRAFT: /m);
    expect(existsSync(path.join(paused, ".ai"))).toBe(false);
  });

  it("paused, read says a save is refused before the agent drafts one; write keeps the draft for when writes resume", async () => {
    const root = gitRepo();
    mkdirSync(MEM(root), { recursive: true });
    writeFileSync(path.join(MEM(root), "PAUSE"), "");
    const r = await inProcess(["read", "handoff", "--root", root]);
    expect(r.stderr).toContain(`note: memory writes are paused (remove ${path.join(MEM(root), "PAUSE")} to resume): a save now is refused\n`);
    draft(root, handoff("Ship the importer."));
    const w = await write(root, "handoff", "absent");
    expect(w.code).toBe(4);
    expect(w.stderr).toMatch(/was kept \(for an hour after its last change\): run this again once writes resume\n$/);
    expect(existsSync(DRAFT(root))).toBe(true);
  });

  it("an empty draft is refused as an empty draft, not as empty stdin", async () => {
    const root = gitRepo();
    draft(root, "");
    const w = await write(root, "handoff", "absent");
    expect(w.code).toBe(2);
    expect(w.stderr).toContain("the draft .ai/memory/drafts/handoff-0123abcd.md is empty: write the whole document there");
    expect(w.stderr).not.toContain("stdin");
  });
});
