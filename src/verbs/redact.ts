import { Refused } from "../errors.ts";
import { REDACTION_RULES, formatRedactionReport, redactText } from "../guard/redaction.ts";
import { RULE_DESCRIPTIONS } from "../guard/redact-help.ts";
import { ok, type Verb } from "./types.ts";

const STRICT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function help(): string {
  const width = Math.max(...REDACTION_RULES.map((r) => r.id.length));
  const rules = REDACTION_RULES.map((r) => `  ${r.id.padEnd(width)}  ${RULE_DESCRIPTIONS[r.id] ?? ""}`);
  return [
    "usage: node memory_io.mjs redact [--json] < text",
    "",
    "Copies stdin to stdout with every secret replaced by `<redacted: KIND>`, using the same",
    "rules as `write` and `promote` (which redact before anything touches disk). Needs no",
    "--root and touches no file. stderr reports `redacted N secret(s): KIND (line L), …`,",
    "never a value; a redaction that took more than 3 lines reads `KIND (line L, N lines)`,",
    "so a swallowed section shows; past 20 findings the rest are counted (`… and N more`).",
    "",
    "options:",
    "  --json   print {\"text\": …, \"findings\": [{\"kind\", \"line\", \"column\", \"length\"}]}",
    "           (line and column 1-based, column and length in Unicode code points, both",
    "           measured in the input; \"lines\" is added when a secret spans several lines)",
    "",
    "Families covered: private keys (PEM, OpenSSH, PGP, PuTTY; marker lines and key",
    "material only, a truncated key too, under any constant line prefix such as `> `,",
    "`// `, `# ` or ` * `, in table cells, JSON arrays of lines, \\n and \\\\n escapes),",
    "cloud and vendor tokens (AWS, GitHub, GitLab, OpenAI, Anthropic,",
    "Slack, Stripe, Google, npm, Discord, Databricks, Docker config auth and the rest of",
    "gitleaks v8's default rule families a developer pastes; the skill's",
    "docs/decisions/gitleaks-rules.md lists each gitleaks id as covered or left out), JWTs,",
    "bearer and basic credentials, passwords in",
    "URLs (a raw /, ? or # included) and connection strings, command-line passwords",
    "(--password V, --password=V, mysql -pV, curl -u or -su user:pass; never -p V), XML password",
    "elements, Cookie and Set-Cookie values, Markdown table cells under a secret-named",
    "header, and generic assignments (quoted values with spaces, YAML block scalars, names",
    "ending in _PASS, _PWD, _PASSWD, _SECRET, _TOKEN, _KEY, and upper-case names glued to",
    "PWD or PASS: PGPWD, SSHPASS). Tokens right after a \\n, \\t, \\r or \\\" escape or a %XX",
    "encoding are found too; so are vendor tokens wrapped in base64 (the decoded form matches:",
    "the whole base64 run goes) and split over consecutive lines under one constant prefix",
    "(the joined form matches), and an AWS secret key with no name beside it when it is",
    "within 3 lines of an access key id or inside a [profile] section naming aws_ keys.",
    "A vendor's exact token shape is redacted even in a branch name or path of the anchors",
    "(words joined by hyphens never are); the anchor then compares as unverifiable.",
    "",
    "Checkpoints only (transcript text, never `redact`, `write` or `promote`): a 32+",
    "character hex or base64 run at most 3 words from key, token, secret or password, on",
    "either side (KIND secret-in-prose), except a 40/64-hex run after",
    "--expected-current-sha256, CURRENT-SHA256:, Since-handoff:, commit, HEAD or sha; and",
    "the value assigned to a shell variable that the same command later sends after",
    "`Bearer ` (bearer-token) or in -u/--user (cli-password).",
    "",
    "Never redacted: values of only 40 or 64 hex digits (git ids, SHA-256 tokens) whatever",
    "punctuation or Markdown surrounds them, UUIDs, AWS ARNs, e-mail addresses (service",
    "accounts), Vault paths and file names, variable references ($VAR, ${VAR},",
    "os.environ[...], process.env.X), placeholders, keys ending in EXAMPLE, ordinary prose",
    "and code identifiers. When rules overlap, the one listed first wins. No pattern knows",
    "every secret or personal datum: checking the text remains the agent's job.",
    "",
    `rules (${REDACTION_RULES.length}, in priority order; the id is the KIND):`,
    ...rules,
    "",
    "exit codes: 0 success (whether or not anything was redacted);",
    "            2 refused: stdin is not UTF-8, or more than 1,000,000 bytes (reading stops",
    "              there), or a usage error (unknown flag, argument, a flag given twice)",
    "",
  ].join("\n");
}

/**
 * `redact` (docs/design.md#redaction): stdin to stdout through {@link redactText}.
 * @throws Refused when stdin is not valid UTF-8 (exit 2): a filter must not mangle bytes.
 */
export const redactVerb: Verb = {
  name: "redact",
  options: { json: { type: "boolean" } },
  positionals: [0, 0],
  help: help(),
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
