// The prefix rules end to end through the built bundle (docs/decisions/redaction-prefixes.md): the
// hostile tester's leaks reach neither HANDOFF.md, nor a checkpoint, nor a commit message, nor
// any output, and `validate` no longer scores them secrets 5/5.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { everyByteUnder, git, gitRepo, handoff, helper } from "../helpers.ts";
import { checkpoint, cpText } from "../verbs/support.ts";
import { awsKeyId, awsSecret, githubToken, hex, pemLines, pemMaterial } from "../fixtures/redaction/attacks.ts";

const withFailed = (block: string): string => handoff("Rotate the deploy key.").replace("## Failed approaches\n- none\n", `## Failed approaches\n- Pasted the key from the review thread:\n${block}\n`);

describe("write and validate: a PEM key under a line prefix", () => {
  const lines = pemLines(530);
  const material = pemMaterial(lines).map((m) => m.slice(0, 24));
  it.each([
    ["> ", lines.map((l) => `  > ${l}`).join("\n")],
    ["// ", lines.map((l) => `  // ${l}`).join("\n")],
    ["table cells", `  | key |\n  | --- |\n${lines.map((l) => `  | ${l} |`).join("\n")}`],
    ["JSON array", `  ${JSON.stringify(lines)}`],
    ["\\\\n-escaped", `  ${JSON.stringify(JSON.stringify({ key: lines.join("\n") }))}`],
  ])("%s: not on disk, not on any output; validate scores secrets 0/5", (_name, block) => {
    const root = gitRepo();
    const doc = withFailed(block);
    const v = helper(["validate", "handoff", "--stdin", "--json"], { input: doc });
    const parts = (JSON.parse(v.stdout) as { parts: Record<string, { score: number; max: number }> }).parts;
    expect(parts["secrets"]).toEqual({ score: 0, max: 5 });
    const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: doc });
    expect(w.code, w.stderr).toBe(0);
    expect(w.stderr).toMatch(/redacted \d+ secret\(s\): private-key/);
    const disk = everyByteUnder(path.join(root, ".ai", "memory"));
    for (const m of material) {
      expect(disk).not.toContain(m);
      expect(w.stdout + w.stderr + v.stdout + v.stderr).not.toContain(m);
    }
  });
});

describe("write: the unnamed AWS secret beside its id", () => {
  it("is redacted on disk", () => {
    const root = gitRepo();
    const secret = awsSecret(531);
    const doc = withFailed(`  ${awsKeyId(532)}\n  ${secret}`);
    const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: doc });
    expect(w.code, w.stderr).toBe(0);
    expect(everyByteUnder(path.join(root, ".ai", "memory"))).not.toContain(secret);
  });
});

/** A Claude Code transcript: one request, one Bash call with `command`, its result, a final claim. */
function claudeTranscript(dir: string, command: string, result: string, claim: string): string {
  const base = { sessionId: "s", version: "2.1.80", cwd: dir, gitBranch: "main", isSidechain: false };
  const lines = [
    { ...base, type: "user", uuid: "u1", parentUuid: null, timestamp: "2026-12-01T09:00:00.000Z", message: { role: "user", content: "Call the webhook" } },
    { ...base, type: "assistant", uuid: "a1", timestamp: "2026-12-01T09:00:05.000Z", message: { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command } }] } },
    { ...base, type: "user", uuid: "u2", timestamp: "2026-12-01T09:00:06.000Z", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: result }] } },
    { ...base, type: "assistant", uuid: "a2", timestamp: "2026-12-01T09:00:09.000Z", message: { role: "assistant", content: [{ type: "text", text: claim }] } },
  ];
  const p = path.join(dir, "t.jsonl");
  writeFileSync(p, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return p;
}

describe("checkpoint: the transcript-only rules", () => {
  it("redacts a key pasted in prose and a shell variable sent as a bearer token", () => {
    const root = gitRepo();
    const prose = hex(533, 64);
    const k = hex(534, 40);
    const commit = hex(535, 40);
    const t = claudeTranscript(root, `K=${k}; curl -H "Authorization: Bearer $K" https://hooks.example.com/x`, "ok", `Done: here is webhook key ${prose}, the token fix is in commit ${commit}.`);
    const r = checkpoint(root, { transcript_path: t });
    expect(r.code).toBe(0);
    const text = cpText(root, "sess-1")!;
    expect(text).not.toContain(prose);
    expect(text).not.toContain(k);
    expect(r.stderr).not.toContain(prose);
    // A commit id after `commit` is kept.
    expect(text).toContain(commit);
    expect(text).toContain('curl -H "Authorization: Bearer $K"');
  });

  it("`redact` itself never applies them (the user's own text)", () => {
    const prose = `here is webhook key ${hex(536, 64)}\n`;
    expect(helper(["redact"], { input: prose }).stdout).toBe(prose);
  });
});

