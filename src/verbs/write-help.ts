// `write --help`: one page; the cases in full are in references/verbs.md#write.
import { ROOT_HELP } from "./common.ts";

/** The text of `write --help` (docs/decisions/save-form.md). */
export function writeHelp(): string {
  return `usage: node memory_io.mjs write <handoff|lessons|solutions> [--root DIR]
         --expected-current-sha256 TOKEN [--lock-timeout SECONDS] < document
       node memory_io.mjs write <handoff|lessons|solutions> --from-draft [DRAFT]
         [--root DIR] --expected-current-sha256 TOKEN [--lock-timeout SECONDS]

Replaces <root>/.ai/memory/<FILE> with the whole document, only if the file is still the
version whose token you read (\`read\` prints CURRENT-SHA256; \`absent\` when there was none).
A handoff's prior version is archived first (the 5 newest archives are kept). Secrets are
redacted before anything touches the disk; the document is checked against its schema
(\`validate --help\`) and its errors refuse the save. A handoff's \`Saved:\` line is stamped
and an empty \`## Environment anchors\` section is filled with what \`anchors\` prints.

options:
  --expected-current-sha256 TOKEN  the token \`read\` printed, or \`absent\`
  --from-draft [DRAFT]  the document from DRAFT, the path on \`read\`'s DRAFT: line
                    (written with your file tool; removed by a save, kept by a
                    refusal); no DRAFT: the shared drafts/<kind>.md (refused when
                    two reads came before it: "may be another session's draft")
  --lock-timeout S  seconds to wait for the lock (default 10; 0 tries once)
  --root DIR        the project root

stdout: "saved <FILE>[; archived previous handoff as <name>]" or "unchanged <FILE>",
        then "CURRENT-SHA256: <token>" as the last line.
stderr: redactions, notes, score and findings, and dropped open items.
Every case and its words: references/verbs.md#write.
${ROOT_HELP}
exit:   0 saved or unchanged;
        2 refused (stale token: read again and merge; schema errors; unsafe file
          or tree) or a usage error;
        4 paused (kill switch);
        5 busy (the lock was not had within --lock-timeout).
`;
}
