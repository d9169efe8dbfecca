// The adapters against what the pinned harnesses really wrote (test/fixtures/transcripts/real/,
// each folder's README says what a checkpoint of it must hold): the golden sections, from
// `## User requests` to `## Last claim`, then the facts of each README checked one by one.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { captureSource, sniffFormat } from "../../src/agents/transcripts/index.ts";
import { parseTranscript } from "../../src/agents/transcripts/parsers.ts";
import type { TranscriptFormat } from "../../src/agents/transcripts/types.ts";
import { renderCheckpoint } from "../../src/checkpoint/capture.ts";
import { gitRepo } from "../helpers.ts";
import { checkpoint, cpText } from "../verbs/support.ts";
import { FIXED_ANCHORS, FIXTURES } from "./golden.ts";

const REAL = path.join(FIXTURES, "real");
const PROJECT = "/home/dev/project";
// Built at run time, so that no file of the repository holds a token shape (test/fixtures/transcripts/real/README.md).
const TOKEN = ["gh", "p_", "abcdefghijklmnopqrstuvwxyz", "0123456789"].join("");

const real = (file: string) => readFileSync(path.join(REAL, file), "utf8");

/** The capture and the rendered sections of a real file, read whole, its format sniffed. */
function read(file: string, text = real(file)): { format: TranscriptFormat | null; source: string; sections: string } {
  const lines = text.split("\n");
  const format = sniffFormat(lines);
  if (format === null) return { format, source: "", sections: "" };
  const cap = parseTranscript(format, lines);
  const doc = renderCheckpoint({ saved: "2026-12-01T00:00:00Z", session: "s", sessionStart: cap.firstTimestamp, trigger: "session-end", source: captureSource(cap), capture: cap, compactSummary: null, anchorLines: FIXED_ANCHORS, root: PROJECT }).text;
  return { format, source: captureSource(cap), sections: doc.slice(doc.indexOf("## User requests"), doc.indexOf("## Environment anchors")) };
}

const CASES: [string, TranscriptFormat, string][] = [
  ["claude-code-2.1.112/queued.transcript.jsonl", "claude", "claude 2.1.112"],
  ["claude-code-2.1.112/work-compact.transcript.jsonl", "claude", "claude 2.1.112"],
  ["claude-code-2.1.332/queued.transcript.jsonl", "claude", "claude 2.1.332"],
  ["claude-code-2.1.332/compact.transcript.jsonl", "claude", "claude 2.1.332"],
  ["claude-code-2.1.332/work-resume.transcript.jsonl", "claude", "claude 2.1.332"],
  ["codex-cli-0.171.0/codemode-compaction.rollout.jsonl", "codex", "codex 0.171.0"],
  ["codex-cli-0.171.0/fallback-tools.rollout.jsonl", "codex", "codex 0.171.0"],
  ["gemini-cli-0.61.0/tools.chat.jsonl", "gemini", "gemini unknown"],
  ["gemini-cli-0.61.0/no-handoff-2.chat.jsonl", "gemini", "gemini unknown"],
  ["gemini-cli-0.61.0/activate-skill-brief.chat.jsonl", "gemini", "gemini unknown"],
];

const expectedOf = (file: string) => path.join(REAL, file.replace(/\.(transcript|rollout|chat)\.jsonl$/, ".expected.md"));

describe("real transcripts give their golden sections", () => {
  it.each(CASES)("%s", (file, format, source) => {
    const got = read(file);
    expect(got.format).toBe(format);
    expect(got.source).toBe(source);
    if (process.env.UPDATE_REAL_GOLDENS === "1") writeFileSync(expectedOf(file), got.sections);
    expect(got.sections).toBe(readFileSync(expectedOf(file), "utf8"));
  });
});

