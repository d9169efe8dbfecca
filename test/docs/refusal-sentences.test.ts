// Goldens for the helper's fixed refusals (docs/design.md#sentences-the-helper-prints): each
// made for real in a temp repository, its words asserted whole and nothing on disk changed
// (rows of test/docs/sentences.ts). The verbs run in this process (inProcess: the same dispatch
// and redaction as the bundle); the built bundle is spawned where another process is the
// subject (the lock lost to one) and once for a refusal's words through the process boundary.
import { existsSync, linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { copyOf, git, gitRepo, handoff, helper, helperAsync, lastingGitRepo, snapshot, tempDir, waitFor } from "../helpers.ts";
import { inProcess, saveIn } from "../in-process.ts";

const REFUSED = "memory operation refused: ";
const USAGE = "usage error: ";
const mem = (root: string, ...p: string[]) => path.join(root, ".ai", "memory", ...p);
const write = (root: string, token: string, input = handoff("x")) => inProcess(["write", "handoff", "--root", root, "--expected-current-sha256", token], { input });

describe("write's refusals, word for word", () => {
  it("the token: missing, malformed, or naming a file that is absent", async () => {
    const root = gitRepo();
    // Spawned: a refusal's words and exit code through the process boundary.
    const missing = helper(["write", "handoff", "--root", root], { input: handoff("x") });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`${USAGE}--expected-current-sha256 TOKEN is required: pass the CURRENT-SHA256 token from \`read\` (or \`absent\`)\n`);
    const bad = await write(root, "XYZ");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${USAGE}--expected-current-sha256 must be \`absent\` or 64 lowercase hex characters, got "XYZ"\n`);
    const stale = await write(root, "a".repeat(64));
    expect(stale.code).toBe(2);
    expect(stale.stderr).toContain(`${REFUSED}HANDOFF.md changed since it was read (expected ${"a".repeat(64)}, current absent); read again and merge\n`);
    expect(existsSync(mem(root))).toBe(false);
  });

  it("the root: missing, a file, an empty --root", async () => {
    const dir = tempDir("sh-roots-");
    writeFileSync(path.join(dir, "file.md"), "x\n");
    expect((await write(path.join(dir, "nope"), "absent")).stderr).toContain(`${REFUSED}root ${path.join(dir, "nope")} does not exist; pass the project root with --root\n`);
    expect((await write(path.join(dir, "file.md"), "absent")).stderr).toContain(`${REFUSED}root ${path.join(dir, "file.md")} is not a directory; pass the project root with --root\n`);
    const timeout = await inProcess(["write", "handoff", "--root", dir, "--expected-current-sha256", "absent", "--lock-timeout", "soon"], { input: handoff("x") });
    expect(timeout.stderr).toContain(`${USAGE}--lock-timeout takes seconds as a decimal number ≥ 0, got "soon"\n`);
    const empty = await inProcess(["write", "handoff", "--root", "", "--expected-current-sha256", "absent"], { input: handoff("x") });
    expect(empty.stderr).toContain(`${USAGE}--root needs a folder: pass --root <project>, or leave it out to start from the current folder\n`);
  });
});

