import { Refused } from "../errors.ts";
import { formatRedactionReport, redactText } from "../guard/redact.ts";
import { ok, type Verb } from "./types.ts";

const STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

const HELP = `usage: node memory_io.mjs redact [--json] < text

Copies stdin to stdout with every secret replaced by \`<redacted: KIND>\`, using
the same rules as \`write\` and \`promote\`. Needs no --root and touches no file.
stderr reports \`redacted N secret(s): KIND (line L), …\`, never a value. No
pattern knows every secret: checking the text remains the agent's job. The
families, the rules and what is never redacted: references/verbs/redact.md.

options:
  --json   print {"text": …, "findings": [{"kind", "line", "column", "length"}]}
           (1-based, in code points of the input; "lines" when a secret spans
           lines)

exit codes: 0 success (whether or not anything was redacted);
            2 refused: stdin is not UTF-8 or more than 1,000,000 bytes; or a
              usage error (unknown flag, argument, a flag given twice)
`;

/** `redact` (docs/design.md#redaction): stdin to stdout through {@link redactText}; refuses what is not UTF-8. */
export const redactVerb: Verb = {
  options: { json: { type: "boolean" } },
  help: HELP,
  async run(ctx) {
    const bytes = await ctx.readStdin();
    let input: string;
    try {
      input = STRICT.decode(bytes);
    } catch {
      throw new Refused("stdin is not valid UTF-8; redact reads text only");
    }
    const result = redactText(input);
    const stderr = result.findings.length > 0 ? [formatRedactionReport(result.findings)] : [];
    if (ctx.values["json"] === true) {
      return ok(`${JSON.stringify({ text: result.text, findings: result.findings })}\n`, stderr);
    }
    return ok(result.text, stderr);
  },
};
