// `write <kind> --from-draft` (docs/decisions/save-form.md): the agent writes the document
// with its own file tool, the helper takes it from drafts/<kind>.md, saves it as `write`
// saves stdin, and removes the draft in every outcome.
import { chmodSync, closeSync, existsSync, fstatSync, openSync, readdirSync, linkSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, handoff, helper, MARKER, sha, tempDir, tokenOf, unstamped, type Run } from "../helpers.ts";

const MEM = (root: string) => path.join(root, ".ai", "memory");
const DRAFT = (root: string, kind = "handoff") => path.join(MEM(root), "drafts", `${kind}.md`);

// What a harness's file tool does: the folders made as needed, the file with the default mode.
function draft(root: string, text: string | Buffer, kind = "handoff", mode = 0o644): string {
  mkdirSync(path.dirname(DRAFT(root, kind)), { recursive: true });
  writeFileSync(DRAFT(root, kind), text, { mode });
  chmodSync(DRAFT(root, kind), mode);
  return DRAFT(root, kind);
}

const write = (root: string, kind: string, token: string, extra: string[] = [], env: Record<string, string> = {}): Run =>
  helper(["write", kind, "--from-draft", "--expected-current-sha256", token, ...extra], { cwd: root, env, input: "stdin is not the document\n" });

// A document no inline shell form carries through Gemini CLI's policy: backticks, `$HOME`,
// `$(…)` and a line `EOF`, in the places a handoff holds them.
const TRICKY_GOAL = "Keep `$HOME` and $(rm -rf /) as text; a heredoc would stop at the line below\nEOF\nand go on here with 'quotes' and \"doubles\" and \\backslashes\\.";
const trickyHandoff = () =>
  handoff(TRICKY_GOAL).replace("## Key files\n- none\n", "## Key files\n- `src/$(whoami).ts` — named by `$(whoami)`, not run\n- `README.md` — says `EOF` and $HOME\n");

describe("write --from-draft: the document from drafts/<kind>.md", () => {
  it("a handoff with backticks, $HOME, $(…) and a line EOF lands byte-exact; the draft is gone; stdin is not read", () => {
    const root = gitRepo();
    writeFileSync(path.join(root, "README.md"), "x\n");
    const doc = trickyHandoff();
    draft(root, doc);
    const r = write(root, "handoff", "absent");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^saved HANDOFF\.md\nCURRENT-SHA256: [0-9a-f]{64}\n$/);
    const saved = readFileSync(path.join(MEM(root), "HANDOFF.md"), "utf8");
    expect(unstamped(saved)).toBe(unstamped(doc));
    expect(saved).toContain(TRICKY_GOAL);
    expect(existsSync(DRAFT(root))).toBe(false);
    expect(statSync(path.join(MEM(root), "HANDOFF.md")).mode & 0o777).toBe(0o600);
  });

  it("a ledger is published with exactly the draft's bytes, and the token is theirs", () => {
    const root = gitRepo();
    const doc = `${MARKER}\n# Lessons\n\n## L-0001: Quote \`$HOME\`\n- When: $(always)\n- Lesson: a line\nEOF\n- Why: \`backticks\` break shells\n- Source: me, 2026-01-01\n- Status: active\n`;
    draft(root, doc, "lessons");
    const r = write(root, "lessons", "absent");
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(path.join(MEM(root), "LESSONS.md"), "utf8")).toBe(doc);
    expect(r.stdout).toBe(`saved LESSONS.md\nCURRENT-SHA256: ${sha(doc)}\n`);
    expect(existsSync(DRAFT(root, "lessons"))).toBe(false);
  });

  it("a second save of the same draft is unchanged, and the draft is removed again", () => {
    const root = gitRepo();
    draft(root, handoff("same"));
    expect(write(root, "handoff", "absent").code).toBe(0);
    draft(root, handoff("same"));
    const r = write(root, "handoff", tokenOf(root));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^unchanged HANDOFF\.md\n/);
    expect(existsSync(DRAFT(root))).toBe(false);
  });

  it("drafts/ is never seen by git: our drafts/.gitignore ignores all there, itself too; publish commits neither", () => {
    const root = gitRepo();
    draft(root, handoff("goal"));
    expect(write(root, "handoff", "absent").code).toBe(0);
    expect(readFileSync(path.join(MEM(root), "drafts", ".gitignore"), "utf8")).toMatch(/^\*$/m);
    draft(root, handoff("leftover"));
    const status = git(root, "status", "--porcelain", "--untracked-files=all");
    expect(status).toContain(".ai/memory/HANDOFF.md");
    expect(status).not.toMatch(/drafts|\.gitignore/);
    const p = helper(["publish", "--root", root]);
    expect(p.code, p.stderr).toBe(0);
    const files = git(root, "show", "--name-only", "--format=", "HEAD");
    expect(files).toContain(".ai/memory/HANDOFF.md");
    expect(files).not.toMatch(/drafts|\.gitignore/);
    // The ignore file is in drafts/: the memory dir itself gets no dot name of ours.
    expect(readdirSync(MEM(root)).filter((n) => n.startsWith("."))).toEqual([]);
    expect(readdirSync(MEM(root))).toContain("drafts");
  });

  it("a .gitignore of the user's in drafts/ is left as it is", () => {
    const root = gitRepo();
    mkdirSync(path.join(MEM(root), "drafts"), { recursive: true });
    writeFileSync(path.join(MEM(root), "drafts", ".gitignore"), "mine\n");
    draft(root, handoff("goal"));
    expect(write(root, "handoff", "absent").code).toBe(0);
    expect(readFileSync(path.join(MEM(root), "drafts", ".gitignore"), "utf8")).toBe("mine\n");
  });
});

