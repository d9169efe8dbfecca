import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseTranscript } from "../../src/agents/transcripts/parsers.ts";
import { readTranscriptTail } from "../verbs/support.ts";
import type { TranscriptFormat } from "../../src/agents/transcripts/types.ts";
import { renderCheckpoint } from "../../src/checkpoint/capture.ts";
import { prngOf } from "../fixtures/scripts.ts";
import { gitRepo, tempDir } from "../helpers.ts";
import { checkpoint, cpText } from "../verbs/support.ts";

// checkpoint reads the last 1 MiB first, all of the last 4 MiB when needed. Oracle: for any
// transcript, the checkpoint's user requests, plan and last claim equal what the adapter gives
// on all of the last 4 MiB (readTranscriptTail, then ADAPTERS[format]), and Session-start is
// the file's first record's timestamp. Seeded random transcripts, many with a plan record or a
// plan tool's first letters placed on the 1 MiB boundary; run through the built helper.
// CHECKPOINT_SEEDS=n runs n cases (default 60), CHECKPOINT_SEED0=s starts at seed s.

const MiB = 1024 * 1024;

interface Gen {
  r: () => number;
  n: number;
  ts: () => string;
  int: (lo: number, hi: number) => number;
  pick: <T>(xs: readonly T[]) => T;
}

function gen(seed: number): Gen {
  const r = prngOf(seed);
  let clock = Date.UTC(2026, 10, 29, 8, 0, 0);
  const g: Gen = {
    r,
    n: 0,
    ts: () => new Date((clock += 1000)).toISOString(),
    int: (lo, hi) => lo + Math.floor(r() * (hi - lo + 1)),
    pick: (xs) => xs[Math.floor(r() * xs.length)]!,
  };
  return g;
}

const WORDS = ["alpha", "naïve", "日本語", "emoji 🎉", "Task", "Todo", "update", "write", "TaskList", "Todos", "update_pla", "write_todo", "TodoWrit", "TaskCreat"];
const text = (g: Gen, words: number) => Array.from({ length: words }, () => g.pick(WORDS)).join(" ");

type Kind = "request" | "claim" | "plan" | "output" | "noise" | "sidechain";

interface Format {
  record(g: Gen, kind: Kind, bytes?: number): string;
  /** The first record: small, with the file's first timestamp. */
  first(g: Gen): { line: string; ts: string };
}

// Claude: tasks are created (TaskCreate + its result) and updated by id; TodoWrite replaces.
function claudeFormat(): Format {
  let taskSeq = 0;
  const rec = (g: Gen, o: Record<string, unknown>) => `${JSON.stringify({ parentUuid: null, isSidechain: false, sessionId: "s", uuid: `u${++g.n}`, timestamp: g.ts(), ...o })}\n`;
  const tool = (g: Gen, name: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    rec(g, { type: "assistant", message: { role: "assistant", content: [{ type: "tool_use", id: `toolu_${g.n}`, name, input }] }, ...extra });
  return {
    first(g) {
      const line = rec(g, { type: "user", message: { role: "user", content: `first request ${text(g, 3)}` } });
      return { line, ts: JSON.parse(line).timestamp };
    },
    record(g, kind, bytes) {
      switch (kind) {
        case "request":
          return rec(g, { type: "user", message: { role: "user", content: `req ${g.n} ${text(g, g.int(1, 6))}` } });
        case "claim":
          return rec(g, { type: "assistant", message: { role: "assistant", content: [{ type: "text", text: `claim ${g.n} ${text(g, g.int(1, 6))}` }] } });
        case "plan": {
          const which = g.pick(["TodoWrite", "TaskCreate", "TaskUpdate"]);
          if (which === "TodoWrite") {
            const todos = Array.from({ length: g.int(1, 4) }, (_, i) => ({ content: `todo ${g.n}.${i}`, status: g.pick(["pending", "in_progress", "completed"]), activeForm: "x" }));
            return tool(g, "TodoWrite", { todos });
          }
          if (which === "TaskCreate") {
            const id = String(++taskSeq);
            const use = tool(g, "TaskCreate", { subject: `task ${id} ${g.n}`, description: "d" });
            const useId = `toolu_${g.n}`;
            return use + rec(g, { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: useId, content: `Task #${id} created successfully` }] }, toolUseResult: { task: { id } } });
          }
          return tool(g, "TaskUpdate", { taskId: String(g.int(1, Math.max(1, taskSeq))), status: g.pick(["in_progress", "completed", "pending"]) });
        }
        case "output":
          return rec(g, { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_out${g.n}`, content: "o".repeat(bytes ?? 1000) }] }, toolUseResult: { stdout: "" } });
        case "noise":
          return rec(g, { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_n${g.n}`, content: `${text(g, 8)} TaskGet Task Todo ${"é".repeat(g.int(0, 5))}` }] }, toolUseResult: {} });
        case "sidechain":
          return tool(g, "TodoWrite", { todos: [{ content: `sidechain todo ${g.n}`, status: "pending" }] }, { isSidechain: true });
      }
    },
  };
}

