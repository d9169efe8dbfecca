// The hostile tester's secrets that reached disk or output, and its inputs that took quadratic
// time: command-line passwords of common clients, a password typed in a session, tokens wrapped
// at a tool's width, and repeated headers. Their linearity (8x the input, at most 3 times 8x the
// CPU time) is checked in redact-scale.test.ts, with the other load-sensitive ratios.
import { describe, expect, it } from "vitest";
import { redactText, redactTranscript } from "../../src/guard/redact.ts";
import { ALNUM, prng, randomString } from "../fixtures/redaction/corpus.ts";

const pw = (seed: number): string => `${randomString(prng(seed), ALNUM, 10)}#7`;

describe("command-line password flags", () => {
  const cases: Array<[string, (p: string) => string]> = [
    ["sshpass -p", (p) => `sshpass -p ${p} ssh deploy@host`],
    ["sshpass -pVALUE", (p) => `sshpass -p${p} scp a b:`],
    ["docker login -p", (p) => `docker login -u bob -p ${p} registry.example.com`],
    ["az login -p", (p) => `az login -u bob@example.com -p ${p}`],
    ["redis-cli -a", (p) => `redis-cli -h cache -a ${p} ping`],
    ["ldapsearch -w", (p) => `ldapsearch -x -D cn=admin -w ${p} -b dc=example`],
    ["sqlcmd -P", (p) => `sqlcmd -S db -U sa -P ${p} -Q "select 1"`],
    ["zip -P", (p) => `zip -P ${p} secret.zip notes.txt`],
    ["htpasswd -b", (p) => `htpasswd -b .htpasswd alice ${p}`],
    ["htpasswd -nb", (p) => `htpasswd -nbB alice ${p}`],
    ["smbclient -U user%pass", (p) => `smbclient //srv/share -U alice%${p}`],
    ["echo pw | sudo -S", (p) => `echo '${p}' | sudo -S apt update`],
    ["echo pw | sudo -kS", (p) => `echo ${p} | sudo -kS whoami`],
  ];
  it.each(cases.map(([name, make], i) => [name, make, i] as const))("%s", (_name, make, i) => {
    const p = pw(100 + i);
    const line = make(p);
    for (const r of [redactText(line).text, redactTranscript(line).text]) {
      expect(r).not.toContain(p);
      expect(r).toBe(line.replace(p, "<redacted: cli-password>"));
    }
  });

  it.each(["docker run -p 8080:80 nginx", "zip -r out.zip src", "redis-cli -h cache ping", "echo hello | sudo tee /etc/x", "sqlcmd -S db -Q 'select 1'"])(
    "keeps %j",
    (line) => {
      expect(redactText(line).text).toBe(line);
    },
  );
});

describe("a password typed in a session (checkpoint text only)", () => {
  it.each([
    (p: string) => `my password is ${p}`,
    (p: string) => `The password for the db is ${p}.`,
    (p: string) => `root pw: ${p}`,
    (p: string) => `ok, the passphrase was "${p}"`,
  ])("%s", (make) => {
    const p = pw(7);
    expect(redactTranscript(make(p)).text).not.toContain(p);
  });

  it.each(["the password is wrong", "my password is $DB_PASSWORD", "the password is <redacted: cli-password>"])("keeps %j", (line) => {
    expect(redactTranscript(line).text).toBe(line);
  });
});

describe("tokens wrapped at a tool's width", () => {
  const r = prng(5);
  const body = randomString(r, ALNUM, 150);
  const openai = `sk-proj-${body}`;
  const pat = `github_pat_11${body.slice(0, 80)}`;
  const cases: Array<[string, string, string]> = [
    ["at 64, no prefix", `key:\n${openai.slice(0, 64)}\n${openai.slice(64, 128)}\n${openai.slice(128)}\n`, openai],
    ["at 64 behind '# '", `# ${openai.slice(0, 62)}\n# ${openai.slice(62, 124)}\n# ${openai.slice(124)}\n`, openai],
    ["at 80 after a name", `OPENAI_API_KEY=${openai.slice(0, 65)}\n${openai.slice(65, 145)}\n${openai.slice(145)}\n`, openai],
    ["a fine-grained PAT at 80", `${pat.slice(0, 80)}\n${pat.slice(80)}\n`, pat],
    ["a fine-grained PAT behind '> '", `> token ${pat.slice(0, 40)}\n> ${pat.slice(40, 86)}\n> ${pat.slice(86)}\n`, pat],
  ];
  it.each(cases)("%s", (_name, text, secret) => {
    const out = redactText(text).text;
    for (let i = 8; i + 12 <= secret.length; i += 12) expect(out).not.toContain(secret.slice(i, i + 12));
  });

  it("the next variable after a key is not its tail", () => {
    const text = `OPENAI_API_KEY=${openai}\nPORT=8080\n`;
    expect(redactText(text).text).toBe("OPENAI_API_KEY=<redacted: openai-api-key>\nPORT=8080\n");
  });
});