describe("write --from-draft: the draft is removed in every outcome", () => {
  const refused = (r: Run, code: number, reason: RegExp) => {
    expect(r.code, r.stderr).toBe(code);
    expect(r.stderr).toMatch(reason);
    expect(r.stdout).toBe("");
  };
  const removedNote = /the draft \.ai\/memory\/drafts\/handoff\.md was removed: write it again before you retry\n$/;

  it("a stale token: refused, nothing saved, the draft removed, the refusal says so", () => {
    const root = gitRepo();
    draft(root, handoff("one"));
    expect(write(root, "handoff", "absent").code).toBe(0);
    const before = readFileSync(path.join(MEM(root), "HANDOFF.md"));
    draft(root, handoff("two"));
    const r = write(root, "handoff", "absent");
    refused(r, 2, /changed since it was read/);
    expect(r.stderr).toMatch(removedNote);
    expect(readFileSync(path.join(MEM(root), "HANDOFF.md")).equals(before)).toBe(true);
    expect(existsSync(DRAFT(root))).toBe(false);
  });

  it("a malformed token: refused, the draft removed", () => {
    const root = gitRepo();
    draft(root, handoff("x"));
    refused(write(root, "handoff", "nope"), 2, /--expected-current-sha256 must be/);
    expect(existsSync(DRAFT(root))).toBe(false);
  });

  it("a schema error: refused with its lines, nothing created but the draft's folders, the draft removed", () => {
    const root = gitRepo();
    draft(root, `${MARKER}\n# Session Handoff\n\n## Current goal\nx\n`);
    const r = write(root, "handoff", "absent");
    refused(r, 2, /HANDOFF\.md has \d+ schema error\(s\)/);
    expect(r.stderr).toMatch(removedNote);
    expect(existsSync(path.join(MEM(root), "HANDOFF.md"))).toBe(false);
    expect(existsSync(DRAFT(root))).toBe(false);
  });

  it("a secret is redacted before anything is saved, and the draft is removed", () => {
    const root = gitRepo();
    const token = ["gh", "p_", "R8x2Lq9vT4mN7pK3sW6yZ1aB5cD0eF8gH2jJ"].join("");
    draft(root, handoff(`the key is ${token}`));
    const r = write(root, "handoff", "absent");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/redacted 1 secret\(s\): github-token/);
    const saved = readFileSync(path.join(MEM(root), "HANDOFF.md"), "utf8");
    expect(saved).toContain("<redacted: github-token>");
    expect(saved).not.toContain(token);
    expect(existsSync(DRAFT(root))).toBe(false);
  });

  it("a link planted at drafts/handoff.md: refused, the link removed unread, its target untouched", () => {
    const root = gitRepo();
    const outside = path.join(tempDir(), "secret.md");
    writeFileSync(outside, handoff("not yours"));
    mkdirSync(path.dirname(DRAFT(root)), { recursive: true });
    symlinkSync(outside, DRAFT(root));
    refused(write(root, "handoff", "absent"), 2, /drafts\/handoff\.md is a link; it was removed unread/);
    expect(existsSync(DRAFT(root))).toBe(false);
    expect(readFileSync(outside, "utf8")).toBe(handoff("not yours"));
    expect(existsSync(path.join(MEM(root), "HANDOFF.md"))).toBe(false);
  });

  it("a hard link: refused and removed unread; the other name keeps its bytes and mode", () => {
    const root = gitRepo();
    const other = path.join(root, "other.md");
    writeFileSync(other, handoff("x"), { mode: 0o644 });
    mkdirSync(path.dirname(DRAFT(root)), { recursive: true });
    linkSync(other, DRAFT(root));
    refused(write(root, "handoff", "absent"), 2, /hard-linked elsewhere; it was removed unread/);
    expect(existsSync(DRAFT(root))).toBe(false);
    expect(statSync(other).mode & 0o777).toBe(0o644);
  });

  it("a FIFO: refused without blocking, removed", () => {
    const root = gitRepo();
    mkdirSync(path.dirname(DRAFT(root)), { recursive: true });
    execFileSync("mkfifo", [DRAFT(root)]);
    refused(write(root, "handoff", "absent"), 2, /not a regular file; it was removed unread/);
    expect(existsSync(DRAFT(root))).toBe(false);
  });

  it("over 1,000,000 bytes: refused naming the size, removed", () => {
    const root = gitRepo();
    draft(root, handoff("x".repeat(1_000_001)));
    refused(write(root, "handoff", "absent"), 2, /the draft \.ai\/memory\/drafts\/handoff\.md is \d+ bytes; memory documents are at most 1000000 bytes/);
    expect(existsSync(DRAFT(root))).toBe(false);
  });

  it("paused: exit 4, the draft removed, nothing saved", () => {
    const root = gitRepo();
    draft(root, handoff("x"));
    writeFileSync(path.join(MEM(root), "PAUSE"), "");
    const r = write(root, "handoff", "absent");
    refused(r, 4, /memory writes are paused/);
    expect(r.stderr).toMatch(removedNote);
    expect(existsSync(DRAFT(root))).toBe(false);
    expect(existsSync(path.join(MEM(root), "HANDOFF.md"))).toBe(false);
  });

  it("no draft: refused, saying where to write it", () => {
    const root = gitRepo();
    const r = write(root, "handoff", "absent");
    refused(r, 2, /no draft at \.ai\/memory\/drafts\/handoff\.md: write the whole document there with your file tool/);
    expect(r.stderr).not.toMatch(/was removed/);
    expect(existsSync(MEM(root))).toBe(false);
  });

  it("a draft readable by others is tightened to 0600 before it is read (the folder to 0700)", () => {
    const root = gitRepo();
    draft(root, handoff("x"), "handoff", 0o666);
    chmodSync(path.dirname(DRAFT(root)), 0o777);
    // The inode outlives its name while this descriptor is open: its mode is what write left.
    const fd = openSync(DRAFT(root), "r");
    try {
      expect(write(root, "handoff", "absent").code).toBe(0);
      expect(fstatSync(fd).mode & 0o777).toBe(0o600);
    } finally {
      closeSync(fd);
    }
    expect(statSync(path.dirname(DRAFT(root))).mode & 0o777).toBe(0o700);
    expect(existsSync(DRAFT(root))).toBe(false);
  });
});

