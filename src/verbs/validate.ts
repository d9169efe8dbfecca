import { Absent } from "../errors.ts";
import { statInsideRoot } from "../git/anchors.ts";
import { findInvisible } from "../guard/invisible.ts";
import { handoffKeyFiles, validateHandoff } from "../schema/validate.ts";
import { issueLines, type Validation } from "../schema/validate-common.ts";
import { validateLedger } from "../schema/validate-ledger.ts";
import { listArchives, readArchive } from "../store/archive.ts";
import { FILE_OF, MAX_DOCUMENT_BYTES, parseKind, type Kind } from "../store/paths.ts";
import { readMemoryFile } from "../store/read.ts";
import { decodeStdin } from "../store/document.ts";
import { rootOption } from "./common.ts";
import { ok, type Verb } from "./types.ts";
import { quoted } from "../guard/sanitize.ts";
import { memoryText, type InvalidByte } from "../guard/file-verdict.ts";
import type { ReadFile } from "../store/files.ts";

// The previous handoff, for dropped items only: one holding a NUL is unsafe and not read.
function priorText(file: string, got: ReadFile | null): string | null {
  if (got === null) return null;
  try {
    return memoryText(file, got.bytes).text;
  } catch {
    return null;
  }
}

const UTF8_ONLY = "a memory file is UTF-8; write refuses it";

/** Human rendering of a validation: the verdict and score, errors, parts, findings, dropped items. */
function renderValidation(file: string, v: Validation): string {
  const errorCount = v.errors.filter((e) => e.rule !== "more").length;
  const more = v.errors.some((e) => e.rule === "more") ? "+" : "";
  const head = v.valid ? `${file}: valid` : `${file}: invalid, ${errorCount}${more} schema error(s)`;
  const lines = [
    `${head}, score ${v.score}/100`,
    ...issueLines(v.errors).map((l) => `error: ${l}`),
    `parts: ${Object.entries(v.parts).map(([k, p]) => `${k} ${p.score}/${p.max}`).join(", ")}`,
    ...issueLines(v.findings.filter((f) => f.rule !== "dropped")).map((l) => `finding: ${l}`),
    ...v.dropped.map((d) => `dropped: ${quoted(d)}`),
  ];
  return `${lines.join("\n")}\n`;
}

async function existingKeyFiles(root: string, text: string): Promise<Set<string>> {
  const out = new Set<string>();
  for (const k of handoffKeyFiles(text)) if ((await statInsideRoot(root, k)) !== null) out.add(k);
  return out;
}

/** `validate <kind>`: errors, score with its parts, findings, dropped items. */
export const validateVerb: Verb = {
  options: { root: { type: "string" }, stdin: { type: "boolean" }, json: { type: "boolean" } },
  positionals: [1, 1],
  help: `usage: node memory_io.mjs validate <handoff|lessons|solutions> [--root DIR]
       [--stdin] [--json]

Checks a memory document against its schema (references/handoff-schema.md,
lessons-schema.md, solutions-schema.md): the file under <root>/.ai/memory, or
with --stdin the text on stdin (at most 1,000,000 bytes).

Errors (exit 2) break the schema: the marker, heading, \`Saved:\`, required
sections and their order, anchor lines, merge conflict markers, bytes that are
not UTF-8, ledger headings. Everything else is a finding and never changes the
exit code; the score (0-100) is the parts' points over their maxima. Dropped
items: open steps and failed approaches of the previous handoff that this one
neither carries over nor closes. The rules and the parts' points:
references/verbs/validate.md.

options:
  --stdin   check the text on stdin instead of the file (a draft before saving)
  --json    print {"valid", "errors", "score", "parts", "findings", "dropped"}
  --root DIR  the project root

stdout: "<FILE>: valid, score N/100" or "<FILE>: invalid, N schema error(s),
        score N/100", then "error: line L: <rule>: <message>", "parts: …",
        "finding: …" and "dropped: …" lines. Text from the document is quoted
        data. Reads only; no lock.

exit: 0 valid (findings or not)
      2 schema errors; or refused: empty or oversized stdin, NUL, invalid UTF-8,
        unsafe file
      3 no such file under the root
`,
  async run(ctx) {
    const kind: Kind = parseKind(ctx.positionals[0]);
    const file = FILE_OF[kind];
    const fromStdin = ctx.values.stdin === true;
    const root = fromStdin && ctx.values.root === undefined ? null : rootOption(ctx);
    let text: string;
    let prior: string | null = null;
    let invalid: InvalidByte[] = [];
    const stderr: string[] = [];
    if (fromStdin) {
      text = decodeStdin(await ctx.readStdin(MAX_DOCUMENT_BYTES), "document");
      if (root !== null && kind === "handoff") {
        prior = priorText("HANDOFF.md", await readMemoryFile(root, "handoff"));
      }
    } else {
      const got = await readMemoryFile(root!, kind);
      if (got === null) throw new Absent(`no ${file} at ${root}/.ai/memory: nothing to validate`);
      // A NUL refuses as unsafe; invalid UTF-8 is a schema error.
      const m = memoryText(file, got.bytes);
      text = m.text;
      invalid = m.invalid;
      if (m.warning !== null) stderr.push(m.warning);
      if (kind === "handoff") {
        const newest = listArchives(root!).find((e) => e.regular);
        if (newest) prior = priorText(`archive/${newest.name}`, await readArchive(root!, newest.name));
      }
    }
    const v =
      kind === "handoff"
        ? validateHandoff(text, {
            mode: fromStdin ? "stdin" : "root",
            nowMs: Date.now(),
            prior,
            existingKeyFiles: root === null ? null : await existingKeyFiles(root, text),
          })
        : validateLedger(text, kind);
    const hidden = findInvisible(text.replace(/^\uFEFF/, ""));
    for (const h of hidden.slice(0, 5)) {
      const message = `${h.codePoint} at column ${h.column}: write refuses it`;
      v.findings.push({ rule: "invisible", line: h.line, message });
    }
    if (invalid.length > 0) {
      const b = invalid[0]!;
      const more = invalid.length > 1 ? ` (${invalid.length} invalid bytes in all)` : "";
      const byte = b.byte.toString(16).toUpperCase().padStart(2, "0");
      const message = `byte <0x${byte}> at column ${b.column} is not UTF-8${more}: ${UTF8_ONLY}`;
      v.errors.unshift({ rule: "utf-8", line: b.line, message });
      v.valid = false;
    }
    const code = v.valid ? 0 : 2;
    if (ctx.values.json === true) return ok(`${JSON.stringify(v)}\n`, stderr, code);
    return ok(renderValidation(file, v), stderr, code);
  },
};