describe("what each README says a checkpoint must hold", () => {
  const section = (sections: string, name: string) => {
    const at = sections.indexOf(`## ${name}\n`);
    const rest = sections.slice(at + name.length + 4);
    return rest.slice(0, rest.search(/\n## |$/)).trim().split("\n");
  };

  it.each(["claude-code-2.1.112", "claude-code-2.1.332"])("Claude Code %s: messages typed while the agent works are the last requests, in order", (dir) => {
    const s = read(`${dir}/queued.transcript.jsonl`).sections;
    expect(section(s, "User requests")).toEqual([
      '- The user wrote: "now run the tests with npm test; my token is __FAKE_GITHUB_TOKEN__ if you need it"',
      '- The user wrote: "create test/math.test.js with node:test and run it"',
      '- The user wrote: "one more: add a multiply function too"',
    ]);
    expect(section(s, "Files edited")).toEqual(["- src/math.js"]);
    expect(section(s, "Commands")).toEqual(["- `node -e \"import('./src/math.js').then(m=>console.log(m.subtract(5,3)))\"` — ok"]);
    // The queue-operation records repeat the prompts: never counted a second time.
    expect(s.match(/create test\/math\.test\.js/g)).toHaveLength(1);
  });

  it("Claude Code 2.1.332 compact: the compaction's scaffolding is not a request", () => {
    const s = read("claude-code-2.1.332/compact.transcript.jsonl").sections;
    expect(section(s, "User requests")).toEqual(['- The user wrote: "Look at src/math.js and add a subtract function"', '- The user wrote: "create test/math.test.js with node:test and run it"']);
    expect(section(s, "Commands").map((l) => l.replace(/.*— /, ""))).toEqual(["ok", "ok"]);
  });

  it.each(["codemode-compaction", "fallback-tools"])("Codex 0.171 %s: the command with its exit code, apply_patch an edit, no plan", (name) => {
    const s = read(`codex-cli-0.171.0/${name}.rollout.jsonl`).sections;
    expect(section(s, "Files edited")).toEqual(["- src/sub.js"]);
    expect(section(s, "Commands")).toEqual(["- `ls src && false` — exit 1"]);
    expect(section(s, "Plan state")).toEqual(["- none captured"]);
    expect(section(s, "User requests")).toEqual(['- The user wrote: "Add a subtract function in src/sub.js and tell me what you did."']);
  });

  it.each(["tools", "no-handoff-2", "activate-skill-brief"])("Gemini 0.61 %s: the hook's context is never the user's words", (name) => {
    const s = read(`gemini-cli-0.61.0/${name}.chat.jsonl`).sections;
    expect(s).not.toMatch(/hook_context|session-handoff:/);
  });

  it("Gemini 0.61 tools: each reply counts once though it is written twice", () => {
    const s = read("gemini-cli-0.61.0/tools.chat.jsonl").sections;
    expect(section(s, "User requests")).toEqual(['- The user wrote: "Add a subtract function in src/sub.js"']);
    expect(section(s, "Plan state")).toEqual(["- [~] Write subtract", "- [ ] Add a test"]);
    expect(section(s, "Commands")).toEqual(["- `ls src && false` — exit 1"]);
    expect(section(s, "Files edited")).toEqual(["- src/sub.js"]);
  });
});

describe("a transcript written again into the same file is read once", () => {
  const lines = (file: string) => real(file).split("\n").filter((l) => l !== "");
  it.each(CASES)("%s with every line written twice in a row", (file) => {
    const doubled = lines(file).flatMap((l) => [l, l]).join("\n");
    expect(read(file, doubled).sections).toBe(read(file).sections);
  });
  it.each(CASES)("%s appended to itself: each record counts once", (file) => {
    expect(read(file, [...lines(file), ...lines(file)].join("\n")).sections).toBe(read(file).sections);
  });
  it("Codex: a completed item written again later counts once, at its last write", () => {
    const file = "codex-cli-0.171.0/fallback-tools.rollout.jsonl";
    const items = lines(file).filter((l) => l.includes('"item_completed"'));
    expect(items.length).toBe(4);
    expect(read(file, [...lines(file), ...items].join("\n")).sections).toBe(read(file).sections);
  });
});

describe("Codex names an edited file one way, with completed items or without", () => {
  const file = "codex-cli-0.171.0/fallback-tools.rollout.jsonl";
  const edited = (cwd: string, items: boolean) => {
    const lines = real(file).replaceAll(PROJECT, cwd).split("\n");
    const s = read(file, lines.filter((l) => items || !l.includes('"item_completed"')).join("\n")).sections;
    return s.slice(s.indexOf("## Files edited"), s.indexOf("## Commands"));
  };
  it.each([
    ["the repository root", PROJECT, "- src/sub.js"],
    ["a folder inside the repository", `${PROJECT}/pkg`, "- pkg/src/sub.js"],
    ["a folder outside the repository", "/home/dev/other", "- /home/dev/other/src/sub.js"],
  ])("a session in %s", (_, cwd, line) => {
    expect(edited(cwd, true)).toBe(`## Files edited\n${line}\n\n`);
    expect(edited(cwd, false)).toBe(`## Files edited\n${line}\n\n`);
  });
});

describe("formats by shape, not version (docs/design.md#checkpoints)", () => {
  it.each([
    ["claude-code-2.1.332/queued.transcript.jsonl", /"version":"2\.1\.332"/g, '"version":"7.0.0-next"', "claude 7.0.0-next"],
    ["codex-cli-0.171.0/codemode-compaction.rollout.jsonl", /"cli_version":"0\.171\.0"/g, '"cli_version":"1.4.2"', "codex 1.4.2"],
    ["codex-cli-0.171.0/fallback-tools.rollout.jsonl", /"cli_version":"0\.171\.0",?/g, "", "codex unknown"],
  ])("%s with another version is captured all the same", (file, from, to, source) => {
    const before = read(file);
    const after = read(file, real(file).replace(from, to));
    expect(after.source).toBe(source);
    expect(after.sections).toBe(before.sections);
  });

  it("an unrecognised shape is not read by any adapter", () => {
    const shuffled = real("gemini-cli-0.61.0/tools.chat.jsonl").replace(/"(sessionId|projectHash|startTime|type)":/g, '"x$1":');
    expect(read("x", shuffled).format).toBeNull();
  });
});

describe("real transcripts through the built helper", () => {
  // The project path of the real runs becomes the test's repository: files read as root-relative.
  const place = (root: string, file: string, text: string) => {
    const p = path.join(root, path.basename(file));
    writeFileSync(p, text.replaceAll(PROJECT, root));
    return p;
  };

  it("Claude Code 2.1.332: a queued message's token is redacted, and Source names the version", () => {
    const root = gitRepo();
    const p = place(root, "queued.jsonl", real("claude-code-2.1.332/queued.transcript.jsonl").replaceAll("__FAKE_GITHUB_TOKEN__", TOKEN));
    const r = checkpoint(root, { transcript_path: p, hook_event_name: "SessionEnd" }, ["--format", "claude"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("checkpoint: redacted 1 secret(s): github-token from the transcript");
    const text = cpText(root, "sess-1") ?? "";
    expect(text).toContain('- The user wrote: "now run the tests with npm test; my token is <redacted: github-token> if you need it"');
    expect(text).not.toContain(TOKEN);
    expect(text).toMatch(/^Trigger: session-end\nSource: claude 2\.1\.332\n/m);
  });

  it("Gemini 0.61: the request without our hook text, {} on stdout, nothing on stderr", () => {
    const root = gitRepo();
    const p = place(root, "tools.jsonl", real("gemini-cli-0.61.0/tools.chat.jsonl"));
    const r = checkpoint(root, { transcript_path: p, hook_event_name: "SessionEnd" }, ["--format", "gemini"]);
    expect(r).toMatchObject({ code: 0, stdout: "{}\n", stderr: "" });
    const text = cpText(root, "sess-1") ?? "";
    expect(text).toContain('## User requests\n- The user wrote: "Add a subtract function in src/sub.js"\n');
    expect(text).toContain("Source: gemini unknown\n");
  });

  it("a --format naming another harness does not override the shape of the records", () => {
    const root = gitRepo();
    const p = place(root, "codemode.jsonl", real("codex-cli-0.171.0/codemode-compaction.rollout.jsonl"));
    const r = checkpoint(root, { transcript_path: p, hook_event_name: "SessionEnd" }, ["--format", "claude"]);
    expect(r.code).toBe(0);
    const text = cpText(root, "sess-1") ?? "";
    expect(text).toContain("Source: codex 0.171.0\n");
    expect(text).toContain("- `ls src && false` — exit 1");
  });

  it("Claude Code 2.1.332: every line written twice gives the checkpoint of the file written once", () => {
    const root = gitRepo();
    const text = real("claude-code-2.1.332/work-resume.transcript.jsonl");
    const once = place(root, "once.jsonl", text);
    const twice = place(root, "twice.jsonl", text.replace(/^(.+)$/gm, "$1\n$1"));
    checkpoint(root, { transcript_path: once, hook_event_name: "SessionEnd", session_id: "once" });
    checkpoint(root, { transcript_path: twice, hook_event_name: "SessionEnd", session_id: "twice" });
    const body = (s: string) => (cpText(root, s) ?? "").replace(/^(Saved|Session|- Date):.*$/gm, "");
    expect(body("twice")).toContain("## User requests");
    expect(body("twice")).toBe(body("once"));
  });

  it("an unrecognised shape gives an anchors-only checkpoint that says why", () => {
    const root = gitRepo();
    const p = place(root, "x.jsonl", '{"a":1}\n{"b":2}\n');
    const r = checkpoint(root, { transcript_path: p, hook_event_name: "SessionEnd" });
    expect(r.code).toBe(0);
    expect(cpText(root, "sess-1") ?? "").toContain("Source: anchors only (transcript in an unrecognised format)\n");
  });
});