function codexFormat(): Format {
  const line = (g: Gen, type: string, payload: Record<string, unknown>) => `${JSON.stringify({ timestamp: g.ts(), type, payload })}\n`;
  return {
    first(g) {
      const l = line(g, "session_meta", { id: "x", cwd: "/p", originator: "codex_cli_rs" });
      return { line: l, ts: JSON.parse(l).timestamp };
    },
    record(g, kind, bytes) {
      switch (kind) {
        case "request": {
          const t = `req ${g.n++} ${text(g, g.int(1, 6))}`;
          return line(g, "response_item", { type: "message", role: "user", content: [{ type: "input_text", text: t }] }) + line(g, "event_msg", { type: "user_message", message: t, images: [] });
        }
        case "claim": {
          const t = `claim ${g.n++} ${text(g, g.int(1, 6))}`;
          return line(g, "response_item", { type: "message", role: "assistant", content: [{ type: "output_text", text: t }] }) + line(g, "event_msg", { type: "agent_message", message: t });
        }
        case "plan": {
          const plan = Array.from({ length: g.int(1, 4) }, (_, i) => ({ step: `step ${g.n}.${i}`, status: g.pick(["pending", "in_progress", "completed"]) }));
          g.n++;
          return line(g, "response_item", { type: "function_call", name: "update_plan", arguments: JSON.stringify({ plan }), call_id: `call_${g.n}` });
        }
        case "output":
          return line(g, "response_item", { type: "function_call_output", call_id: `nope${g.n++}`, output: "o".repeat(bytes ?? 1000) });
        case "noise":
        case "sidechain":
          return line(g, "response_item", { type: "function_call_output", call_id: `n${g.n++}`, output: `${text(g, 8)} update update_pl write` });
      }
    },
  };
}

function geminiFormat(): Format {
  const msg = (g: Gen, o: Record<string, unknown>) => `${JSON.stringify({ id: `m${++g.n}`, timestamp: g.ts(), ...o })}\n`;
  return {
    first(g) {
      const ts = g.ts();
      return { line: `${JSON.stringify({ sessionId: "g", projectHash: "h", startTime: ts, lastUpdated: ts })}\n`, ts };
    },
    record(g, kind, bytes) {
      switch (kind) {
        case "request":
          return msg(g, { type: "user", content: `req ${g.n} ${text(g, g.int(1, 6))}` });
        case "claim":
          return msg(g, { type: "gemini", content: `claim ${g.n} ${text(g, g.int(1, 6))}` });
        case "plan": {
          const todos = Array.from({ length: g.int(1, 4) }, (_, i) => ({ description: `todo ${g.n}.${i}`, status: g.pick(["pending", "in_progress", "completed"]) }));
          return msg(g, { type: "gemini", content: "", toolCalls: [{ id: "tc", name: "write_todos", args: { todos }, status: "success", result: [] }] });
        }
        case "output":
          return msg(g, { type: "gemini", content: "", toolCalls: [{ id: "tc", name: "read_file", args: { file_path: "/p/x" }, status: "success", result: "o".repeat(bytes ?? 1000) }] });
        case "noise":
        case "sidechain":
          return msg(g, { type: "info", content: `${text(g, 8)} write writ write_todo` });
      }
    },
  };
}

const FORMATS: Record<TranscriptFormat, () => Format> = { claude: claudeFormat, codex: codexFormat, gemini: geminiFormat };

function records(g: Gen, f: Format, count: number, bigOutputs: number, plans = true): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let x = g.r();
    while (!plans && x >= 0.35 && x < 0.5) x = g.r();
    const kind: Kind = x < 0.2 ? "request" : x < 0.35 ? "claim" : x < 0.5 ? "plan" : x < 0.6 ? "noise" : x < 0.65 ? "sidechain" : "output";
    out.push(f.record(g, kind, kind === "output" ? g.int(100, bigOutputs) : undefined));
  }
  return out;
}

