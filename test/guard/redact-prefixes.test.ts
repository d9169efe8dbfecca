// docs/decisions/redaction-prefixes.md: secrets anywhere a prefix can sit, the
// wrapped and split forms, the unnamed AWS secret, and the transcript-only rules.
import { describe, expect, it } from "vitest";
import { redactText, redactTranscript } from "../../src/guard/redact.ts";
import { ALNUM, prng, randomString } from "../fixtures/redaction/corpus.ts";
import { awsKeyId, awsSecret, b64, discordBotTokenRandomId, githubToken, hex, pemLines, pemMaterial, puttyKey, slackToken, stripeKey } from "../fixtures/redaction/attacks.ts";

const kinds = (text: string): string[] => redactText(text).findings.map((f) => f.kind);

describe("PEM blocks under any constant line prefix", () => {
  const lines = pemLines(53);
  const material = pemMaterial(lines);
  const forms: Array<[string, string]> = [
    ["> quoted", lines.map((l) => `> ${l}`).join("\n")],
    ["// comments", lines.map((l) => `// ${l}`).join("\n")],
    ["# comments", lines.map((l) => `# ${l}`).join("\n")],
    [" * a block comment", ["/**", ...lines.map((l) => ` * ${l}`), " */"].join("\n")],
    ["-- SQL comments", lines.map((l) => `-- ${l}`).join("\n")],
    ["Markdown table rows", ["| key |", "| --- |", ...lines.map((l) => `| ${l} |`)].join("\n")],
    ["a Markdown table cell with <br>", `| name | value |\n| --- | --- |\n| deploy key | ${lines.join("<br>")} |`],
    ["a JSON array of lines, one per line", `{\n  "key": [\n${lines.map((l) => `    "${l}"`).join(",\n")}\n  ]\n}`],
    ["a JSON array of lines on one line", JSON.stringify({ key: lines })],
    ["\\n-escaped in one string", JSON.stringify({ key: lines.join("\n") })],
    ["\\\\n-escaped in one string (JSON in JSON)", JSON.stringify(JSON.stringify({ key: lines.join("\n") }))],
    ["\\r\\n-escaped", JSON.stringify({ key: lines.join("\r\n") })],
    ["JS string concatenation", lines.map((l) => `  "${l}\\n" +`).join("\n")],
    ["indented YAML block", `key: |\n${lines.map((l) => `    ${l}`).join("\n")}`],
  ];
  it.each(forms)("%s: no key material survives, prose after it does", (_name, block) => {
    const doc = `Notes before.\n${block}\nThe deploy still fails after the key rotation.\n`;
    const { text, findings } = redactText(doc);
    for (const m of material) expect(text).not.toContain(m.slice(0, 24));
    expect(findings.map((f) => f.kind)).toContain("private-key");
    expect(text).toContain("Notes before.\n");
    expect(text).toContain("\nThe deploy still fails after the key rotation.\n");
  });

  it("keeps a documentation block with no material under a prefix", () => {
    const doc = "> -----BEGIN RSA PRIVATE KEY-----\n> ...\n> -----END RSA PRIVATE KEY-----\n";
    expect(redactText(doc)).toEqual({ text: doc, findings: [] });
  });

  it("ends the block at prose under the same prefix", () => {
    const doc = `${lines.slice(0, 4).map((l) => `> ${l}`).join("\n")}\n> and then the paste was cut off here\n`;
    const { text } = redactText(doc);
    expect(text).toContain("> and then the paste was cut off here\n");
    for (const m of material.slice(0, 3)) expect(text).not.toContain(m.slice(0, 24));
  });
});

describe("PuTTY private keys", () => {
  it.each([
    ["bare", (t: string) => t],
    ["quoted", (t: string) => t.split("\n").map((l) => `> ${l}`).join("\n")],
  ])("%s: the private lines and the MAC are gone, the text after kept", (_name, wrap) => {
    const { text: key, secrets } = puttyKey(7);
    const doc = `Key for the bastion:\n${wrap(key)}\nUse it with pageant.\n`;
    const { text, findings } = redactText(doc);
    for (const s of secrets) expect(text).not.toContain(s);
    expect(findings.map((f) => f.kind)).toContain("private-key");
    expect(text).toContain("Use it with pageant.\n");
  });
});

