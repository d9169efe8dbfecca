import { Refused } from "../errors.ts";
import { formatRedactionReport, redactText } from "../guard/redact.ts";
import { decodeInput } from "../store/document.ts";
import { underLock } from "../store/repair.ts";
import { archiveDir, archivePrefixOf, MAX_DOCUMENT_BYTES, memoryDir, parseTarget } from "../store/paths.ts";
import { readManagedFile } from "../store/read.ts";
import { publish } from "../store/publish.ts";
import { CAS, expectedTokenOption, failpointOf, lockTimeoutOption, rootOption, ROOT_HELP,
  stdinForValidate } from "./common.ts";
import { alreadyPresent, appendedBytes } from "../store/append.ts";
import { ok, type Verb } from "./types.ts";
import { mentionsMarker } from "../agents/md-block.ts";

/** Largest text `promote` appends, in bytes. */
export const MAX_PROMOTE_BYTES = 64_000;

/** `promote --root DIR --target AGENTS.md|CLAUDE.md --expected-current-sha256 TOKEN`. */
export const promoteVerb: Verb = {
  options: { ...CAS, target: { type: "string" } },
  help: `usage: node memory_io.mjs promote [--root DIR] --target AGENTS.md|CLAUDE.md
         --expected-current-sha256 TOKEN [--lock-timeout SECONDS] < text

Appends an approved lesson (1..64,000 bytes of UTF-8 on stdin; reading stops
past that: "stdin is more than 64,000 bytes") to AGENTS.md or CLAUDE.md
at the root, only if the file is still the version whose token you read with
\`read-target\` (\`absent\` creates it, mode 0644). A newline is added to the prior
content and to the text when they lack one. Secrets are redacted and invisible
characters refused, as for \`write\`, and so is a line naming session-handoff's
block markers (\`session-handoff:begin\`/\`end\`). Only on the user's approval.

When the text (after redaction) is already in the file as whole consecutive
lines, nothing is appended, whatever token was given (a retried promotion):
stdout: "already in <target>; nothing appended", then "CURRENT-SHA256: <token>".

A target that is a link is refused, naming where it points; CLAUDE.md linked to
AGENTS.md says "use \`--target AGENTS.md\`" (and the reverse, CLAUDE.md).

stdout: "appended approved lesson to <target>", then "CURRENT-SHA256: <token>".
${ROOT_HELP}
exit:   0 appended, or already there; 2 refused (stale token: read again; bad
        text; unsafe file); 4 paused; 5 busy.
`,
  async run(ctx) {
    const target = parseTarget(typeof ctx.values.target === "string" ? ctx.values.target : undefined);
    const expected = expectedTokenOption(ctx);
    const lockTimeoutSeconds = lockTimeoutOption(ctx);
    const root = rootOption(ctx);
    const stdin = await stdinForValidate(ctx, MAX_PROMOTE_BYTES);
    let text = "";
    let notes: string[] = [];
    const { result, repairs } = await underLock(
      {
        root, env: ctx.env, lockTimeoutSeconds, failpoint: failpointOf(ctx),
        validate: () => {
          const raw = stdin();
          if (raw.length > MAX_PROMOTE_BYTES) {
            throw new Refused(`the lesson is ${raw.length} bytes; promote appends at most ${MAX_PROMOTE_BYTES} bytes`);
          }
          const decoded = decodeInput(raw, "lesson");
          // install finds its AGENTS.md block by these markers: a lesson's would be taken for it, or refused.
          const line = decoded.text.split("\n").findIndex(mentionsMarker) + 1;
          const why = "names session-handoff's block markers, which install takes as its own";
          if (line > 0) throw new Refused(`the lesson's line ${line} ${why}; reword that line and retry`);
          const { text: clean, findings } = redactText(decoded.text);
          text = clean;
          notes = [...decoded.notes, ...(findings.length > 0 ? [formatRedactionReport(findings)] : [])];
        },
        // Before the memory dir is made for the lock, a stale token is refused as publish would.
        precheck: async () => {
          const got = await readManagedFile(root, target, memoryDir(root));
          const current = got?.token ?? "absent";
          if (current !== expected && !(got !== null && alreadyPresent(got.bytes, text))) {
            const tokens = `expected ${expected}, current ${current}`;
            throw new Refused(`${target} changed since it was read (${tokens}); read again and merge`);
          }
        },
      },
      async (lock) => {
        // A retried promotion appends nothing: decided on the file under the lock, whatever token was given.
        const now = await readManagedFile(root, target, memoryDir(root));
        if (now !== null && alreadyPresent(now.bytes, text)) return { unchanged: true as const, token: now.token };
        return publish({
          dir: root, file: target, archiveDir: archiveDir(root), archivePrefix: archivePrefixOf(target),
          archivePrior: false, expectedToken: expected, newMode: 0o644,
          build: (prior) => {
            const out = appendedBytes(prior, text);
            if (out.length > MAX_DOCUMENT_BYTES) {
              throw new Refused(`${target} would grow past ${MAX_DOCUMENT_BYTES} bytes; shorten it first`);
            }
            return out;
          },
          failpoint: failpointOf(ctx), lock,
        });
      },
    );
    if ("unchanged" in result) {
      return ok(`already in ${target}; nothing appended\nCURRENT-SHA256: ${result.token}\n`, [...repairs, ...notes]);
    }
    const warnings = [...repairs, ...notes, ...result.warnings];
    return ok(`appended approved lesson to ${target}\nCURRENT-SHA256: ${result.token}\n`, warnings);
  },
};
