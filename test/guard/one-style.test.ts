// One escaping style in human output (docs/design.md#verdicts-and-the-brief): a control
// character (ESC) and a bidi control (U+202E) fed through every file-controlled value -- handoff
// text, a commit author and e-mail, a branch name, a file name, an anchor value in a refusal --
// come out the same way everywhere: values in double quotes with <U+XXXX>, file names in double
// quotes with git's octal escapes (docs/design.md#redaction); never raw, never a C or
// JSON escape such as \u001b. The built bundle over a real repository.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { git, gitRepo, handoff, helper, sha } from "../helpers.ts";

const ESC = "\u001b";
const RLO = "\u202E";
/** Raw: controls but LF, bidi controls, line separators. */
const RAW = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;
/** Another escaping style: JSON's or C's for a control, or a \u escape of a bidi control. */
const OTHER_STYLE = /\\u00[0-9a-f]{2}|\\u20[0-9a-f]{2}|\\x1b|\\e\[/i;

function hostileDoc(head: string, goal: string, dirty: string, headAnchor = head): string {
  return handoff(goal).replace(/## Environment anchors\n[\s\S]*$/, `## Environment anchors\n- Branch: main\n- HEAD: ${headAnchor}\n- Dirty files: ${dirty}\n- Date: 2026-12-01T08:00:00Z\n`);
}

describe("one escaping style for file-controlled values in human output", () => {
  it("brief, drift, archives list and validate's refusal text: <U+XXXX> in quoted values, octal in quoted file names", () => {
    const root = gitRepo();
    const head = git(root, "rev-parse", "HEAD").trim();
    const memory = path.join(root, ".ai", "memory");
    // The clone saves once (its record of saves exists)...
    const first = helper(["write", "handoff", "--root", root, "--expected-current-sha256", "absent"], { input: hostileDoc(head, "first", "none") });
    expect(first.code, first.stderr).toBe(0);
    git(root, "add", "-A");
    git(root, "commit", "-qm", "save");
    // ...then a handoff written by another program comes in, committed by a hostile author.
    const goal = `Goal ${ESC}[31m red ${RLO}evil`;
    // A dirty file's name as the anchors line quotes it: drift decodes it.
    const hostile = hostileDoc(head, goal, '"docs/a\\033b\\342\\200\\256c.md"');
    writeFileSync(path.join(memory, "HANDOFF.md"), hostile);
    git(root, "add", "-A");
    git(root, "-c", `user.name=Eve${ESC}[2J${RLO}x`, "-c", `user.email=eve${ESC}${RLO}@example.com`, "commit", "-qm", "hostile");
    git(root, "checkout", "-qb", `feat${RLO}evil`);

    const brief = helper(["brief", "--root", root]);
    const drift = helper(["drift", "--root", root]);
    expect(brief.code, brief.stderr).toBe(0);
    expect(drift.code, drift.stderr).toBe(0);
    // Handoff text, enveloped and shown.
    expect(brief.stdout).toContain("Goal: Goal <U+001B>[31m red <U+202E>evil\n");
    // The commit author and e-mail, both quoted (docs/design.md#memory-from-elsewhere).
    const author = 'its last commit is by "Eve<U+001B>[2J<U+202E>x" "eve<U+001B><U+202E>@example.com"';
    expect(brief.stdout).toContain(author);
    expect(drift.stdout).toContain(author);
    // A branch name: quoted, <U+XXXX>.
    expect(drift.stdout).toMatch(/^branch: saved .*, now "feat<U\+202E>evil"/m);
    // A file name: quoted with git's octal escapes, as the anchors line writes it.
    expect(drift.stdout).toContain('dirty in the clone that saved, not in this one: "docs/a\\033b\\342\\200\\256c.md"');

    // A refusal's quoted value: a malformed HEAD anchor holding both.
    writeFileSync(path.join(memory, "HANDOFF.md"), hostileDoc(head, "a goal", "none", `zz${ESC}${RLO}x`));
    const validate = helper(["validate", "handoff", "--root", root]);
    expect(validate.code).toBe(2);
    expect(validate.stdout).toContain('HEAD "zz<U+001B><U+202E>x" is not a full 40- or 64-hex commit id');

    // archives list: the hostile handoff archived by the next save, its goal quoted.
    writeFileSync(path.join(memory, "HANDOFF.md"), hostile);
    const token = sha(hostile);
    const w = helper(["write", "handoff", "--root", root, "--expected-current-sha256", token], { input: hostileDoc(head, "clean", "none") });
    expect(w.code, w.stderr).toBe(0);
    const list = helper(["archives", "list", "--root", root]);
    expect(list.stdout).toMatch(/ {2}"Goal <U\+001B>\[31m red <U\+202E>evil"$/m);

    for (const [verb, r] of Object.entries({ brief, drift, validate, list })) {
      for (const out of [r.stdout, r.stderr]) {
        expect({ verb, raw: RAW.exec(out)?.[0] ?? null }).toEqual({ verb, raw: null });
        expect({ verb, other: OTHER_STYLE.exec(out)?.[0] ?? null }).toEqual({ verb, other: null });
      }
    }
  });

  // Words the helper itself builds around an argument, an environment value or a path: the hook
  // input's cwd (hook and checkpoint), an unknown archives action, a missing HOME, the kill
  // switch's value, and doctor's paste-ready fix for a PAUSE file (docs/design.md#verdicts-and-the-brief).
  it("refusals and doctor's fixes: <U+XXXX> in quoted values, no JSON escape, no command for a path with a control", () => {
    const root = gitRepo();
    const odd = `${ESC}[31mX${RLO}`;
    const input = JSON.stringify({ cwd: `rel/${odd}`, session_id: "s", source: "startup" });
    const hook = helper(["hook", "--mode", "session"], { input });
    const checkpoint = helper(["checkpoint"], { input });
    const cwdLine = `the hook input's cwd "rel/<U+001B>[31mX<U+202E>" is not an absolute path (pass --root <project>)`;
    expect(hook.stderr).toContain(cwdLine);
    expect(checkpoint.stderr).toContain(cwdLine);

    const action = helper(["archives", `a${odd}`, "--root", root]);
    expect(action.code).toBe(2);
    expect(action.stderr).toContain('unknown archives action "a<U+001B>[31mX<U+202E>": use list, show NAME or restore NAME');

    const install = helper(["install", "--agent", "claude-code", "--root", root], { env: { HOME: `/nonexist${odd}` } });
    expect(install.code).toBe(2);
    expect(install.stderr).toContain('HOME ("/nonexist<U+001B>[31mX<U+202E>") does not exist');

    const disabled = helper(["write", "lessons", "--root", root, "--expected-current-sha256", "absent"], { input: "x", env: { SESSION_HANDOFF_DISABLE: `1${odd}` } });
    expect(disabled.code).toBe(4);
    expect(disabled.stderr).toContain('SESSION_HANDOFF_DISABLE="1<U+001B>[31mX<U+202E>" from the environment');

    // doctor: a PAUSE file under a folder named with both gets words, not a command...
    const folder = path.join(root, `p${odd}`);
    mkdirSync(folder);
    writeFileSync(path.join(folder, "PAUSE"), "");
    const doctor = helper(["doctor", "--root", root], { env: { SESSION_HANDOFF_PAUSE: path.join(folder, "PAUSE") } });
    expect(doctor.stdout).toContain(`fix: remove the file "${root}/p<U+001B>[31mX<U+202E>/PAUSE" (a path holds a control character, so no command is printed to paste)`);
    // ...and one with a quote and a space a command quoted for the shell.
    const plain = path.join(root, "it's PAUSE");
    writeFileSync(plain, "");
    const doctorPlain = helper(["doctor", "--root", root], { env: { SESSION_HANDOFF_PAUSE: plain } });
    expect(doctorPlain.stdout).toContain(`fix: rm '${root}/it'\\''s PAUSE'`);

    for (const [verb, r] of Object.entries({ hook, checkpoint, action, install, disabled, doctor })) {
      for (const out of [r.stdout, r.stderr]) {
        expect({ verb, raw: RAW.exec(out)?.[0] ?? null }).toEqual({ verb, raw: null });
        expect({ verb, other: OTHER_STYLE.exec(out)?.[0] ?? null }).toEqual({ verb, other: null });
      }
    }
  });
});
