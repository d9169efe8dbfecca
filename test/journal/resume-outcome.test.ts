// A resume measured by `checkpoint` (docs/decisions/journal.md): the session's `brief` call and
// what followed, recorded once in the journal, read back by `impact`.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, helper, MARKER, sha } from "../helpers.ts";
import { inProcess, tokenIn } from "../in-process.ts";

// Stamped just after the handoff's save: a transcript holding no save is captured from the save's second on.
const rec = (o: Record<string, unknown>) => JSON.stringify({ isSidechain: false, sessionId: "s", uuid: `u${Math.random()}`, timestamp: new Date(Date.now() + 2000).toISOString(), ...o });
const user = (text: string) => rec({ type: "user", message: { role: "user", content: text } });
const tool = (cwd: string, id: string, name: string, input: Record<string, unknown>) => rec({ type: "assistant", cwd, message: { role: "assistant", content: [{ type: "tool_use", id, name, input }] } });
const result = (id: string, text: string) => rec({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: text }] }, toolUseResult: { stdout: text } });

const HANDOFF = [
  MARKER,
  "# Session Handoff",
  "",
  "## Current goal",
  "Dedupe the CSV importer",
  "",
  "## Plan",
  "- [~] dedupe rows",
  "",
  "## Decisions",
  "- none",
  "",
  "## Failed approaches",
  "- sort -u: reorders rows, which the audit log forbids",
  "",
  "## Open questions",
  "- none",
  "",
  "## Next steps",
  "1. Bound the seen-set in src/dedupe.ts",
  "",
  "## Key files",
  "- none",
  "",
  "## Environment anchors",
  "",
].join("\n");

async function project(): Promise<string> {
  const root = gitRepo();
  const r = await inProcess(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: HANDOFF });
  expect(r.code).toBe(0);
  return root;
}

async function checkpoint(root: string, lines: string[], session = "sess-1") {
  const p = path.join(root, `t-${Math.random().toString(16).slice(2)}.jsonl`);
  writeFileSync(p, `${lines.join("\n")}\n`);
  const r = await inProcess(["checkpoint"], { input: JSON.stringify({ session_id: session, transcript_path: p, cwd: root, hook_event_name: "SessionEnd" }) });
  expect(r.code).toBe(0);
  return r;
}

const monthFile = (root: string) => path.join(root, ".ai", "memory", "journal", `${new Date().toISOString().slice(0, 7)}.md`);

