// A scripted model on 127.0.0.1 speaking the four wire formats the pinned CLIs use
// (test/harness/README.md). Each request is reduced to one shape (the prompt, the tool
// results since it, the whole body as text) and the scenario's script answers it with text or
// one tool call; the server turns that into the wire's SSE stream.
import http from "node:http";
import type { AddressInfo } from "node:net";

/** What a script sees of one model request. */
export interface ModelRequest {
  wire: "anthropic" | "responses" | "chat" | "gemini";
  /** URL path, e.g. `/v1/messages`. */
  path: string;
  /** The model name the CLI asked for. */
  model: string;
  /** The parsed body. */
  body: any;
  /** The body as JSON text: for searching the skill listing, the notice, instructions. */
  text: string;
  /** The text of the last user prompt (scaffolding such as system reminders included). */
  prompt: string;
  /** Tool results after the last user prompt, oldest first, as text. */
  results: string[];
  /** True for a CLI's side request (title, router, compaction summary, quota probe). */
  aux: boolean;
}

/** A script's answer: plain text, or one tool call (then the CLI runs it and asks again). */
export type Reply =
  | { text: string; inputTokens?: number }
  /** `freeform`: a custom (free-text) tool call such as Codex's code-mode `exec`; Responses wire only. */
  | { tool: string; input: Record<string, unknown>; freeform?: string; inputTokens?: number };

export type Script = (req: ModelRequest) => Reply;

/** A running fake model server. */
export interface FakeModel {
  url: string;
  port: number;
  /** Every request received, in order. */
  requests: ModelRequest[];
  /** Replaces the script (one per scenario). */
  setScript(script: Script): void;
  close(): Promise<void>;
}

let callSeq = 0;

function flatText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((c) => flatText(c)).join("\n");
  if (content && typeof content === "object") {
    const o = content as Record<string, unknown>;
    if (typeof o.text === "string") return o.text;
    if (o.content !== undefined) return flatText(o.content);
    if (typeof o.output === "string") return o.output;
    if (o.output !== undefined) return flatText(o.output);
    if (o.response !== undefined) return JSON.stringify(o.response);
  }
  return "";
}

/** Anthropic Messages: tool results are `tool_result` blocks inside user messages. */
function anthropicView(body: any): Pick<ModelRequest, "prompt" | "results"> {
  let prompt = "";
  let results: string[] = [];
  for (const m of body.messages ?? []) {
    if (m.role !== "user") continue;
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content ?? []);
    const tr = blocks.filter((b: any) => b.type === "tool_result");
    if (tr.length > 0) {
      for (const b of tr) results.push((b.is_error ? "[error] " : "") + flatText(b.content));
      continue;
    }
    const text = blocks
      .filter((b: any) => b.type === "text")
      .map((b: any) => b.text)
      .join("\n");
    // A meta message (a skill's body) follows its tool result: not a new prompt.
    if (/^Base directory for this skill:/.test(text) || text.trim() === "") {
      results.push(text);
      continue;
    }
    // Claude Code 2.1.112 puts the listing, the notice and git status in system reminders of
    // the first user message: the prompt is what is left.
    prompt = text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>\s*/g, "").trim();
    results = [];
  }
  return { prompt, results };
}

