// A found secret is redacted where the text writes it in another form: URL-decoded or encoded, broken over a
// line end, or a vendor token's body without its prefix (docs/design.md#redaction), through the built bundle.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, helper } from "../helpers.ts";
import { checkpoint, cpText } from "../verbs/support.ts";

// Every fake secret is built from two parts, so no scanner of this repository reads a literal one.
const ENCODED = "p%40ss%21" + "word2024";
const DECODED = "p@ss!" + "word2024";
const BODY = "A1b2C3d4E5f6G7h8I9j0" + "K1l2M3n4O5p6Q7r8";
const GH = "gh" + `p_${BODY}`;
const redact = (input: string): string => helper(["redact"], { input }).stdout;

describe("a URL-encoded password", () => {
  it("is redacted where the text writes it decoded", () => {
    const input = `Run postgres://app:${ENCODED}@db.example.com/prod\nThe password ${DECODED} was rotated.\n`;
    const out = redact(input);
    expect(out).toBe("Run postgres://app:<redacted: url-password>@db.example.com/prod\n" +
      "The password <redacted: url-password> was rotated.\n");
  });

  it("and a password found decoded is redacted where the text writes it encoded", () => {
    const input = `DB_PASSWORD="${DECODED}"\nIn the log it reads ${ENCODED} after encoding.\n`;
    expect(redact(input)).toBe("DB_PASSWORD=\"<redacted: generic-secret>\"\n" +
      "In the log it reads <redacted: generic-secret> after encoding.\n");
  });

  it("a decoded form that reads as words is not blanked in prose", () => {
    const input = `Run postgres://app:${"pass%20" + "word"}@db.example.com/prod\nThe pass word field is empty.\n`;
    expect(redact(input)).toBe("Run postgres://app:<redacted: url-password>@db.example.com/prod\n" +
      "The pass word field is empty.\n");
  });
});

describe("a value broken over a line end", () => {
  it("a found password repeated across a wrapped bullet is redacted, both parts", () => {
    const pw = "Tr0ub4dor" + "-x9q";
    const input = `- postgres://admin:${pw}@db.example.com/prod timed out, so the password Tr0ub4\n` +
      "  dor-x9q is rotated today\n";
    expect(redact(input)).toBe("- postgres://admin:<redacted: url-password>@db.example.com/prod timed out, so " +
      "the password <redacted: url-password> is rotated today\n");
  });

  it("a vendor token wrapped into the next line of a bullet is redacted whole", () => {
    const input = `- The deploy token is ${GH.slice(0, 25)}\n  ${GH.slice(25)} and it expired\n- next item\n`;
    expect(redact(input)).toBe("- The deploy token is <redacted: github-token> and it expired\n- next item\n");
  });

  it("wrapped prose, paths and a wrapped hash are not eaten", () => {
    const prose = [
      "- The importer reads src/store/document.ts and src/guard/redact-derived.ts, then",
      "  writes .ai/memory/HANDOFF.md; the failing test is test/guard/repeated-forms",
      "  .test.ts when run on Node 20 with --pool=forks and the ghp_ prefix in docs.",
      "> quoted sk-proj- line that goes on",
      "> to-the-next-line-with-kebab-case-words-that-are-long-enough-to-look-like-one",
      "integrity sha512-" + "Q".repeat(40),
      "  " + "w".repeat(30) + "== is the lockfile's hash",
      "",
    ].join("\n");
    expect(redact(prose)).toBe(prose);
  });

  it("a base64 blob wrapped at 76 columns, a token across the wrap in its decoded text, is redacted whole", () => {
    const blob = Buffer.from(`{"note":"abcdefghijklmnopqrstuvw","password":"${GH}"}`).toString("base64");
    const input = `- The secret's data:\n  ${blob.slice(0, 76)}\n  ${blob.slice(76)}\nThen prose.\n`;
    expect(redact(input)).toBe("- The secret's data:\n  <redacted: github-token>\nThen prose.\n");
  });

  it("a token found whole on its line does not take the next line's first word", () => {
    const glpat = "glpat-" + "Zx8Qw2Er4Ty6Ui8Op0As";
    const input = `- GITLAB_TOKEN=${glpat}\n  Next, run the deploy.\n`;
    expect(redact(input)).toBe("- GITLAB_TOKEN=<redacted: gitlab-token>\n  Next, run the deploy.\n");
  });
});