/** A transcript and its first timestamp. `pivot` (a plan record or noise) is placed across the 1 MiB boundary. */
function transcriptFor(seed: number, format: TranscriptFormat): { text: string; firstTs: string } {
  const g = gen(seed);
  const f = FORMATS[format]();
  const first = f.first(g);
  const head = [first.line, ...records(g, f, g.int(0, 60), g.pick([2000, 60_000, 400_000]))];
  // Optional bulk further back so the file reaches 1-5 MiB.
  const bulk = g.int(0, 3);
  for (let i = 0; i < bulk; i++) head.push(f.record(g, "output", g.int(100_000, 1_400_000)));
  const pivot = f.record(g, g.r() < 0.7 ? "plan" : "noise");
  // Half the tails hold no plan record (the pivot is then the latest plan) and end with requests and a claim.
  const plain = g.r() < 0.5;
  const tail = records(g, f, g.int(0, 40), 2000, !plain);
  if (plain && g.r() < 0.8) tail.push(f.record(g, "request"), f.record(g, "request"), f.record(g, "request"), f.record(g, "claim"));
  const tailBytes = Buffer.byteLength(tail.join(""));
  // Where the boundary falls inside the pivot: at its start, near a plan tool's name, or anywhere.
  const pb = Buffer.from(pivot);
  const nameAt = ["TodoWrite", "TaskCreate", "TaskUpdate", "update_plan", "write_todos", "Task", "Todo", "update", "write"].map((m) => pb.indexOf(m)).filter((i) => i >= 0);
  const mode = g.r();
  const k = mode < 0.25 ? 0 : mode < 0.7 && nameAt.length > 0 ? g.pick(nameAt) + g.int(-2, 12) : g.int(-50, pb.length + 50);
  // pivot + filler + tail = 1 MiB + k bytes, so the boundary (size - 1 MiB) is k bytes into the pivot.
  const want = MiB + k - pb.length - tailBytes;
  let filler = "";
  if (want > 400) {
    const probe = f.record(g, "output", 0);
    filler = f.record(g, "output", want - Buffer.byteLength(probe));
    // An "o" more or less: timestamps and ids have a fixed width here, so one retry settles it.
    const diff = want - Buffer.byteLength(filler);
    if (diff !== 0) filler = f.record(g, "output", want - Buffer.byteLength(probe) + diff);
  }
  return { text: [...head, pivot, filler, ...tail].join(""), firstTs: first.ts };
}

const sectionsOf = (t: string) => {
  const pick = (h: string) => {
    const at = t.indexOf(`${h}\n`);
    return at < 0 ? null : t.slice(at, t.indexOf("\n\n", at));
  };
  return { requests: pick("## User requests"), plan: pick("## Plan state"), claim: pick("## Last claim") };
};

function oracle(file: string, format: TranscriptFormat, root: string) {
  const tail = readTranscriptTail(file);
  if (!tail.ok) throw new Error(tail.reason);
  const cap = parseTranscript(format, tail.tail);
  cap.filesEdited = [];
  cap.commands = [];
  const { text } = renderCheckpoint({ saved: "x", session: "x", sessionStart: null, trigger: "pre-compact", source: "x", capture: cap, compactSummary: null, anchorLines: [], root });
  return sectionsOf(text);
}

describe("checkpoint: the 1 MiB first read gives what the 4 MiB read gives", () => {
  const n = Number(process.env.CHECKPOINT_SEEDS ?? 60);
  const seed0 = Number(process.env.CHECKPOINT_SEED0 ?? 1);
  it(`${n} seeded transcripts (claude, codex, gemini)`, { timeout: 600_000 }, () => {
    const root = gitRepo();
    const dir = tempDir("sh-cpwin-");
    const failures: string[] = [];
    const sources = new Map<string, number>();
    for (let seed = seed0; seed < seed0 + n; seed++) {
      const format = (["claude", "codex", "gemini"] as const)[seed % 3]!;
      const { text, firstTs } = transcriptFor(seed, format);
      const file = path.join(dir, `t-${seed}.jsonl`);
      writeFileSync(file, text);
      const session = `seed-${seed}`;
      const r = checkpoint(root, { session_id: session, transcript_path: file }, ["--format", format]);
      const got = cpText(root, session);
      if (r.code !== 0 || got === null) {
        failures.push(`seed ${seed} ${format}: no checkpoint (${r.stderr.trim()})`);
        continue;
      }
      const want = oracle(file, format, root);
      const have = sectionsOf(got);
      const src = /^Source: (.*)$/m.exec(got)?.[1];
      sources.set(String(src), (sources.get(String(src)) ?? 0) + 1);
      for (const key of ["requests", "plan", "claim"] as const) {
        if (have[key] !== want[key]) failures.push(`seed ${seed} ${format} ${key} (Source: ${src}; stderr ${JSON.stringify(r.stderr.trim())}):\n  got  ${JSON.stringify(have[key])}\n  want ${JSON.stringify(want[key])}`);
      }
      const start = /^Session-start: (.*)$/m.exec(got)?.[1];
      if (start !== firstTs) failures.push(`seed ${seed} ${format} Session-start: got ${start}, want ${firstTs}`);
    }
    console.log(Object.fromEntries(sources));
    expect(failures).toEqual([]);
  });
});