/** OpenAI Responses (Codex): `input` items; tool outputs are `*_call_output`. */
function responsesView(body: any): Pick<ModelRequest, "prompt" | "results"> {
  let prompt = "";
  let results: string[] = [];
  for (const it of body.input ?? []) {
    if (it.type === "message" && it.role === "user") {
      const text = flatText(it.content);
      if (/^<environment_context>|^# AGENTS\.md instructions|^<skills_instructions>/.test(text.trim())) continue;
      prompt = text;
      results = [];
    } else if (it.type === "function_call_output" || it.type === "custom_tool_call_output") {
      results.push(typeof it.output === "string" ? it.output : flatText(it.output));
    }
  }
  return { prompt, results };
}

/** Chat Completions (OpenCode): `role: tool` messages. */
function chatView(body: any): Pick<ModelRequest, "prompt" | "results"> {
  let prompt = "";
  let results: string[] = [];
  for (const m of body.messages ?? []) {
    if (m.role === "user") {
      prompt = flatText(m.content);
      results = [];
    } else if (m.role === "tool") results.push(flatText(m.content));
  }
  return { prompt, results };
}

/** Gemini: `contents` with `functionResponse` parts in user turns. */
function geminiView(body: any): Pick<ModelRequest, "prompt" | "results"> {
  let prompt = "";
  let results: string[] = [];
  for (const c of body.contents ?? []) {
    if (c.role !== "user") continue;
    const parts = c.parts ?? [];
    const fr = parts.filter((p: any) => p.functionResponse);
    if (fr.length > 0) {
      for (const p of fr) results.push(flatText(p.functionResponse.response));
      continue;
    }
    // The first user content holds Gemini's session context, then the prompt, to which our
    // SessionStart context is prepended as <hook_context>…</hook_context>.
    const last = parts.filter((p: any) => typeof p.text === "string").at(-1)?.text ?? "";
    prompt = last.replace(/^<hook_context>[\s\S]*?<\/hook_context>\s*/, "");
    results = [];
  }
  return { prompt, results };
}

function sse(res: http.ServerResponse, events: Array<[string | null, unknown]>, done = false): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "close" });
  for (const [name, data] of events) {
    if (name) res.write(`event: ${name}\n`);
    res.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
  }
  if (done) res.write("data: [DONE]\n\n");
  res.end();
}

function anthropicStream(res: http.ServerResponse, model: string, reply: Reply): void {
  const id = `msg_fake${++callSeq}`;
  const usage = {
    input_tokens: reply.inputTokens ?? 100,
    output_tokens: 10,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  const ev: Array<[string, unknown]> = [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id,
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      },
    ],
  ];
  if ("tool" in reply) {
    ev.push([
      "content_block_start",
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: `toolu_fake${callSeq}`, name: reply.tool, input: {} },
      },
    ]);
    ev.push([
      "content_block_delta",
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(reply.input) },
      },
    ]);
  } else {
    ev.push([
      "content_block_start",
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ]);
    ev.push([
      "content_block_delta",
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: reply.text } },
    ]);
  }
  ev.push(["content_block_stop", { type: "content_block_stop", index: 0 }]);
  ev.push([
    "message_delta",
    {
      type: "message_delta",
      delta: { stop_reason: "tool" in reply ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: 10 },
    },
  ]);
  ev.push(["message_stop", { type: "message_stop" }]);
  sse(res, ev);
}

function responsesStream(res: http.ServerResponse, model: string, reply: Reply): void {
  const id = `resp_fake${++callSeq}`;
  const item =
    "tool" in reply && reply.freeform !== undefined
      ? {
          type: "custom_tool_call",
          id: `ctc_fake${callSeq}`,
          call_id: `call_fake${callSeq}`,
          name: reply.tool,
          input: reply.freeform,
          status: "completed",
        }
      : "tool" in reply
        ? {
            type: "function_call",
            id: `fc_fake${callSeq}`,
            call_id: `call_fake${callSeq}`,
            name: reply.tool,
            arguments: JSON.stringify(reply.input),
            status: "completed",
          }
        : {
            type: "message",
            id: `msg_fake${callSeq}`,
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: reply.text, annotations: [] }],
          };
  const input = reply.inputTokens ?? 100;
  const usage = {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 10,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + 10,
  };
  sse(res, [
    [
      "response.created",
      { type: "response.created", response: { id, object: "response", model, status: "in_progress", output: [] } },
    ],
    ["response.output_item.added", { type: "response.output_item.added", output_index: 0, item }],
    ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
    [
      "response.completed",
      {
        type: "response.completed",
        response: { id, object: "response", model, status: "completed", output: [item], usage },
      },
    ],
  ]);
}