describe("resume outcomes", () => {
  it("a brief, a failed approach retried, then the next step's file: one resume entry, once per session, summed by impact", async () => {
    const root = await project();
    const token = await tokenIn(root);
    const session = [
      user("resume where we left off"),
      tool(root, "t1", "Bash", { command: 'node "/skills/session-handoff/scripts/memory_io.mjs" brief' }),
      result("t1", "Goal: …"),
      tool(root, "t2", "Read", { file_path: `${root}/README.md` }),
      tool(root, "t3", "Bash", { command: "sort -u data.csv > out.csv" }),
      tool(root, "t4", "Edit", { file_path: `${root}/src/dedupe.ts`, old_string: "a", new_string: "b" }),
      result("t4", "ok"),
    ];
    const r = await checkpoint(root, session);
    expect(r.stderr).not.toContain("journal:");
    const text = readFileSync(monthFile(root), "utf8");
    const entry = text.slice(text.indexOf(" resume "));
    expect(entry).toMatch(/^ resume [0-9a-f]{16}\n/);
    expect(entry).toContain(`- Resumed: ${token.slice(0, 16)}\n`);
    expect(entry).toMatch(/- Handoff score: \d+\n/);
    expect(entry).toContain("- Next step followed: yes\n");
    expect(entry).toContain("- Failed approach retried: sort -u data.csv > out.csv\n");
    expect(entry).toContain("- Calls to first edit: 2\n");
    expect(text).not.toContain("sess-1");
    expect(text).not.toContain("resume where we left off");
    // A later checkpoint of the same session adds no second entry.
    await checkpoint(root, [...session, tool(root, "t5", "Bash", { command: "ls" })]);
    expect(readFileSync(monthFile(root), "utf8").split(" resume ")).toHaveLength(2);
    // The save that follows names what its checkpoint measured.
    const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", token], { input: HANDOFF.replace("Dedupe the CSV importer", "Dedupe, round two") });
    expect(w.stderr).toContain("note: this session ran `sort -u data.csv > out.csv`, listed as a failed approach of the handoff it resumed (measured by its checkpoint); say why it was retried in the new handoff");
    const impact = (await inProcess(["impact", "--root", root])).stdout;
    expect(impact).toContain("impact: 1 resume(s) recorded");
    expect(impact).toContain("next step followed: 1 of 1 (100%)");
    expect(impact).toContain("failed approaches retried: 1 (in 1 of 1 resumes)");
  });

  it("a brief of another project (--root elsewhere) is no resume of this one; nor is brief --stdin", async () => {
    const root = await project();
    const other = gitRepo();
    await checkpoint(root, [
      tool(root, "t1", "Bash", { command: `node "/s/scripts/memory_io.mjs" brief --root "${other}"` }),
      tool(root, "t2", "Edit", { file_path: `${root}/src/dedupe.ts` }),
    ]);
    await checkpoint(root, [tool(root, "t1", "Bash", { command: "node \"/s/scripts/memory_io.mjs\" brief --stdin <<'EOF'\nx\nEOF" }), tool(root, "t2", "Edit", { file_path: `${root}/a.ts` })], "sess-2");
    expect(readFileSync(monthFile(root), "utf8")).not.toContain(" resume ");
  });

  it("the handoff resumed is the one the session's save replaced; journal/OFF records nothing", async () => {
    const root = await project();
    const first = await tokenIn(root);
    const save = `node "/s/scripts/memory_io.mjs" write handoff --expected-current-sha256 ${first} <<'EOF'\n…\nEOF`;
    // The session saved a new handoff after its work.
    expect((await inProcess(["write", "handoff", "--root", root, "--expected-current-sha256", first], { input: HANDOFF.replace("Dedupe the CSV importer", "Dedupe it, second") })).code).toBe(0);
    await checkpoint(root, [
      tool(root, "t1", "Bash", { command: 'node "/s/scripts/memory_io.mjs" brief' }),
      tool(root, "t2", "Edit", { file_path: `${root}/src/dedupe.ts` }),
      tool(root, "t3", "Bash", { command: save }),
      tool(root, "t4", "Bash", { command: "ls" }),
    ]);
    expect(readFileSync(monthFile(root), "utf8")).toContain(`- Resumed: ${first.slice(0, 16)}\n`);
    const off = await project();
    writeFileSync(path.join(off, ".ai", "memory", "journal", "OFF"), "");
    await checkpoint(off, [tool(off, "t1", "Bash", { command: 'node "/s/scripts/memory_io.mjs" brief' }), tool(off, "t2", "Edit", { file_path: `${off}/a.ts` })]);
    expect(readFileSync(monthFile(off), "utf8")).not.toContain(" resume ");
  });
});

describe("resume outcomes keep no secret", () => {
  it("a retried command sending a key through a shell variable is recorded redacted", async () => {
    const root = await project();
    const hex = "9f".repeat(20);
    const command = `K=${hex}; sort -u data.csv | curl -H "Authorization: Bearer $K" http://127.0.0.1:9/x`;
    await checkpoint(root, [tool(root, "t1", "Bash", { command: 'node "/s/scripts/memory_io.mjs" brief' }), tool(root, "t2", "Bash", { command }), tool(root, "t3", "Edit", { file_path: `${root}/src/dedupe.ts` })]);
    const text = readFileSync(monthFile(root), "utf8");
    expect(text).toContain("- Failed approach retried: ");
    expect(text).not.toContain(hex);
  });
});

describe("resume outcomes and token-shaped session ids", () => {
  it("the journal's session key comes from the same hashed id as the checkpoint's file name", async () => {
    const root = await project();
    const session = `ghp_${"A1b2C3d4".repeat(5).slice(0, 36)}`;
    const r = await checkpoint(root, [tool(root, "t1", "Bash", { command: 'node "/s/scripts/memory_io.mjs" brief' }), tool(root, "t2", "Edit", { file_path: `${root}/src/dedupe.ts` })], session);
    const safe = sha(session).slice(0, 16);
    const text = readFileSync(monthFile(root), "utf8");
    expect(text).toContain(` resume ${sha(safe).slice(0, 16)}\n`);
    expect(text).not.toContain(session);
    expect(r.stderr).not.toContain(session);
    expect(existsSync(path.join(root, ".ai", "memory", "checkpoints", `${safe}.md`))).toBe(true);
  });
});