describe("the lock lost before publication, word for word", () => {
  it("another process's owner file in the lock when the save is about to publish: nothing published", async () => {
    const root = gitRepo();
    const token = await saveIn(root, handoff("first"), "absent");
    const before = readFileSync(mem(root, "HANDOFF.md"), "utf8");
    const gate = path.join(tempDir("sh-gate-"), "gate");
    const run = helperAsync(["write", "handoff", "--root", root, "--expected-current-sha256", token], { input: handoff("second"), env: { MEMORY_IO_FAILPOINT: `before-publication:pause=${gate}` } });
    await waitFor(`${gate}.ready`);
    // A writer that judged this lock stale and took it over (docs/decisions/lock.md).
    writeFileSync(mem(root, ".lock", "owner"), JSON.stringify({ pid: process.pid, host: "elsewhere", nonce: "someone-else" }));
    writeFileSync(`${gate}.go`, "");
    const r = await run;
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${REFUSED}lost the memory lock to another process before publishing; nothing was published: read again and retry\n`);
    expect(readFileSync(mem(root, "HANDOFF.md"), "utf8")).toBe(before);
  });
});

describe("the memory tree's refusals, word for word", () => {
  it("an unknown kind; .ai a link, a file; an archive/ that is a file", async () => {
    const root = gitRepo();
    expect((await write(root, "absent")).code).toBe(0);
    expect((await inProcess(["write", "bogus", "--root", root, "--expected-current-sha256", "absent"], { input: handoff("x") })).stderr).toContain(`${REFUSED}unknown kind "bogus": use handoff, lessons or solutions\n`);
    const linked = gitRepo();
    symlinkSync(tempDir("sh-elsewhere-"), path.join(linked, ".ai"));
    expect((await write(linked, "absent")).stderr).toContain(`${REFUSED}${path.join(linked, ".ai")} is a link; memory must live in real directories under the root (move the link away)\n`);
    const file = gitRepo();
    writeFileSync(path.join(file, ".ai"), "");
    expect((await write(file, "absent")).stderr).toContain(`${REFUSED}${path.join(file, ".ai")} is not a directory; move it away so the memory tree can be used\n`);
    expect(readFileSync(path.join(file, ".ai"), "utf8")).toBe("");
  });

  it("a memory file hard-linked elsewhere, or a link: read refuses it", async () => {
    const root = gitRepo();
    mkdirSync(mem(root), { recursive: true });
    const outside = path.join(tempDir("sh-outside-"), "HANDOFF.md");
    writeFileSync(outside, handoff("x"));
    linkSync(outside, mem(root, "HANDOFF.md"));
    expect((await inProcess(["read", "handoff", "--root", root])).stderr).toContain(`${REFUSED}${mem(root, "HANDOFF.md")} has more than one hard link; the helper only uses regular files with one link (move it away and retry)\n`);
    const other = gitRepo();
    mkdirSync(mem(other), { recursive: true });
    symlinkSync(outside, mem(other, "HANDOFF.md"));
    expect((await inProcess(["read", "handoff", "--root", other])).stderr).toContain(
      `${REFUSED}${mem(other, "HANDOFF.md")} is a link to ${JSON.stringify(outside)}; the helper only uses regular files with one link (replace the link with a copy of the file it points to, or move it away, and retry)\n`,
    );
  });
});

describe("write --from-draft's refusals, word for word", () => {
  const again = "write the whole document there with your file tool, then run this again";
  const rel = ".ai/memory/drafts/handoff-0123abcd.md";
  const fromDraft = (root: string) => inProcess(["write", "handoff", "--from-draft", rel, "--root", root, "--expected-current-sha256", "absent"]);
  const draft = (root: string) => mem(root, "drafts", "handoff-0123abcd.md");

  it("a directory is left; a link and a hard-linked file are removed unread", async () => {
    const root = gitRepo();
    mkdirSync(draft(root), { recursive: true });
    expect((await fromDraft(root)).stderr).toContain(`${REFUSED}${rel} is a directory, not a draft; move it away, then ${again}\n`);
    expect(existsSync(draft(root))).toBe(true);
    const outside = path.join(tempDir("sh-outside-"), "doc.md");
    writeFileSync(outside, handoff("x"));
    const other = gitRepo();
    mkdirSync(path.dirname(draft(other)), { recursive: true });
    symlinkSync(outside, draft(other));
    expect((await fromDraft(other)).stderr).toContain(`${REFUSED}${rel} is a link; it was removed unread: ${again}\n`);
    linkSync(outside, draft(other));
    expect((await fromDraft(other)).stderr).toContain(`${REFUSED}${rel} is hard-linked elsewhere; it was removed unread: ${again}\n`);
    expect(existsSync(draft(other))).toBe(false);
    expect(readFileSync(outside, "utf8")).toBe(handoff("x"));
  });

  it("a draft over the limit is kept to be shortened; a drafts folder that is a link is not entered", async () => {
    const root = gitRepo();
    mkdirSync(path.dirname(draft(root)), { recursive: true });
    writeFileSync(draft(root), "a".repeat(1_000_001));
    expect((await fromDraft(root)).stderr).toContain(`${REFUSED}the draft ${rel} is 1000001 bytes; memory documents are at most 1000000 bytes (shorten it)\n`);
    expect(existsSync(draft(root))).toBe(true);
    const other = gitRepo();
    mkdirSync(mem(other), { recursive: true });
    const elsewhere = tempDir("sh-drafts-");
    writeFileSync(path.join(elsewhere, "handoff-0123abcd.md"), handoff("x"));
    symlinkSync(elsewhere, mem(other, "drafts"));
    // The tree's one verdict refuses a linked drafts/ before the draft is looked at.
    expect((await fromDraft(other)).stderr).toContain(`${REFUSED}${mem(other, "drafts")} is a link; memory must live in real directories under the root (move the link away)\n`);
    expect(existsSync(path.join(elsewhere, "handoff-0123abcd.md"))).toBe(true);
  });

  it("no draft path: the shared draft of older flows is not read, and a draft of its own is named", async () => {
    const r = await inProcess(["write", "handoff", "--from-draft", "--root", gitRepo(), "--expected-current-sha256", "absent"]);
    expect(r.stderr).toMatch(/^usage error: --from-draft takes the path `read handoff` printed on its DRAFT: line; the shared \.ai\/memory\/drafts\/handoff\.md is not read any more\. Write your whole document to \.ai\/memory\/drafts\/handoff-[0-9a-f]{8}\.md with your file tool, then run `write handoff --from-draft \S+ --expected-current-sha256 <token>`\n/);
  });
});

describe("recover's word on a leftover draft", () => {
  it("a draft an interrupted save left is removed and said", async () => {
    const root = gitRepo();
    mkdirSync(mem(root, "drafts"), { recursive: true });
    writeFileSync(mem(root, "drafts", "handoff.md"), handoff("x"));
    const r = await inProcess(["recover", "--root", root]);
    expect(r.code).toBe(0);
    expect(`${r.stdout}${r.stderr}`).toContain("removed a leftover draft .ai/memory/drafts/handoff.md (drafts are private; write it again to save it)");
    expect(existsSync(mem(root, "drafts", "handoff.md"))).toBe(false);
  });
});

describe("install's refusals, word for word", () => {
  const homeEnv = () => {
    const home = tempDir("sh-home-");
    return { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
  };

  it("a rule file of ours' name that install did not write", async () => {
    const root = gitRepo();
    const file = path.join(root, ".cursor", "rules", "session-handoff.mdc");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, "mine\n");
    const r = await inProcess(["install", "--agent", "cursor", "--root", root], { env: homeEnv() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${REFUSED}.cursor/rules/session-handoff.mdc exists and was not written by install; nothing was changed. Move it away, or merge this into it by hand:\n`);
    expect(readFileSync(file, "utf8")).toBe("mine\n");
  });

  it("a settings file that is a link or hard-linked, a folder that is a link", async () => {
    const env = homeEnv();
    const target = path.join(tempDir("sh-target-"), "settings.json");
    writeFileSync(target, "{}\n");
    const root = gitRepo();
    const file = path.join(root, ".claude", "settings.json");
    mkdirSync(path.dirname(file));
    symlinkSync(target, file);
    expect((await inProcess(["install", "--agent", "claude-code", "--root", root], { env })).stderr).toContain(`${REFUSED}${file} is a link to ${target}; links are never followed or replaced, so nothing was changed. Add this to its target by hand:\n`);
    const hard = gitRepo();
    const hardFile = path.join(hard, ".claude", "settings.json");
    mkdirSync(path.dirname(hardFile));
    linkSync(target, hardFile);
    expect((await inProcess(["install", "--agent", "claude-code", "--root", hard], { env })).stderr).toContain(`${REFUSED}${hardFile} has more than one hard link; nothing was changed. Add this to it by hand:\n`);
    const linked = gitRepo();
    symlinkSync(tempDir("sh-elsewhere-"), path.join(linked, ".claude"));
    expect((await inProcess(["install", "--agent", "claude-code", "--root", linked], { env })).stderr).toContain(`${REFUSED}${path.join(linked, ".claude")} is a link; install writes only through real directories, so nothing was changed\n`);
    expect(readFileSync(target, "utf8")).toBe("{}\n");
  });

  it("HOME unset or missing: refused before anything is read", async () => {
    const root = gitRepo();
    const before = snapshot(root);
    expect((await inProcess(["install", "--agent", "claude-code", "--root", root], { env: { HOME: "" } })).stderr).toContain(
      `${REFUSED}install needs HOME set (the recorded Node lives under it); nothing was changed\n`,
    );
    const gone = path.join(tempDir("sh-home-"), "gone");
    expect((await inProcess(["install", "--agent", "claude-code", "--root", root], { env: { HOME: gone } })).stderr).toContain(`${REFUSED}HOME (${JSON.stringify(gone)}) does not exist; install records the Node under it, so nothing was changed\n`);
    expect(snapshot(root)).toEqual(before);
  });
});

