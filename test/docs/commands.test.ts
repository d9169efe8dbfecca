// Every helper command that SKILL.md and the references tell an agent to run is run here, with
// its placeholders filled in, through a shell against scratch git repositories, in a cold
// project (no memory yet) and a warm one (memory saved). Instructions that don't work are bugs
// (skill.md). The bundle is copied under a path with a space, as real install paths have. The
// shell parses each command; a command that is one call of the helper then runs in this process
// with the argv and stdin the shell gave it (shell()); the hook's kill switch, the hook snippet and
// the crash spawn the built bundle.
import { copyHelper } from "../helpers.ts";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { briefBody } from "../helpers.ts";
import { inProcess } from "../in-process.ts";
import {
  docCommands,
  fencedBlocks,
  FLOWS,
  handoffProblems,
  INVOCATION,
  readDoc,
  REPO,
  templateParts,
  type DocCommand,
} from "./support.ts";

const BUNDLE = path.join(REPO, "scripts", "memory_io.mjs");
const DOCS = ["SKILL.md", ...readdirSync(path.join(REPO, "references")).filter((n) => n.endsWith(".md")).sort().map((n) => `references/${n}`)];
const COMMANDS = docCommands(DOCS);

type State = "cold" | "warm";
type Kind = "handoff" | "lessons" | "solutions";

const EXAMPLES: Record<Kind, string> = {
  handoff: templateParts().example,
  lessons: fencedBlocks(readDoc("references/lessons-schema.md"), "markdown")[0] ?? "",
  solutions: fencedBlocks(readDoc("references/solutions-schema.md"), "markdown")[0] ?? "",
};
const PROMOTED = "- Run the integration tests against the real database before a release.\n";
const BRIEF_LABELS = ["Goal:", "Plan status:", "Decisions in force:", "Do-not-retry:", "Drift & lessons:", "Proposed next step:"];
const TOKEN_LINE = /^CURRENT-SHA256: [0-9a-f]{64}$/;

let work = "";
let skillDir = "";
let env: NodeJS.ProcessEnv = {};
let serial = 0;

