import { Refused } from "../errors.ts";
import { prepareDocument, type Prepared } from "../store/document.ts";
import { underLock } from "../store/mutate.ts";
import { archiveDir, archivePrefixOf, FILE_OF, memoryDir, parseKind } from "../store/paths.ts";
import { publish } from "../store/publish.ts";
import { droppedItems, droppedReport } from "../schema/open-items.ts";
import { CAS, expectedTokenOption, failpointOf, lockTimeoutOption, rootOption, ROOT_HELP, stdinForValidate } from "./common.ts";
import { ok, type Verb } from "./types.ts";

/** `write <kind> --root DIR --expected-current-sha256 TOKEN` (contract §2, §3, §4). */
export const writeVerb: Verb = {
  name: "write",
  options: CAS,
  positionals: [1, 1],
  help: `usage: node memory_io.mjs write <handoff|lessons|solutions> [--root DIR]
         --expected-current-sha256 TOKEN [--lock-timeout SECONDS] < document

Replaces <root>/.ai/memory/<FILE> with the document on stdin, only if the file is still
the version whose token you read (\`read\` prints CURRENT-SHA256; use \`absent\` when there
was none). A handoff's prior version is archived first as
archive/HANDOFF-<UTC time>-<8 hex>.md; the 5 newest archives are kept.

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
neither carries over nor marks done are named on stderr, so they are not lost silently
(quoted as data: secrets redacted, controls and refused characters shown as <U+XXXX>,
each cut at 100 characters).

stdout: "saved HANDOFF.md; archived previous handoff as <name>" (or "saved <FILE>"), then
        "CURRENT-SHA256: <token of what was saved>" as the last line.
${ROOT_HELP}
exit:   0 saved; 2 refused (stale token: read again and merge, never resend the stale
        document; bad document; unsafe file or tree; another program wrote the file);
        4 paused (kill switch); 5 busy (the lock was not had within --lock-timeout,
        default 10 s; 0 tries once).
`,
  async run(ctx) {
    const kind = parseKind(ctx.positionals[0]);
    const expected = expectedTokenOption(ctx);
    const lockTimeoutSeconds = lockTimeoutOption(ctx);
    const root = rootOption(ctx);
    const stdin = await stdinForValidate(ctx);
    let prepared: Prepared | null = null;
    let dropped: string | null = null;
    const file = FILE_OF[kind];
    const { result, repairs } = await underLock(
      {
        root,
        env: ctx.env,
        lockTimeoutSeconds,
        validate: () => {
          prepared = prepareDocument(stdin(), kind);
        },
        // No memory dir: the file cannot exist, so only `absent` can be the current token.
        precheck: async () => {
          if (expected !== "absent") {
            throw new Refused(`${file} changed since it was read (expected ${expected}, current absent); read again and merge`);
          }
        },
      },
      (lock) =>
        publish({
          dir: memoryDir(root),
          file,
          archiveDir: archiveDir(root),
          archivePrefix: archivePrefixOf(file),
          archivePrior: kind === "handoff",
          expectedToken: expected,
          newMode: 0o600,
          build: (prior) => {
            if (kind === "handoff" && prior !== null) {
              dropped = droppedReport(droppedItems(prior.toString("utf8"), prepared!.bytes.toString("utf8")));
            }
            return prepared!.bytes;
          },
          failpoint: failpointOf(ctx),
          lock,
        }),
    );
    const first = result.archived ? `saved ${file}; archived previous handoff as ${result.archived}` : `saved ${file}`;
    return ok(`${first}\nCURRENT-SHA256: ${result.token}\n`, [...repairs, ...prepared!.notes, ...result.warnings, ...(dropped ? [dropped] : [])]);
  },
};
