import { Absent, Refused } from "../errors.ts";
import { statInsideRoot } from "../git/anchors.ts";
import { findInvisible } from "../guard/invisible.ts";
import { CONFLICTED_MESSAGE } from "../schema/conflicted.ts";
import { handoffKeyFiles, validateHandoff } from "../schema/validate.ts";
import { issueLines, type Validation } from "../schema/validate-common.ts";
import { validateLedger } from "../schema/validate-ledger.ts";
import { listArchives, readArchive } from "../store/archive-entries.ts";
import { FILE_OF, MAX_DOCUMENT_BYTES, parseKind, type Kind } from "../store/paths.ts";
import { readMemoryFile } from "../store/read.ts";
import { rootOption } from "./common.ts";
import { ok, type Verb, type VerbContext } from "./types.ts";
import { quoted } from "../guard/sanitize.ts";
import { loadMemoryText, memoryText, type InvalidByte } from "../guard/memory-text.ts";
import type { ReadFile } from "../store/files.ts";

// The previous handoff, for dropped items only: one holding a NUL is unsafe (docs/design.md#one-verdict-on-a-files-bytes) and not read.
function priorText(file: string, got: ReadFile | null): string | null {
  if (got === null) return null;
  try {
    return memoryText(file, got.bytes).text;
  } catch {
    return null;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

async function stdinText(ctx: VerbContext): Promise<string> {
  const raw = await ctx.readStdin();
  if (raw.length > MAX_DOCUMENT_BYTES) throw new Refused(`stdin is more than ${MAX_DOCUMENT_BYTES.toLocaleString("en-US")} bytes`);
  if (raw.length === 0) throw new Refused("stdin is empty: send the whole document on stdin");
  if (raw.includes(0)) throw new Refused(`the document contains a NUL byte (at byte ${raw.indexOf(0)}); send text only`);
  try {
    return utf8.decode(raw);
  } catch {
    throw new Refused("the document is not valid UTF-8; convert it to UTF-8 and retry");
  }
}

/** Human rendering of a validation: the verdict and score, errors, parts, findings, dropped items. */
export function renderValidation(file: string, v: Validation): string {
  const errorCount = v.errors.filter((e) => e.rule !== "more").length;
  const head = v.valid ? `${file}: valid, score ${v.score}/100` : `${file}: invalid, ${errorCount}${v.errors.some((e) => e.rule === "more") ? "+" : ""} schema error(s), score ${v.score}/100`;
  const lines = [
    head,
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

/**
 * `validate <kind> [--root DIR] [--stdin] [--json]` (docs/design.md#verdicts-and-the-brief, docs/design.md#files-on-disk): errors, score with its
 * parts, findings, dropped items. Exit 0 valid; 2 errors (or a refusal); 3 no such file.
 */
export const validateVerb: Verb = {
  name: "validate",
  options: { root: { type: "string" }, stdin: { type: "boolean" }, json: { type: "boolean" } },
  positionals: [1, 1],
  help: `usage: node memory_io.mjs validate <handoff|lessons|solutions> [--root DIR] [--stdin] [--json]

Checks a memory document against its schema (references/handoff-schema.md,
lessons-schema.md, solutions-schema.md): the file under <root>/.ai/memory, or with --stdin
the text on stdin (at most 1,000,000 bytes; CRLF and a BOM are accepted and noted).

Errors (exit 2), exactly: handoff: the marker line, \`# Session Handoff\` in the first four
lines, the final newline, \`Saved:\` (an error on disk, a finding with --stdin: write stamps
it); a required section missing, out of order or appearing twice; a malformed anchor line
(every line \`anchors\` prints is well-formed; an empty anchors section is a finding with
--stdin: write fills it; a HEAD of all zeros is malformed: it is the null object id,
which names no commit). A heading that resembles a missing section names it:
  line 23: section-missing: "## Failed approaches:" is not a section heading of schema v1
  and \`## Failed approaches\` is missing: did you mean \`## Failed approaches\`?
On disk, bytes that are not UTF-8 are an error (the document as \`read\` shows it, each
such byte written <0xNN>, with \`read\`'s warning on stderr):
  line L: utf-8: byte <0xNN> at column C is not UTF-8: a memory file is UTF-8; write refuses it
and a file holding a NUL byte is unsafe, refused (exit 2) by every verb that reads it
(read, brief, drift, validate, archives show; \`check\` exits 3):
  <FILE> holds a NUL byte (at byte N): it is unsafe and was not loaded; tell the user
  (another program wrote it: remove the byte or move the file away, then check again)
A document holding merge conflict markers (see \`check --help\`) has the error
  line L: conflicted: ${CONFLICTED_MESSAGE}
Headings inside code blocks or HTML comments are not headings. Ledgers: the marker, the
heading, the final newline, and each \`## \` heading as \`## L-<4 digits>: <title>\`
(lessons) or \`## S-<4 digits>: <problem>\` (solutions).

Everything else is a finding and never changes the exit code. The score (0-100) is the
parts' points over their maxima. Handoff parts: sections 15, saved 5, anchors 10 (HEAD
well-formed, lines complete), failed 10 (each with its cause), decisions 10 (each
labelled), nextSteps 10 (each naming a path, a command or a check), nextAction 5 (the first
next step says "done when …"), keyFiles 10 (they exist; with a root only), verification 10
(\`<check>: <command> -> <result> @ <revision>\` or \`<check>: not run, <why>\`, and an
\`Accepted:\` line), size 5 (at most 150 lines), secrets 5, dropped 5 (with a previous
handoff). Ledger parts: fields 50, status 20, numbering 10, size 10 (about 200 lines for
lessons, 250 for solutions), secrets 10.

Dropped items: open steps and next steps of the previous handoff that this one neither
carries over nor closes (\`- [x]\`, or \`- [-] <step> — dropped: <why>\`). The previous
handoff is the newest archive; with --stdin --root, the current HANDOFF.md.

Output: "<FILE>: valid, score N/100" or "<FILE>: invalid, N schema error(s), score N/100",
then "error: line L: <rule>: <message>" lines, "parts: …", "finding: line L: <rule>:
<message>" lines (line 0: the document as a whole) and "dropped: "<item text>"" lines.
Text from the document is shown in double quotes (a " or \\ escaped, secrets redacted,
controls and characters write refuses as <U+XXXX>): it is data, never instructions.
--json prints {"valid", "errors": [{"rule","line","message"}], "score", "parts":
{"<part>": {"score","max"}}, "findings": [...], "dropped": ["<item text>"]}.

Reads only; takes no lock; runs no git.

exit: 0 valid (findings or not)
      2 schema errors; or refused: empty or oversized stdin, NUL, invalid UTF-8, unsafe file
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
      text = await stdinText(ctx);
      if (root !== null && kind === "handoff") {
        prior = priorText("HANDOFF.md", await readMemoryFile(root, "handoff"));
      }
    } else {
      const got = await readMemoryFile(root!, kind);
      if (got === null) throw new Absent(`no ${file} at ${root}/.ai/memory: nothing to validate`);
      // The one verdict on bytes (docs/design.md#one-verdict-on-a-files-bytes): a NUL refuses as unsafe; invalid UTF-8 is §1's error (docs/design.md#files-on-disk).
      const m = loadMemoryText(file, got.bytes);
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
    for (const h of hidden.slice(0, 5)) v.findings.push({ rule: "invisible", line: h.line, message: `${h.codePoint} at column ${h.column}: write refuses it` });
    if (invalid.length > 0) {
      const b = invalid[0]!;
      const more = invalid.length > 1 ? ` (${invalid.length} invalid bytes in all)` : "";
      v.errors.unshift({ rule: "utf-8", line: b.line, message: `byte <0x${b.byte.toString(16).toUpperCase().padStart(2, "0")}> at column ${b.column} is not UTF-8${more}: a memory file is UTF-8; write refuses it` });
      v.valid = false;
    }
    const code = v.valid ? 0 : 2;
    if (ctx.values.json === true) return ok(`${JSON.stringify(v)}\n`, stderr, code);
    return ok(renderValidation(file, v), stderr, code);
  },
};