describe("base64-wrapped vendor tokens (the decoded form matches a rule)", () => {
  it.each([
    ["a GitHub token", githubToken(1), "github-token"],
    ["a Slack token", slackToken(2), "slack-token"],
    ["a Stripe key", stripeKey(3), "stripe-key"],
    ["an env line", `GITHUB_TOKEN=${githubToken(4)}`, "github-token"],
    ["a PEM key (a Kubernetes secret)", pemLines(5).join("\n"), "private-key"],
  ])("%s", (_name, plain, kind) => {
    for (const enc of [Buffer.from(plain).toString("base64"), Buffer.from(plain).toString("base64url")]) {
      const doc = `data:\n  tls.key: ${enc}\necho ${enc} | base64 -d\n`;
      const { text, findings } = redactText(doc);
      expect(text).not.toContain(enc.slice(0, 30));
      expect(findings.map((f) => f.kind)).toContain(kind);
      expect(redactText(text).findings).toEqual([]);
    }
  });

  it("keeps base64 of ordinary text, and long identifiers", () => {
    const prose = Buffer.from("The deploy of the api service finished at noon; nothing failed.").toString("base64");
    for (const doc of [`payload: ${prose}`, "thisIsAVeryLongIdentifierNameForTheSessionStore", `digest ${hex(9, 64)}`]) {
      expect(redactText(doc)).toEqual({ text: doc, findings: [] });
    }
  });
});

describe("line-split tokens (one constant prefix on consecutive lines)", () => {
  const t = githubToken(11);
  const parts = [t.slice(0, 14), t.slice(14, 28), t.slice(28)];
  it.each([
    ["# comments", parts.map((p) => `# ${p}`).join("\n")],
    ["> quotes", parts.map((p) => `> ${p}`).join("\n")],
    ["no prefix", parts.join("\n")],
    ["indented", parts.map((p) => `    ${p}`).join("\n")],
    ["a list", parts.map((p) => `- ${p}`).join("\n")],
  ])("%s", (_name, block) => {
    const doc = `The token, wrapped by the terminal:\n${block}\nEnd of paste.\n`;
    const { text, findings } = redactText(doc);
    for (const p of parts.slice(1)) expect(text).not.toContain(p);
    expect(text).not.toContain(parts[0]);
    expect(findings.map((f) => f.kind)).toContain("github-token");
    expect(text).toContain("End of paste.\n");
  });

  it("does not join lines under different prefixes, nor ordinary lists", () => {
    for (const doc of [
      `# ${parts[0]}\n> ${parts[1]}\n- ${parts[2]}\n`,
      "- src/auth/login.ts\n- src/auth/logout.ts\n- test/auth/login.test.ts\n",
      `- ${hex(1, 40)}\n- ${hex(2, 40)}\n`,
    ]) {
      expect(redactText(doc).findings.filter((f) => f.lines !== undefined)).toEqual([]);
    }
  });
});

describe("an AWS secret access key with no name beside it", () => {
  const id = awsKeyId(21);
  const secret = awsSecret(22);
  it("is redacted within 3 lines of an access key id", () => {
    const doc = `Credentials from the console:\n${id}\nrotated today\n${secret}\n`;
    const { text, findings } = redactText(doc);
    expect(text).not.toContain(secret);
    expect(findings.map((f) => f.kind)).toContain("aws-secret-access-key");
  });

  it("is redacted in a credentials-file shape", () => {
    for (const doc of [
      `[deploy]\nregion = eu-west-1\noutput = json\n\naws_secret_access_key =\n  ${secret}\n`,
      `[default]\naws_secret_access_key = <see below>\n# pasted from the vault:\n# (no name)\n# ...\n${secret}\n`,
    ]) {
      expect(redactText(doc).text).not.toContain(secret);
    }
  });

  it("is kept with no access key id near it, and outside a credentials file", () => {
    for (const doc of [`${secret}\n`, `${id}\n1\n2\n3\n4\n${secret}\n`, `[section]\nname = x\n${secret}\n`]) {
      expect(redactText(doc).text).toContain(secret);
    }
  });
});

describe("shell and command-line forms", () => {
  const pw = randomString(prng(31), ALNUM, 18);
  it.each([
    ["export PGPWD=", `export PGPWD=${pw}`],
    ["SSHPASS=", `SSHPASS=${pw} sshpass -e ssh host`],
    ["curl -su user:pass", `curl -su admin:${pw} https://api.example.com/v1`],
    ["curl -sSu user:pass", `curl -sSu admin:${pw} https://api.example.com/v1`],
    ["curl -ku 'user:pass'", `curl -ku 'admin:${pw}' https://api.example.com/v1`],
  ])("%s", (_name, line) => {
    expect(redactText(line).text).not.toContain(pw);
  });

  it.each(["export BYPASS_PROXY=1", "curl -s https://example.com/users", "export PGPASSFILE=~/.pgpass", "curl -su $USER:$PASS https://x"])("keeps %s", (line) => {
    expect(redactText(line)).toEqual({ text: line, findings: [] });
  });
});