describe("a vendor token's body without its prefix", () => {
  it("is redacted where the text repeats it, as the token's kind", () => {
    const input = `export GH_TOKEN=${GH}\nThe part after the prefix, ${BODY}, is what the CI stored.\n`;
    expect(redact(input)).toBe("export GH_TOKEN=<redacted: github-token>\n" +
      "The part after the prefix, <redacted: github-token>, is what the CI stored.\n");
  });

  it("an OpenAI key's body after sk-proj- is redacted too; the prefix words in prose stay", () => {
    const key = "sk-" + `proj-${BODY}${BODY}`;
    const input = `OPENAI_API_KEY=${key}\nBody: ${BODY}${BODY}\nKeys start with sk-proj- and ghp_ by design.\n`;
    expect(redact(input)).toBe("OPENAI_API_KEY=<redacted: openai-api-key>\nBody: <redacted: openai-api-key>\n" +
      "Keys start with sk-proj- and ghp_ by design.\n");
  });
});

describe("a found secret written for a form body, a shell, or in base64", () => {
  const SPACED = "Tr0ub4dor&3" + " horse";
  const SHELLY = "p$ss!" + "word2024x";
  const QUOTED = "it's-" + "Tr0ub4dor!9";
  const B64 = Buffer.from(SHELLY).toString("base64");
  const cases: Array<[string, string, string]> = [
    ["form-encoded, `+` for the space", `DB_PASSWORD="${SPACED}"`, "curl posted Tr0ub4dor%263+horse as the body."],
    ["found form-encoded, written plain", "curl -d user=app -d password=Tr0ub4dor%263+horse",
      `It was ${SPACED} all along.`],
    ["backslashes before the shell's signs", `export API_SECRET='${SHELLY}'`,
      "History: echo p\\$ss\\!word2024x | login"],
    ["found escaped, written plain", "export API_SECRET=p\\$ss\\!word2024x", `The secret ${SHELLY} is old.`],
    ["single-quoted with '\\''", `PASSWORD="${QUOTED}"`, "The script wrote 'it'\\''s-Tr0ub4dor!9' to the file."],
    ["base64, padded and not", `export API_SECRET='${SHELLY}'`,
      `The manifest holds ${B64}; the URL ${B64.slice(0, -1)}.`],
  ];
  it.each(cases)("%s", (_name, found, copy) => {
    const out = redact(`${found}\n${copy}\n`);
    const second = out.split("\n")[1]!;
    expect(second).toContain("<redacted: generic-secret>");
    for (const part of ["Tr0ub4dor", "word2024x", "cCRzcyF3b3Jk"]) expect(second).not.toContain(part);
  });
});

describe("a copy is at least as distinctive as the secret", () => {
  it("the `+`-decoded form is not looked for when it is only words and numbers", () => {
    const found = "Lime+Mango" + "+2024+Kiwi+Fig";
    const prose = "We bought Lime Mango 2024 Kiwi Fig today.";
    expect(redact(`API_SECRET=${found}\n${prose}\n`)).toBe(`API_SECRET=<redacted: generic-secret>\n${prose}\n`);
  });
});

describe("write and checkpoint get the same", () => {
  it("write redacts the decoded form and the body", () => {
    const root = gitRepo();
    const doc = handoff("Make the importer fast.").replace("## Failed approaches\n- none\n",
      `## Failed approaches\n- postgres://app:${ENCODED}@db.example.com/prod, then ${DECODED} by hand\n` +
      `- ${GH} expired; ${BODY} is its body\n`);
    const r = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: doc });
    expect(r.code).toBe(0);
    const saved = readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), "utf8");
    for (const secret of [ENCODED, DECODED, BODY]) expect(saved).not.toContain(secret);
    expect(saved).toContain("then <redacted: url-password> by hand");
    expect(saved).toContain("<redacted: github-token> is its body");
  });

  it("checkpoint redacts the decoded form in the transcript's text", () => {
    const root = gitRepo();
    const file = path.join(root, "t.jsonl");
    const base = { sessionId: "s", version: "2.1.80", cwd: root, timestamp: "2026-11-30T09:00:00.000Z" };
    const content = `Use postgres://app:${ENCODED}@db.example.com/prod; then ${DECODED} worked by hand`;
    const user = { ...base, type: "user", uuid: "u1", parentUuid: null, message: { role: "user", content } };
    const call = { type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } };
    const tool = { ...base, type: "assistant", uuid: "a1", message: { role: "assistant", content: [call] } };
    writeFileSync(file, `${JSON.stringify(user)}\n${JSON.stringify(tool)}\n`);
    const r = checkpoint(root, { transcript_path: file });
    expect(r.code).toBe(0);
    const text = cpText(root, "sess-1") ?? "";
    expect(text).toContain("<redacted: url-password>");
    expect(text).not.toContain(DECODED);
  });
});