describe("publish --message holding a secret", () => {
  it("is refused, naming the kind, never the value, and nothing is committed", () => {
    const root = gitRepo();
    const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: handoff("Ship it.") });
    expect(w.code, w.stderr).toBe(0);
    const head = git(root, "rev-parse", "HEAD");
    const token = githubToken(537);
    const r = helper(["publish", "--root", root, "--message", `memory: rotated ${token}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--message holds a secret (github-token)");
    expect(r.stderr + r.stdout).not.toContain(token);
    expect(git(root, "rev-parse", "HEAD")).toBe(head);
    expect(git(root, "log", "--all", "--format=%B")).not.toContain(token);
  });
});

describe("anchors: a vendor token as a branch name", () => {
  it("is redacted in HANDOFF.md, checkpoints and anchors' output; drift's branch anchor is unverifiable", () => {
    const root = gitRepo();
    const token = githubToken(538);
    git(root, "checkout", "-q", "-b", token);
    const doc = handoff("Work on the branch.").replace(/## Environment anchors\n[\s\S]*$/, "## Environment anchors\n- none\n");
    const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: doc });
    expect(w.code, w.stderr).toBe(0);
    const a = helper(["anchors", "--root", root]);
    expect(a.stdout).toContain("- Branch: <redacted: github-token>");
    const c = checkpoint(root, {});
    expect(c.code).toBe(0);
    const d = helper(["drift", "--root", root, "--json"]);
    for (const out of [w.stdout, w.stderr, a.stdout, a.stderr, c.stderr, d.stderr, everyByteUnder(path.join(root, ".ai", "memory"))]) expect(out).not.toContain(token);
    expect(readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), "utf8")).toContain("- Branch: <redacted: github-token>");
    // The redacted branch anchor is not a branch name: it compares as unverifiable.
    const drift = JSON.parse(d.stdout) as { branchChanged: unknown; unverifiable: string[] };
    expect(drift.branchChanged).toBeNull();
    expect(drift.unverifiable).toContain("branch");
    expect(d.stdout).not.toContain(token);
    expect(helper(["drift", "--root", root]).stdout).not.toContain(token);
  });
});

describe("anchors --json: a vendor token as a dirty file's name", () => {
  it("is redacted in every field that names the file: dirty, hashes, modes", () => {
    const root = gitRepo();
    const token = githubToken(541);
    writeFileSync(path.join(root, token), "x\n");
    git(root, "add", token);
    git(root, "commit", "-q", "-m", "a file named like a token");
    writeFileSync(path.join(root, token), "y\n", { mode: 0o755 });
    chmodSync(path.join(root, token), 0o755);
    const a = helper(["anchors", "--root", root, "--json"]);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stdout + a.stderr).not.toContain(token);
    const json = JSON.parse(a.stdout) as { dirty: string[]; dirtyHashes: { path: string }[]; dirtyModes: { path: string }[] };
    for (const paths of [json.dirty, json.dirtyHashes.map((h) => h.path), json.dirtyModes.map((h) => h.path)]) {
      expect(paths).toEqual(["<redacted: github-token>"]);
    }
  });
});

describe("drift: a dirty file whose name holds a token, saved redacted", () => {
  it("reads still dirty while it is, and of unknown fate once committed, never reverted", () => {
    const root = gitRepo();
    const token = githubToken(547);
    mkdirSync(path.join(root, "keys"));
    writeFileSync(path.join(root, "keys", token), "1\n");
    const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: handoff("Keep the key.").replace(/## Environment anchors\n[\s\S]*$/, "## Environment anchors\n- none\n") });
    expect(w.code, w.stderr).toBe(0);
    const still = helper(["drift", "--root", root]).stdout;
    expect(still).toContain('dirty at the save, still dirty: "keys/<redacted: github-token>"');
    expect(still).not.toContain("reverted");
    git(root, "add", "keys");
    git(root, "commit", "-q", "-m", "the key");
    const after = helper(["drift", "--root", root]).stdout;
    expect(after).toContain('dirty at the save, clean now (committed, stashed or reverted): "keys/<redacted: github-token>"');
    expect(after + still).not.toContain(token);
  });
});