describe("publish's refusals of a message, word for word", () => {
  it("a message of two lines; a message holding a secret", async () => {
    const root = gitRepo();
    const env = { HOME: tempDir("sh-home-") };
    expect((await inProcess(["publish", "--root", root, "--message", "one\ntwo"], { env })).stderr).toContain(`${REFUSED}--message must be one non-empty line of text\n`);
    // Assembled here so no literal in the repository looks like a token (docs/design.md#redaction).
    const token = ["ghp", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"].join("_");
    expect((await inProcess(["publish", "--root", root, "--message", `rotate ${token}`], { env })).stderr).toContain(`${REFUSED}--message holds a secret (github-token); write the message without it and retry\n`);
  });
});

describe("the merge driver's lines, word for word", () => {
  let template: string | null = null;
  /** A repository with a saved handoff and an identity to commit with: made once, then copied. */
  async function withHandoff(): Promise<string> {
    if (template === null) {
      template = lastingGitRepo();
      git(template, "config", "user.name", "Test");
      git(template, "config", "user.email", "test@example.com");
      await saveIn(template, handoff("x"), "absent");
    }
    return copyOf(template);
  }

  it("publish without HOME, with a folder where the driver's copy goes, with a .gitattributes folder: published, and why the driver is not", async () => {
    // The driver's copy lives in the clone's git dir: no HOME is needed.
    const noHome = await withHandoff();
    const a = await inProcess(["publish", "--root", noHome], { env: { HOME: "", XDG_CONFIG_HOME: "" } });
    expect(a.code).toBe(0);
    expect(a.stdout).toMatch(/^registered the merge driver session-handoff in \.git\/config$/m);
    expect(a.stderr).toBe("");
    const fileConfig = await withHandoff();
    const home = tempDir("sh-home-");
    mkdirSync(path.join(fileConfig, ".git", "session-handoff", "merge-driver.mjs"), { recursive: true });
    const b = await inProcess(["publish", "--root", fileConfig], { env: { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") } });
    expect(b.code).toBe(0);
    expect(b.stderr).toMatch(/^the merge driver was not registered: its copy of the helper could not be written \(EISDIR: .+\)$/m);
    const folder = await withHandoff();
    mkdirSync(path.join(folder, ".gitattributes"));
    const c = await inProcess(["publish", "--root", folder], { env: { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") } });
    expect(c.code).toBe(0);
    expect(c.stdout).toMatch(/^registered the merge driver session-handoff in \.git\/config$/m);
    // Said once: no trailing "; not changed" after "was not changed".
    expect(c.stderr).toMatch(/^\.gitattributes was not changed: \S*\.gitattributes is a folder, not a file; only a regular file of at most 1 MB is edited$/m);
  });

  it("install registers, uninstall removes: each change said", async () => {
    const root = gitRepo();
    const home = tempDir("sh-home-");
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") };
    const i = await inProcess(["install", "--agent", "cursor", "--root", root], { env });
    expect(i.stdout).toContain("registered the merge driver session-handoff in .git/config\nadded the merge driver's block to .gitattributes\n");
    const u = await inProcess(["uninstall", "--agent", "cursor", "--root", root], { env });
    expect(u.code).toBe(0);
    expect(u.stdout).toContain("removed the merge driver session-handoff from .git/config\nremoved the merge driver's block from .gitattributes\n");
  });
});