describe("a Discord bot token whose first part is not a numeric id", () => {
  const token = discordBotTokenRandomId(41);
  it.each([
    ["DISCORD_TOKEN=", `DISCORD_TOKEN=${token}`],
    ["discord bot token:", `the discord bot token: ${token}`],
    ["Authorization: Bot", `Authorization: Bot ${token}`],
  ])("%s", (_name, line) => {
    const { text, findings } = redactText(line);
    expect(text).not.toContain(token);
    expect(findings.map((f) => f.kind)).toContain("discord-bot-token");
  });

  it("keeps the same shape with no Discord context (identifiers, file names)", () => {
    expect(kinds(token)).toEqual([]);
    expect(kinds("discord: MyComponentNameIsVeryLongHere.render1.somethingElseThatIsLongEnough")).toEqual([]);
  });
});

describe("transcript text only: a key pasted in prose", () => {
  const key64 = hex(51, 64);
  const key32 = hex(52, 32);
  const keyB64 = b64(53, 44);
  it.each([
    ["here is webhook key <64 hex>", `here is webhook key ${key64}`, key64],
    ["<hex> is the secret", `${key32} is the secret for staging`, key32],
    ["the token for staging: <base64>", `the token for staging: ${keyB64}`, keyB64],
    ["password, two words before", `password of the bot ${keyB64}`, keyB64],
  ])("%s", (_name, line, secret) => {
    expect(redactTranscript(line).text).not.toContain(secret);
    // Never in `redact` or `write`: their text is the user's document.
    expect(redactText(line).text).toContain(secret);
  });

  it.each([
    ["--expected-current-sha256", `write the token with --expected-current-sha256 ${key64}`],
    ["CURRENT-SHA256:", `saved; the token is CURRENT-SHA256: ${key64}`],
    ["Since-handoff:", `token Since-handoff: ${key64}`],
    ["commit", `the token fix landed in commit ${hex(54, 40)}`],
    ["HEAD", `token rotated; HEAD ${hex(55, 40)}`],
    ["sha", `secret rotation, sha ${hex(56, 64)}`],
    ["far from any keyword", `the deploy of the api finished with ${key64}`],
    ["prose", "the token refresh now retries with the secret from the vault"],
  ])("keeps a 40/64-hex run after %s", (_name, line) => {
    expect(redactTranscript(line)).toEqual({ text: line, findings: [] });
  });

  it("redacts a shell variable later used after Bearer, in the same command", () => {
    const k = hex(57, 40);
    const cmd = `K=${k}; curl -H "Authorization: Bearer $K" https://api.example.com`;
    const { text, findings } = redactTranscript(cmd);
    expect(text).not.toContain(k);
    expect(text).toContain('curl -H "Authorization: Bearer $K" https://api.example.com');
    expect(findings.length).toBe(1);
    expect(redactText(cmd).text).toContain(k);
  });

  it("redacts a shell variable used in -u or --user", () => {
    const p = randomString(prng(58), ALNUM, 20);
    for (const cmd of [`P='${p}' && curl -u "bot:$P" https://x`, `export P="${p}"; curl --user bot:\${P} https://x`, `CREDS=bot:${p}; curl -su $CREDS https://x`]) {
      expect(redactTranscript(cmd).text, cmd).not.toContain(p);
    }
  });

  it("keeps a variable used after Bearer whose value is a reference or is not assigned here", () => {
    for (const cmd of ['K=$(cat ~/.token); curl -H "Authorization: Bearer $K" https://x', 'curl -H "Authorization: Bearer $TOKEN" https://x', `K=${hex(1, 40)}; echo $K`]) {
      expect(redactTranscript(cmd)).toEqual({ text: cmd, findings: [] });
    }
  });
});

describe("anchor lines keep their values, except a vendor's exact token shape", () => {
  const t = githubToken(61);
  it("redacts a token-shaped branch or file name on an exempt line", () => {
    const doc = `- Branch: ${t}\n- Dirty files: notes/${stripeKey(62)}.md\n`;
    const { text, findings } = redactText(doc, { exemptLines: new Set([1, 2]) });
    expect(text).toBe("- Branch: <redacted: github-token>\n- Dirty files: notes/<redacted: stripe-key>.md\n");
    expect(findings.map((f) => f.kind)).toEqual(["github-token", "stripe-key"]);
  });

  it("keeps hyphen-joined words and non-vendor shapes on an exempt line", () => {
    const doc = `- Branch: ${["glpat", "rotate-the-deploy-token-weekly"].join("-")}\n- Dirty files: db/password=Xk9mQ2pL7vR4tY8w.sql, sk-learn-and-other-words\n`;
    expect(redactText(doc, { exemptLines: new Set([1, 2]) })).toEqual({ text: doc, findings: [] });
  });
});