beforeAll(() => {
  if (!existsSync(BUNDLE)) throw new Error("scripts/memory_io.mjs is missing: run `npm run build` before the docs tests");
  work = mkdtempSync(path.join(tmpdir(), "sh-docs-"));
  skillDir = path.join(work, "skill dir");
  mkdirSync(path.join(skillDir, "scripts"), { recursive: true });
  copyHelper(path.join(skillDir, "scripts", "memory_io.mjs"));
  const home = path.join(work, "home");
  mkdirSync(home);
  env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config"), GIT_CONFIG_NOSYSTEM: "1" };
  for (const name of ["SESSION_HANDOFF_DISABLE", "SESSION_HANDOFF_PAUSE", "MEMORY_IO_FAILPOINT", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"]) {
    delete env[name];
  }
});

afterAll(() => {
  if (work !== "") rmSync(work, { recursive: true, force: true });
});

function git(root: string, ...args: string[]): string {
  const r = spawnSync("git", args, { cwd: root, env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout.trim();
}

/** What a command left: its exit code (null when killed), its output. */
interface Ran {
  status: number | null;
  signal?: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the bundle copy directly (test plumbing, not a doc command). */
function helper(args: string[], input = "", extraEnv: NodeJS.ProcessEnv = {}): Ran {
  return spawnSync(process.execPath, [path.join(skillDir, "scripts", "memory_io.mjs"), ...args], {
    env: { ...env, ...extraEnv },
    input,
    encoding: "utf8",
    timeout: 30_000,
  });
}

const templates: Partial<Record<State, string>> = {};

/**
 * A scratch repository; `warm` has a saved handoff, both ledgers, AGENTS.md and CLAUDE.md. Each
 * state is made once and copied: the copy is the same repository and memory, without the eight
 * processes that make one.
 */
function scratch(state: State): string {
  const root = path.join(work, `project root ${++serial}`);
  templates[state] ??= makeScratch(state, path.join(work, `template ${state}`));
  cpSync(templates[state], root, { recursive: true, preserveTimestamps: true });
  return root;
}

function makeScratch(state: State, root: string): string {
  mkdirSync(root);
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.email", "docs@example.invalid");
  git(root, "config", "user.name", "docs test");
  writeFileSync(path.join(root, "README.md"), "# scratch\n");
  if (state === "warm") {
    writeFileSync(path.join(root, "AGENTS.md"), "# Agent rules\n");
    writeFileSync(path.join(root, "CLAUDE.md"), "# Claude rules\n");
  }
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "init");
  if (state === "warm") {
    for (const kind of ["handoff", "lessons", "solutions"] as const) {
      const r = helper(["write", kind, "--root", root, "--expected-current-sha256", "absent"], EXAMPLES[kind]);
      if (r.status !== 0) throw new Error(`setting up a warm project: write ${kind} exited ${r.status}: ${r.stderr}`);
    }
  }
  return root;
}

async function tokenOf(root: string, args: string[]): Promise<string> {
  return (await readFor(root, args)).token;
}

/** What a read prints for a save: the token, and (`read <kind>`) its own draft path (docs/decisions/drafts.md). */
async function readFor(root: string, args: string[]): Promise<{ token: string; draft: string | null }> {
  const r = await inProcess([...args, "--root", root], { wholeEnv: env, helperPath: path.join(skillDir, "scripts", "memory_io.mjs") });
  const m = /^CURRENT-SHA256: (absent|[0-9a-f]{64})$/m.exec(r.stdout);
  if (!m?.[1]) throw new Error(`no token from ${args.join(" ")} (exit ${r.code}): ${r.stderr}`);
  return { token: m[1], draft: /^DRAFT: (\S+)$/m.exec(r.stderr)?.[1] ?? null };
}

function flag(words: string[], name: string): string | undefined {
  const i = words.indexOf(name);
  return i < 0 ? undefined : words[i + 1];
}

/** Fills the documented placeholders; any other `<placeholder>` left is a docs bug. */
function fill(text: string, root: string, token?: string, draft?: string): string {
  let out = text.replaceAll("<skill-dir>", skillDir).replaceAll("<project-root>", root).replaceAll("<words>", "duplicate rows");
  if (token !== undefined) out = out.replaceAll("<token>", token);
  if (draft !== undefined) out = out.replaceAll("<draft>", draft);
  const left = out.match(/<[a-z][a-z-]*>/g);
  if (left) throw new Error(`unfilled placeholder(s) ${left.join(", ")} in: ${text}`);
  return out;
}

/** Runs a filled command through a shell as an agent would, the helper's node process included. */
function spawnShell(command: string, cwd: string, input: string, extraEnv: NodeJS.ProcessEnv = {}): Ran {
  return spawnSync("sh", ["-c", command], { cwd, env: { ...env, ...extraEnv }, input, encoding: "utf8", timeout: 30_000 });
}

// One call of the helper, words and quotes only, a heredoc's document after it at most.
const ONE_CALL = /^node "[^"\n]*"(?: [^\n|;&$`()<>]*)?(?: <<-?\s*'?[A-Za-z_]+'?\n[\s\S]*)?$/;

/**
 * Runs a filled command through a shell as an agent would. When it is one call of the helper, a
 * shell function `node` takes the argv and stdin the shell gives it, and the verb runs in this
 * process as the copy in the skill folder (without a node start); a wrong path or a word split
 * by bad quoting fails as the real call would. Anything else runs as written (spawnShell).
 */
async function shell(command: string, cwd: string, input: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Ran> {
  if (!ONE_CALL.test(command)) return spawnShell(command, cwd, input, extraEnv);
  const helperPath = path.join(skillDir, "scripts", "memory_io.mjs");
  const seen = path.join(work, `argv-${++serial}`);
  const shim = `node() { [ "$1" = '${helperPath}' ] || { echo "node: cannot find $1" >&2; exit 1; }; shift; printf '%s\\0' "$@" > '${seen}'; cat > '${seen}.in'; }\n`;
  const called = spawnShell(shim + command, cwd, input, extraEnv);
  if (called.status !== 0 || !existsSync(seen)) return called;
  const argv = readFileSync(seen, "utf8").split("\0").slice(0, -1);
  const r = await inProcess(argv, { wholeEnv: { ...env, ...extraEnv }, cwd, input: readFileSync(`${seen}.in`), helperPath });
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** What a harness's file tool does for the draft form: the folders as needed, then the file. */
function writeDraft(root: string, draft: string, text: string): void {
  const file = path.join(root, draft);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

interface Plan {
  stdin: string;
  /** What the agent does before the call with its own tools (a `--from-draft` save writes the draft). */
  prepare?: (root: string) => void;
  token?: string;
  /** The draft path the read named, for `<draft>`. */
  draft?: string;
  expect: number;
  check?: (r: Ran, root: string) => void;
}

/** What a documented command needs and must do in each state, as references/memory-contract.md says. */
async function plan(cmd: DocCommand, state: State, root: string): Promise<Plan> {
  const [verb = "", arg] = cmd.words;
  const warm = state === "warm";
  switch (verb) {
    case "--help":
      return { stdin: "", expect: 0 };
    case "anchors":
      return {
        stdin: "",
        expect: 0,
        check: (r) => {
          const head = git(root, "rev-parse", "HEAD");
          const lines = r.stdout.replace(/\n$/, "").split("\n");
          expect(lines.slice(0, 3)).toEqual(["- Branch: main", `- HEAD: ${head}`, "- Dirty files: none"]);
          expect(lines[3]).toMatch(/^- Date: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
          expect(lines).toHaveLength(4);
        },
      };
    case "read":
      // The scratch projects hold no automatic checkpoint.
      if (arg === "checkpoint") return { stdin: "", expect: 3, check: (r) => expect(r.stdout).toBe("CURRENT-SHA256: absent\n") };
      return {
        stdin: "",
        expect: warm ? 0 : 3,
        check: (r) => {
          if (!warm) return expect(r.stdout).toBe("CURRENT-SHA256: absent\n");
          const lines = r.stdout.split("\n");
          expect(lines[0]).toMatch(TOKEN_LINE);
          expect(lines[1]).toMatch(/^<<<BEGIN UNTRUSTED [A-Z]+\.md [0-9a-f]{16}>>>$/);
        },
      };
    case "read-target":
      return { stdin: "", expect: warm ? 0 : 3 };
    case "search":
      return { stdin: "", expect: 0, check: (r) => expect(r.stdout).toMatch(/^search: \d+ result\(s\) for "duplicate rows" in \d+ file\(s\)/) };
    case "journal":
      return { stdin: "", expect: 0, check: (r) => expect(r.stdout).toMatch(/^(purged \d+ journal file\(s\)|nothing to purge: .*)\n/) };
    case "write": {
      const kind = arg as Kind;
      if (!(kind in EXAMPLES)) throw new Error(`no example document for write ${arg}`);
      // The draft form (docs/decisions/save-form.md): the document goes to drafts/ by the file tool.
      const fromDraft = cmd.words.includes("--from-draft");
      const { token, draft } = await readFor(root, ["read", kind]);
      const named = cmd.words.includes("<draft>") ? draft! : `.ai/memory/drafts/${kind}.md`;
      return {
        stdin: fromDraft ? "" : EXAMPLES[kind],
        prepare: fromDraft ? (r) => writeDraft(r, named, EXAMPLES[kind]) : undefined,
        token,
        draft: named,
        expect: 0,
        check: (r) => expect(r.stdout.replace(/\n$/, "").split("\n").at(-1)).toMatch(TOKEN_LINE),
      };
    }
    case "promote": {
      const target = flag(cmd.words, "--target") ?? "AGENTS.md";
      return {
        stdin: PROMOTED,
        token: await tokenOf(root, ["read-target", "--target", target]),
        expect: 0,
        check: (r) => expect(r.stdout).toContain(`appended approved lesson to ${target}`),
      };
    }
    case "brief": {
      // A pasted handoff (`brief --stdin`) is briefed in any project, warm or cold.
      const pasted = cmd.words.includes("--stdin");
      return {
        stdin: pasted ? EXAMPLES.handoff : "",
        expect: warm || pasted ? 0 : 3,
        check: (r) => {
          if (!warm && !pasted) return expect(r.stdout).toContain("No saved session state exists.");
          const lines = briefBody(r.stdout).replace(/\n$/, "").split("\n");
          expect(lines.map((l) => BRIEF_LABELS.find((label) => l.startsWith(label)))).toEqual(BRIEF_LABELS);
          expect(lines[5]).toMatch(/Confirm\?$/);
        },
      };
    }
    case "drift":
      return cmd.words.includes("--stdin") ? { stdin: EXAMPLES.handoff, expect: 0 } : { stdin: "", expect: warm ? 0 : 3 };
    case "check":
      return { stdin: "", expect: warm ? 2 : 0 };
    case "recover":
      return { stdin: "", expect: 0 };
    case "redact":
      return { stdin: "nothing secret here\n", expect: 0 };
    case "hook":
      return {
        stdin: "",
        expect: 0,
        check: (r) => {
          if (!warm) return expect(r.stdout).toBe("");
          if (flag(cmd.words, "--mode") === "session") expect(r.stdout).toContain("parked handoff exists");
          expect(r.stdout).not.toBe("");
          // Fixed sentences only: nothing from the files may show.
          for (const text of ["CSV importer", "Run the integration tests", "feat/csv-dedupe"]) expect(r.stdout).not.toContain(text);
          expect(r.stdout.length).toBeLessThan(2000);
        },
      };
    case "checkpoint":
      // Run by hooks; with no hook input it captures the anchors at the current directory's root.
      return {
        stdin: "",
        expect: 0,
        check: (r, at) => {
          expect(r.stdout).toBe("");
          expect(existsSync(path.join(at, ".ai", "memory", "checkpoints", "unknown.md"))).toBe(true);
        },
      };
    case "install":
    case "uninstall": {
      const agent = flag(cmd.words, "--agent") ?? "";
      return {
        stdin: "",
        expect: 0,
        check: (r) => {
          // Lines name files; a dry run, an uninstall of nothing, or a re-install changes nothing.
          expect(r.stdout).toMatch(/^(created|updated|unchanged|absent|removed|restored|would [a-z]+) \S/m);
          if (verb === "install" && !cmd.words.includes("--dry-run")) expect(r.stdout).toMatch(/^created /m);
          expect(agent).not.toBe("");
        },
      };
    }
    case "doctor":
      return { stdin: "", expect: 0, check: (r) => expect(r.stdout).toMatch(/^node \d+\./) };
    case "publish":
      // A scratch project has no remote: publish commits locally, or refuses with no memory to publish.
      if (!warm) return { stdin: "", expect: 2, check: (r) => expect(r.stderr).toMatch(/refused: nothing to publish: /) };
      return { stdin: "", expect: 0, check: (r) => expect(r.stdout).toMatch(/^published \d+ file\(s\) in [0-9a-f]{12}$/m) };
    default:
      throw new Error(`${cmd.where}: no scenario for the verb ${JSON.stringify(verb)}; add one to test/docs/commands.test.ts`);
  }
}

async function runDocCommand(cmd: DocCommand, state: State): Promise<void> {
  const root = scratch(state);
  const p = await plan(cmd, state, root);
  p.prepare?.(root);
  const r = await shell(fill(cmd.text, root, p.token, p.draft), root, p.stdin);
  if (r.status === 2 && /unknown verb/.test(r.stderr)) {
    throw new Error(`${cmd.where}: the verb ${JSON.stringify(cmd.words[0])} is not in the bundle yet`);
  }
  expect(r.status, `${state}: ${cmd.text}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(p.expect);
  p.check?.(r, root);
}

describe("commands in SKILL.md and references/", () => {
  it("covers every step the flows name", () => {
    const verbs = new Set(COMMANDS.map((c) => c.words.slice(0, 2).join(" ")));
    for (const v of ["read handoff", "write handoff", "brief", "brief --stdin", "check", "recover", "hook --mode"]) {
      expect([...verbs], v).toContain(v);
    }
  });

  for (const state of ["cold", "warm"] as const) {
    for (const cmd of COMMANDS) {
      it(`${cmd.where}: ${cmd.words.join(" ")} (${state} project)`, () => runDocCommand(cmd, state));
    }
  }
});

/** The first documented command whose arguments start with these words. */
function documented(...words: string[]): DocCommand {
  const found = COMMANDS.find((c) => words.every((w, i) => c.words[i] === w));
  if (!found) throw new Error(`no documented command starting with ${words.join(" ")}`);
  return found;
}

describe("the save and resume flows as SKILL.md tells them", () => {
  it("are one call to resume and two to save, counted from SKILL.md's fences", () => {
    expect(FLOWS.resume.calls).toHaveLength(1);
    expect(FLOWS.save.calls).toHaveLength(2);
    expect(FLOWS.save.calls[1]).toMatch(/ write handoff --from-draft <draft> --expected-current-sha256 <token>$/);
    expect(FLOWS.save.drafts).toEqual(["DRAFT:"]);
  });

  it("save: read, the draft written by the file tool, then its write with the token; the helper stamps Saved: and fills the anchors; resume: one brief", async () => {
    const root = scratch("cold");
    // The worked example's key files, so that drift has nothing to report.
    mkdirSync(path.join(root, "src", "import"), { recursive: true });
    for (const f of ["csv.ts", "dedupe.ts"]) writeFileSync(path.join(root, "src", "import", f), "export {};\n");
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "importer");
    const [readCall = "", writeCall = ""] = FLOWS.save.calls;
    const [briefCall = ""] = FLOWS.resume.calls;

    const read = await shell(fill(readCall, root), root, "");
    expect(read.status).toBe(3);
    expect(read.stdout).toBe("CURRENT-SHA256: absent\n");
    // The draft of this read's own, on stderr (docs/decisions/drafts.md).
    let draft = /^DRAFT: (\.ai\/memory\/drafts\/handoff-[0-9a-f]{8}\.md)$/m.exec(read.stderr)?.[1] ?? "";
    expect(draft, read.stderr).not.toBe("");

    // What the template asks the agent for: no Saved: line, the anchors section left empty.
    const doc = EXAMPLES.handoff.replace(/^Saved: .+\n\n?/m, "").replace(/(## Environment anchors\n)[\s\S]*$/, "$1");
    expect(handoffProblems(doc, { placeholders: false, helperFills: true })).toEqual([]);
    const save = async (document: string, token: string) => {
      for (const d of FLOWS.save.drafts.map((x) => (x === "DRAFT:" ? draft : x))) {
        mkdirSync(path.dirname(path.join(root, d)), { recursive: true });
        writeFileSync(path.join(root, d), document);
      }
      return shell(fill(writeCall, root, token, draft), root, "");
    };

    const write = await save(doc, "absent");
    expect(write.status, write.stderr).toBe(0);
    const saved = write.stdout.replace(/\n$/, "").split("\n").at(-1) ?? "";
    expect(saved).toMatch(TOKEN_LINE);

    const again = await shell(fill(readCall, root), root, "");
    expect(again.status).toBe(0);
    draft = /^DRAFT: (\S+)$/m.exec(again.stderr)?.[1] ?? "";
    expect(again.stdout.split("\n")[0]).toBe(saved);
    expect(again.stdout).toMatch(/^Saved: \d{4}-\d\d-\d\dT/m);
    expect(again.stdout).toContain(`- HEAD: ${git(root, "rev-parse", "HEAD")}\n`);

    // The same document again is `unchanged`; a changed one with a stale token is refused.
    const same = await save(doc, saved.slice("CURRENT-SHA256: ".length));
    expect(same.status, same.stderr).toBe(0);
    expect(same.stdout).toBe(`unchanged HANDOFF.md\n${saved}\n`);
    const stale = await save(doc.replace("Make the CSV importer", "Make the TSV importer"), "absent");
    expect(stale.status).toBe(2);
    expect(stale.stderr).toContain("memory operation refused: ");
    expect(stale.stderr).toContain("changed since it was read");

    const brief = await shell(fill(briefCall, root), root, "");
    expect(brief.status, brief.stderr).toBe(0);
    expect(briefBody(brief.stdout).split("\n").slice(0, 6).map((l) => BRIEF_LABELS.find((label) => l.startsWith(label)))).toEqual(BRIEF_LABELS);
    expect(brief.stdout).toMatch(/^Drift & lessons: fresh/m);
  });
});

describe("recovery as memory-contract.md describes it", () => {
  it("check exits 1 after a crashed save, recover repairs it, check then sees the parked handoff", async () => {
    const root = scratch("warm");
    // The crash is spawned, as it must be; the documents' commands run as shell() runs them.
    const token = await tokenOf(root, ["read", "handoff"]);
    // A changed document: the parked one sent again would be `unchanged`, no claim made.
    const changed = EXAMPLES.handoff.replace("## Open questions\n", "## Open questions\n- Is 1 GB the right spill threshold?\n");
    const crashed = helper(["write", "handoff", "--root", root, "--expected-current-sha256", token], changed, {
      MEMORY_IO_FAILPOINT: "after-claim:crash",
    });
    expect(crashed.signal ?? crashed.status).toBe("SIGKILL");
    const check = () => shell(fill(documented("check").text, root), root, "");
    expect((await check()).status).toBe(1);
    const recover = await shell(fill(documented("recover").text, root), root, "");
    expect(recover.status, recover.stderr).toBe(0);
    expect((await check()).status).toBe(2);
  });
});

describe("the kill switch as memory-contract.md describes it", () => {
  const write = (root: string, extraEnv: NodeJS.ProcessEnv) =>
    shell(fill(documented("write", "handoff").text, root, "absent", ".ai/memory/drafts/handoff-0123abcd.md"), root, EXAMPLES.handoff, extraEnv);

  it.each(["memory-dir PAUSE", "SESSION_HANDOFF_PAUSE", "config PAUSE", "SESSION_HANDOFF_DISABLE=1"])("%s pauses writes (exit 4), reads keep working", async (which) => {
    const root = scratch("cold");
    let extraEnv: NodeJS.ProcessEnv = {};
    if (which === "memory-dir PAUSE") {
      mkdirSync(path.join(root, ".ai", "memory"), { recursive: true });
      writeFileSync(path.join(root, ".ai", "memory", "PAUSE"), "");
    } else if (which === "SESSION_HANDOFF_PAUSE") {
      const file = path.join(work, `pause-${++serial}`);
      writeFileSync(file, "");
      extraEnv = { SESSION_HANDOFF_PAUSE: file };
    } else if (which === "config PAUSE") {
      const config = path.join(work, `config-${++serial}`);
      mkdirSync(path.join(config, "session-handoff"), { recursive: true });
      writeFileSync(path.join(config, "session-handoff", "PAUSE"), "");
      extraEnv = { XDG_CONFIG_HOME: config };
    } else {
      extraEnv = { SESSION_HANDOFF_DISABLE: "1" };
    }
    // The verb gets the environment the shell was given (shell()); the hook's switch below is spawned.
    const r = await write(root, extraEnv);
    expect(r.status, r.stderr).toBe(4);
    expect(r.stderr).toContain("memory writes are paused: remove ");
    const read = await shell(fill(documented("read", "handoff").text, root), root, "", extraEnv);
    expect(read.status).toBe(3);
  });

  it("SESSION_HANDOFF_DISABLE=1 silences the hook", () => {
    const root = scratch("warm");
    const r = spawnShell(fill(documented("hook", "--mode", "session").text, root), root, "", { SESSION_HANDOFF_DISABLE: "1" });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("");
  });
});

describe("the Claude Code hook snippet of references/session-start-hook.md", () => {
  const snippets = fencedBlocks(readDoc("references/session-start-hook.md"), "json");

  it("is valid settings JSON with the SessionStart matcher and the quoted helper path", () => {
    expect(snippets).toHaveLength(1);
    const settings = JSON.parse(snippets[0] ?? "") as {
      hooks: { SessionStart: { matcher: string; hooks: { type: string; command: string; timeout?: number }[] }[] };
    };
    const entry = settings.hooks.SessionStart[0];
    expect(entry?.matcher).toBe("startup|resume|clear|compact|fork");
    expect(entry?.hooks[0]?.type).toBe("command");
    expect(entry?.hooks[0]?.command.startsWith(`${INVOCATION} hook --mode session`)).toBe(true);
  });

  it.each(["cold", "warm"] as const)("runs as Claude Code would run it, finding the project from stdin's cwd (%s)", (state) => {
    const settings = JSON.parse(snippets[0] ?? "") as { hooks: { SessionStart: { hooks: { command: string }[] }[] } };
    const command = settings.hooks.SessionStart[0]?.hooks[0]?.command ?? "";
    const root = scratch(state);
    const stdin = JSON.stringify({ session_id: "s1", cwd: root, hook_event_name: "SessionStart", source: "startup" });
    // Started elsewhere on purpose: the project must come from the stdin JSON.
    // Spawned: the session bundle, as the harness starts it.
    const r = spawnShell(fill(command, root), work, stdin);
    expect(r.status, r.stderr).toBe(0);
    if (state === "warm") expect(r.stdout).toContain("parked handoff exists");
    else expect(r.stdout).toBe("");
  });
});

// every ```sh fence in SKILL.md, README.md, references/ and the user docs README links to
// (docs/agents.md, docs/journal.md, docs/teammates.md) runs, line by line, in
// one scratch repository per fence with the built helper; a line exits 0 unless it ends with
// `# exit N`. Network and slash commands belong in ```console fences, which are not run.
const FENCE_DOCS = [
  "SKILL.md",
  "README.md",
  ...readdirSync(path.join(REPO, "references")).filter((n) => n.endsWith(".md")).sort().map((n) => `references/${n}`),
  ...["agents", "install", "journal", "teammates"].map((n) => `docs/${n}.md`),
];
const FENCES = FENCE_DOCS.flatMap((file) => fencedBlocks(readDoc(file), "sh").map((body, i) => ({ file, index: i + 1, body })));

describe("sh fences run", () => {
  it("there are some, and no other shell-like fence language hides commands", () => {
    expect(FENCES.length).toBeGreaterThan(0);
    for (const file of FENCE_DOCS) expect(readDoc(file), file).not.toMatch(/^```(bash|shell|zsh)$/m);
  });

  it.each(FENCES.map((f) => [`${f.file} fence ${f.index}`, f] as const))("%s", async (_name, fence) => {
    for (const state of ["cold", "warm"] as const) {
      const root = scratch(state);
      // A fence holding a heredoc is one command (SKILL.md's save: `write … <<'EOF'`, the
      // document as `<handoff>`): run whole, with the token of the current file.
      const heredoc = /^(?!\s*#).*<<-?\s*'?[A-Za-z_]+'?\s*$/m.test(fence.body);
      if (heredoc) {
        const kind = (/ write (handoff|lessons|solutions) /.exec(fence.body)?.[1] ?? "handoff") as Kind;
        const script = fill(fence.body.replace(/^<handoff>$/m, () => EXAMPLES[kind].trimEnd()), root, await tokenOf(root, ["read", kind]));
        const r = await shell(script, root, "");
        expect(r.status, `${fence.file} (${state}): ${fence.body}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
        continue;
      }
      for (const line of fence.body.split("\n")) {
        if (line.trim() === "" || line.trim().startsWith("#")) continue;
        const annotated = /#\s*exit (\d+)\s*$/.exec(line);
        // A helper command without `# exit N` exits as its scenario says for this state
        // (`brief` and `read` exit 3 in a cold project: the cold start SKILL.md describes).
        const bare = line.trim().replace(/\s+#[^"']*$/, "");
        const planned = bare.startsWith(INVOCATION) ? await plan({ text: bare, where: `${fence.file} fence ${fence.index}`, words: bare.slice(INVOCATION.length).trim().split(/\s+/) }, state, root) : null;
        const expected = annotated ? Number(annotated[1]) : (planned?.expect ?? 0);
        planned?.prepare?.(root);
        const r = await shell(fill(line.replace(/\s+#[^"']*$/, ""), root, planned?.token, planned?.draft), root, "");
        expect(r.status, `${fence.file} (${state}): ${line}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(expected);
      }
    }
  });
});
