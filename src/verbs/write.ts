import { lstatSync } from "node:fs";
import path from "node:path";
import { recordSave as recordCloneSave, statKey } from "../git/saves.ts";
import { Refused } from "../errors.ts";
import { underLock } from "../store/mutate.ts";
import { archiveDir, archivePrefixOf, FILE_OF, memoryDir, parseKind } from "../store/paths.ts";
import { publish } from "../store/publish.ts";
import { tokenOf } from "../store/files.ts";
import { CAS, expectedTokenOption, failpointOf, lockTimeoutOption, rootOption, ROOT_HELP, stdinForValidate } from "./common.ts";
import { ok, type Verb } from "./types.ts";
import { COLD_HELPERS } from "./index.ts";
// A chunk of its own (build.mjs, rule 2b): only `write` compiles it, no cold verb's chunk.
import { buildDocument, checkDocument, type Built, type Checked } from "./write-checked.cold.ts";
// A chunk of its own too: only a save that changed the handoff compiles the journal's code.
import { recordSave } from "../journal/record.cold.ts";

/** `write <kind> --root DIR --expected-current-sha256 TOKEN` (docs/design.md#tokens-and-the-publication-protocol, docs/design.md#redaction). */
export const writeVerb: Verb = {
  name: "write",
  options: CAS,
  positionals: [1, 1],
  help: `usage: node memory_io.mjs write <handoff|lessons|solutions> [--root DIR]
         --expected-current-sha256 TOKEN [--lock-timeout SECONDS] < document

Replaces <root>/.ai/memory/<FILE> with the document on stdin, only if the file is still
the version whose token you read (\`read\` prints CURRENT-SHA256; use \`absent\` when there
was none). A handoff's prior version is archived first as
archive/HANDOFF-<UTC time>-<seq>-<8 hex>.md, <seq> one more than the largest there;
the 5 newest archives (by <seq>, not by the clock) are kept.

The document must be UTF-8 without NUL bytes, at most 1,000,000 bytes, begin with the line
<!-- memory-schema: v1 -->, have its heading (# Session Handoff, # Lessons, # Solutions) in
its first four lines, and end with a newline. Reading stdin stops past 1,000,000 bytes:
"stdin is more than 1,000,000 bytes" (exit 2). CRLF becomes LF and a leading BOM is dropped
(said on stderr). Invisible and control characters are refused with their line, column
and code point: bidi embeddings, overrides and isolates; zero-width spaces; tag characters
(except in the England, Scotland and Wales flags); a variation selector after anything but
an emoji or keycap, a base Unicode standardizes it for, or (ideographic ones) a CJK
ideograph, so runs of them too; controls but TAB and LF; U+2028, U+2029. Living scripts
pass: U+200C/U+200D between letters or marks (Persian, Indic, Sinhala, …), U+200D inside
emoji sequences, U+200E/U+200F/U+061C on a line holding a right-to-left letter. Secrets are redacted before anything
touches the disk (see \`--help redact\`); stderr names each kind and line, never a value.
Open items of the previous handoff (unfinished plan steps, next steps) that the new one
neither carries over nor marks done (\`- [x]\`, or \`- [-] <step> — dropped: <why>\`) are named
on stderr, so they are not lost silently (quoted as data: secrets redacted, controls and
refused characters shown as <U+XXXX>, each cut at 100 characters).

The document is checked against its schema (\`validate --help\`); its errors refuse the save
and change nothing:
  memory operation refused: HANDOFF.md has N schema error(s)
  line L: <rule>: <message>                    (one line per error)
A heading that resembles a missing section names it ("did you mean \`## Failed approaches\`?").
Ledgers are refused only for the file-format errors above and malformed entry headings. After a save, stderr
gives "score: N/100 (<part> a/b, …)" and "finding: line L: <rule>: <message>" lines (at
most 20); findings never refuse.

A handoff is stamped and completed before it is checked: its \`Saved:\` line is set to the
time of the write (inserted after the title when missing; stderr notes an old value that was
more than 5 minutes off), and an empty \`## Environment anchors\` section (blank, \`- none\` or
template placeholders, or the very lines of the current handoff) is filled with what
\`anchors\` prints at that moment, inside the lock (git runs only then; outside git, the key
files' modification times). Anchor lines you wrote are kept (stderr notes a \`- Date:\` more
than 5 minutes old; a \`- Date:\` later than the save, by any amount, becomes the save's time,
and stderr says so) and redacted like prose unless they are what \`anchors\` reports now.

A document equal to the current file, apart from \`Saved:\` and a \`- Date:\` anchor that write
filled itself, is not saved again: stdout is "unchanged <FILE>" then "CURRENT-SHA256: <current
token>", exit 0, whatever token was given; nothing is archived.

stdout: "saved HANDOFF.md; archived previous handoff as <name>" (or "saved <FILE>", or
        "unchanged <FILE>"), then "CURRENT-SHA256: <token of what was saved>" as the last line.
A save that an earlier one left interrupted is repaired first, under the lock; stderr says
so ("recovered: …"), also when this write is then refused.
${ROOT_HELP}
exit:   0 saved or unchanged;
        2 refused (stale token: read again and merge, never resend the stale document;
          schema errors; bad document; unsafe file or tree; another program wrote the
          file);
        4 paused (kill switch);
        5 busy (the lock was not had within --lock-timeout, default 10 s; 0 tries once).
`,
  async run(ctx) {
    const kind = parseKind(ctx.positionals[0]);
    const expected = expectedTokenOption(ctx);
    const lockTimeoutSeconds = lockTimeoutOption(ctx);
    const root = rootOption(ctx);
    const stdin = await stdinForValidate(ctx);
    // The schema checks, the scanner and git are write-checked.cold.ts's chunk: what every
    // other verb parses at start-up stays small (build.mjs).
    let checked: Checked | null = null;
    let built: Built | null = null;
    let journalNotes: string[] = [];
    const file = FILE_OF[kind];
    const { result, repairs } = await underLock(
      {
        root,
        env: ctx.env,
        lockTimeoutSeconds,
        failpoint: failpointOf(ctx),
        loadRepair: COLD_HELPERS.repair,
        validate: () => {
          checked = checkDocument(stdin(), kind, root);
        },
        // No memory dir: the file cannot exist, so only `absent` can be the current token.
        precheck: async () => {
          if (expected !== "absent") {
            throw new Refused(`${file} changed since it was read (expected ${expected}, current absent); read again and merge`);
          }
        },
      },
      async (lock) => {
        built = await buildDocument(checked!, root, { env: ctx.env, skillDir: ctx.skillDir ?? null });
        // The same state again (ruling 1, docs/design.md#files-on-disk): keep the file, archive nothing, whatever the token.
        if (built.unchanged) return null;
        const readToken = built.prior?.token ?? "absent";
        const published = publish({
          dir: memoryDir(root),
          file,
          archiveDir: archiveDir(root),
          archivePrefix: archivePrefixOf(file),
          archivePrior: kind === "handoff",
          expectedToken: expected,
          newMode: 0o600,
          build: (prior) => {
            // What was built came from the version read above; another program's write since is a change.
            if ((prior === null ? "absent" : tokenOf(prior)) !== readToken) {
              throw new Refused(`${file} changed since it was read (another program wrote it); read again and merge`);
            }
            return built!.bytes;
          },
          failpoint: failpointOf(ctx),
          lock,
        });
        if (kind !== "handoff") return published;
        // Still under the lock: the journal is appended by the same writer that saved (docs/decisions/journal.md).
        const done = await published;
        journalNotes = await recordSave(root, { prior: built.prior?.bytes.toString("utf8") ?? null, next: done.bytes.toString("utf8"), token: done.token }, failpointOf(ctx));
        return done;
      },
    );
    const notes = (built as Built | null)?.notes ?? [];
    // This clone's record of its handoff saves (docs/design.md#verdicts-and-the-brief).
    if (kind === "handoff") {
      let key: string | null = null;
      try {
        key = statKey(lstatSync(path.join(memoryDir(root), file), { bigint: true }));
      } catch {
        // no stat: the hook hashes instead
      }
      recordCloneSave(root, result === null ? (built as Built | null)!.prior!.token : result.token, key);
    }
    if (result === null) {
      return ok(`unchanged ${file}\nCURRENT-SHA256: ${(built as Built | null)!.prior!.token}\n`, [...repairs, ...notes]);
    }
    const first = result.archived ? `saved ${file}; archived previous handoff as ${result.archived}` : `saved ${file}`;
    return ok(`${first}\nCURRENT-SHA256: ${result.token}\n`, [...repairs, ...notes, ...result.warnings, ...journalNotes]);
  },
};