function chatStream(res: http.ServerResponse, model: string, reply: Reply): void {
  const id = `chatcmpl-fake${++callSeq}`;
  const chunk = (delta: unknown, finish: string | null, extra: Record<string, unknown> = {}) => ({
    id,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
  const ev: Array<[null, unknown]> = [[null, chunk({ role: "assistant", content: "" }, null)]];
  if ("tool" in reply) {
    ev.push([
      null,
      chunk(
        {
          tool_calls: [
            {
              index: 0,
              id: `call_fake${callSeq}`,
              type: "function",
              function: { name: reply.tool, arguments: JSON.stringify(reply.input) },
            },
          ],
        },
        null,
      ),
    ]);
    ev.push([null, chunk({}, "tool_calls")]);
  } else {
    ev.push([null, chunk({ content: reply.text }, null)]);
    ev.push([null, chunk({}, "stop")]);
  }
  const input = reply.inputTokens ?? 100;
  ev.push([
    null,
    {
      id,
      object: "chat.completion.chunk",
      created: 0,
      model,
      choices: [],
      usage: { prompt_tokens: input, completion_tokens: 10, total_tokens: input + 10 },
    },
  ]);
  sse(res, ev, true);
}

function geminiStream(res: http.ServerResponse, model: string, reply: Reply): void {
  ++callSeq;
  const part = "tool" in reply ? { functionCall: { name: reply.tool, args: reply.input } } : { text: reply.text };
  const input = reply.inputTokens ?? 100;
  sse(res, [
    [
      null,
      {
        candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: input, candidatesTokenCount: 10, totalTokenCount: input + 10 },
        modelVersion: model,
      },
    ],
  ]);
}

/** Starts the server on 127.0.0.1 (an ephemeral port). */
export async function startFakeModel(initial: Script): Promise<FakeModel> {
  let script = initial;
  const requests: ModelRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: any = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {
        body = { raw };
      }
      const p = url.pathname;
      let wire: ModelRequest["wire"] | undefined;
      let view: Pick<ModelRequest, "prompt" | "results"> = { prompt: "", results: [] };
      let model = String(body.model ?? "");
      if (req.method === "POST" && p.endsWith("/v1/messages")) {
        wire = "anthropic";
        view = anthropicView(body);
      } else if (req.method === "POST" && p.endsWith("/responses")) {
        wire = "responses";
        view = responsesView(body);
      } else if (req.method === "POST" && p.endsWith("/chat/completions")) {
        wire = "chat";
        view = chatView(body);
      } else if (req.method === "POST" && /:(stream)?[gG]enerateContent$/.test(p)) {
        wire = "gemini";
        view = geminiView(body);
        model = decodeURIComponent(p.replace(/^.*\/models\//, "").replace(/:.*$/, ""));
      }
      if (!wire) {
        // Model lists, count-tokens probes and the like: an empty answer the CLIs tolerate.
        res.writeHead(p.endsWith("/models") ? 200 : 404, { "content-type": "application/json" });
        res.end(p.endsWith("/models") ? JSON.stringify({ object: "list", data: [], models: [] }) : "{}");
        return;
      }
      const text = raw;
      const aux = isAux(wire, body, text, view);
      const mreq: ModelRequest = { wire, path: p, model, body, text, aux, ...view };
      requests.push(mreq);
      let reply: Reply;
      try {
        reply = aux ? auxReply(mreq) : script(mreq);
      } catch (e) {
        reply = { text: `FAKE-MODEL-SCRIPT-ERROR ${(e as Error).message}` };
      }
      if (wire === "gemini" && !p.includes("stream")) {
        ++callSeq;
        res.writeHead(200, { "content-type": "application/json" });
        const part = "tool" in reply ? { functionCall: { name: reply.tool, args: reply.input } } : { text: reply.text };
        res.end(
          JSON.stringify({
            candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
            usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 },
          }),
        );
        return;
      }
      if (wire === "anthropic") anthropicStream(res, model, reply);
      else if (wire === "responses") responsesStream(res, model, reply);
      else if (wire === "chat") chatStream(res, model, reply);
      else geminiStream(res, model, reply);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setScript(s) {
      script = s;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// Side requests each CLI makes besides the agent's turns: answered here so that scripts see
// only the agent's own requests.
function isAux(wire: ModelRequest["wire"], body: any, text: string, view: Pick<ModelRequest, "prompt">): boolean {
  if (wire === "anthropic") {
    const sys = flatText(body.system);
    // Title/topic detection, quota probes, compaction summaries.
    if (
      /Summarize this coding conversation|analyze if this message indicates a new conversation topic/i.test(sys) ||
      /Generate a concise|sentence-case title/i.test(sys)
    )
      return true;
    // The compaction request (2.1.112's wording; 2.1.332 words it otherwise, but asks for a summary too).
    if (/Your task is to create a detailed summary of the conversation so far/.test(view.prompt)) return true;
    if (/summar/i.test(view.prompt) && /conversation/i.test(view.prompt)) return true;
    if (body.max_tokens === 1 || view.prompt === "quota") return true;
    return false;
  }
  if (wire === "responses") return /You are performing a CONTEXT CHECKPOINT COMPACTION/.test(view.prompt);
  if (wire === "chat") {
    const sys = (body.messages ?? [])
      .filter((m: any) => m.role === "system")
      .map((m: any) => flatText(m.content))
      .join("\n");
    return (
      /You are a title generator|Generate a title|summar(y|ize) (of )?(the|this) conversation/i.test(sys) &&
      !/available_skills/.test(sys)
    );
  }
  // Gemini's model router and next-speaker checks ask for JSON.
  return (
    /"responseMimeType":"application\/json"/.test(text) ||
    /model_choice|next_speaker/.test(flatText(body.systemInstruction))
  );
}

function auxReply(req: ModelRequest): Reply {
  if (req.wire === "anthropic" && /summar/i.test(req.prompt)) {
    return {
      text:
        "<analysis>fake analysis</analysis>\n" +
        "<summary>FAKE-COMPACT-SUMMARY: the user asked for scripted work.</summary>",
    };
  }
  if (req.wire === "responses") return { text: "FAKE-CODEX-COMPACT-SUMMARY: scripted work so far." };
  if (req.wire === "gemini") {
    // The router and the next-speaker check send a JSON schema: answer with an object of it.
    const schema = req.body.generationConfig?.responseJsonSchema ?? req.body.generationConfig?.responseSchema;
    if (schema?.properties) return { text: JSON.stringify(fromSchema(schema)) };
    if (/next_speaker/.test(req.text)) return { text: JSON.stringify({ reasoning: "done", next_speaker: "user" }) };
    return { text: JSON.stringify({ reasoning: "fake router", model_choice: "flash" }) };
  }
  if (req.wire === "anthropic" && /topic/.test(req.text))
    return { text: JSON.stringify({ isNewTopic: false, title: null }) };
  return { text: "Fake title" };
}

/** A value of a (Gemini-style) JSON schema: the first enum value, 10 for numbers, "user" for next_speaker. */
function fromSchema(schema: any, key = ""): unknown {
  const type = String(schema?.type ?? "").toLowerCase();
  if (Array.isArray(schema?.enum) && schema.enum.length > 0)
    return key === "next_speaker" && schema.enum.includes("user") ? "user" : schema.enum[0];
  if (type === "object")
    return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, fromSchema(v, k)]));
  if (type === "array") return [];
  if (type === "integer" || type === "number") return 10;
  if (type === "boolean") return false;
  return key === "next_speaker" ? "user" : "fake";
}
