// No secret reaches stdout or stderr: schema findings quote the redacted document, and every
// line a verb prints passes through redaction, whatever the verb.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ALNUM, B64, prng, randomString } from "../fixtures/redaction/corpus.ts";
import { awsKeyId, awsSecret, githubToken, pemLines, pemMaterial } from "../fixtures/redaction/attacks.ts";
import { gitRepo, handoff, helper, MARKER } from "../helpers.ts";

/** A handoff whose body is `extra` lines placed after the goal, outside any section's grammar. */
function withLines(extra: string[]): string {
  return handoff("Ship the release.").replace("## Plan\n", `${extra.join("\n")}\n\n## Plan\n`);
}

function parts(secret: string): string[] {
  // What must be absent: every 12-character piece of the secret's material.
  const out: string[] = [];
  for (let i = 0; i + 12 <= secret.length; i += 12) out.push(secret.slice(i, i + 12));
  return out;
}

function expectNoLeak(text: string, secrets: string[]): void {
  for (const s of secrets) for (const p of parts(s)) expect(text).not.toContain(p);
}

describe("validation findings quote the redacted document", () => {
  const cases: { name: string; lines: string[]; secrets: string[] }[] = [
    (() => {
      const pem = pemLines(11);
      return { name: "a PEM key behind '# '", lines: pem.map((l) => `# ${l}`), secrets: pemMaterial(pem) };
    })(),
    (() => {
      const id = awsKeyId(12);
      const s = awsSecret(13);
      return { name: "an AWS secret written as a heading under its key id", lines: [`# ${id}`, `# ${s}`], secrets: [s] };
    })(),
    (() => {
      const t = githubToken(14);
      return { name: "a ghp_ token split over two '# ' lines", lines: [`# ${t.slice(0, 20)}`, `# ${t.slice(20)}`], secrets: [t.slice(4)] };
    })(),
  ];
  for (const c of cases) {
    it(`write refuses or saves ${c.name} without printing it`, () => {
      const root = gitRepo();
      const r = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: withLines(c.lines) });
      expectNoLeak(r.stdout + r.stderr, c.secrets);
      const v = helper(["validate", "--root", root, "-"], { input: withLines(c.lines) });
      expectNoLeak(v.stdout + v.stderr, c.secrets);
    });
  }

  it("a key-file path holding a token is never printed", () => {
    const root = gitRepo();
    const t = githubToken(15);
    const doc = handoff("Ship.").replace("## Key files\n- none", `## Key files\n- src/${t}/config.ts`);
    const r = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: doc });
    expect(r.stdout + r.stderr).not.toContain(t);
  });
});

describe("every verb's output passes through redaction", () => {
  it("a secret in a hand-edited memory file is not printed by read, brief or search", () => {
    const root = gitRepo();
    const t = githubToken(21);
    mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
    writeFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), handoff(`Deploy with ${t} today.`));
    writeFileSync(path.join(root, ".ai", "memory", "LESSONS.md"), `${MARKER}\n# Lessons\n\n- token ${t} works\n`);
    for (const args of [["read", "handoff"], ["brief"], ["search", "token"], ["read", "lessons"], ["validate"]]) {
      const r = helper([...args, "--root", root]);
      expect(r.stdout + r.stderr, args.join(" ")).not.toContain(t);
    }
  });

  it("a wrapped token in an error message is redacted across its line break", () => {
    const r = prng(5);
    const key = `sk-proj-${randomString(r, ALNUM, 60)}${randomString(r, B64.replace(/[+/]/g, ""), 100)}`;
    const out = helper(["redact"], { input: `key:\n${key.slice(0, 64)}\n${key.slice(64, 128)}\n${key.slice(128)}\n` });
    expectNoLeak(out.stdout, [key.slice(8)]);
  });
});