describe("a leftover draft is private junk, not an interrupted save", () => {
  it("check keeps its code; recover removes it and says so; the saved handoff is untouched", () => {
    const root = gitRepo();
    draft(root, handoff("saved"));
    expect(write(root, "handoff", "absent").code).toBe(0);
    const saved = readFileSync(path.join(MEM(root), "HANDOFF.md"));
    draft(root, handoff("left behind"));
    const c = helper(["check", "--root", root]);
    expect(c.code).toBe(2);
    const r = helper(["recover", "--root", root]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("removed a leftover draft .ai/memory/drafts/handoff.md");
    expect(existsSync(DRAFT(root))).toBe(false);
    expect(readFileSync(path.join(MEM(root), "HANDOFF.md")).equals(saved)).toBe(true);
    expect(helper(["recover", "--root", root]).stdout).toBe("nothing to recover\n");
  });

  it("in a project with only a draft, check says nothing is parked", () => {
    const root = gitRepo();
    draft(root, handoff("x"));
    expect(helper(["check", "--root", root]).code).toBe(0);
  });

  it("recover never follows a link at drafts/ and never removes a directory there", () => {
    const root = gitRepo();
    const elsewhere = tempDir();
    writeFileSync(path.join(elsewhere, "handoff.md"), "keep\n");
    mkdirSync(MEM(root), { recursive: true });
    symlinkSync(elsewhere, path.join(MEM(root), "drafts"));
    // The tree's one verdict refuses a linked drafts/ as a whole.
    expect(helper(["recover", "--root", root]).code).toBe(2);
    expect(readFileSync(path.join(elsewhere, "handoff.md"), "utf8")).toBe("keep\n");
  });
});
