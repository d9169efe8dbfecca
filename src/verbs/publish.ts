import { HelperError, Refused } from "../errors.ts";
import { redactText } from "../guard/redact.ts";
import { mergeDriverStep } from "../git/merge-driver-config.ts";
import { publishMemory, publishTarget, pushTarget, savedHeadOffBranch } from "../git/publish-memory.ts";
import { namesList } from "../guard/words.ts";
import { helperLocation } from "../agents/target.ts";
import { checkTree, memoryDir } from "../store/paths.ts";
import { assertNotPaused } from "../store/pause.ts";
import { failpointOf, lockTimeoutOption, ROOT_HELP, rootOption } from "./common.ts";
import { underLock } from "../store/repair.ts";
import { ok, type Verb } from "./types.ts";

const ATTRIBUTES_COMMITTED = "committed .gitattributes with the merge driver's block (every clone then merges " +
  "memory with it once it runs install or publish)";

/** publish's line for the repository's hooks and signing it did not run (docs/decisions/git-runs-nothing.md). */
function skippedLine(skipped: { hooks: string[]; signing: boolean } | undefined): string | null {
  const parts = skipped?.hooks.length ? [`hooks (${skipped.hooks.join(", ")})`] : [];
  if (skipped?.signing) parts.push("commit signing");
  if (parts.length === 0) return null;
  return `ran none of the repository's ${parts.join(" nor its ")}: pass --run-hooks to run them`;
}

// Without --push it is committed all the same (its words still hold); --push is refused first, as a push cannot be
// taken back (docs/decisions/publish-rewritten-save.md).
const offBranch = (head: string) => `the handoff on this branch was saved at ${head.slice(0, 12)}, which is not in ` +
  "this branch's history (a rebase or amend since the save?), so a teammate who pulls it gets no commit to check it " +
  "against and their brief says unverifiable";
const offBranchWarning = (head: string) =>
  `warning: ${offBranch(head)}: save the handoff again (\`read handoff\`, then \`write handoff\`) and publish again`;
const offBranchRefusal = (head: string) => `${offBranch(head)}; nothing was committed nor pushed: save the handoff ` +
  "again on this HEAD (`read handoff`, then `write handoff`) and publish --push again, or, to share it as it is, " +
  "publish without --push and push with `git push` yourself";

const DEFAULT_MESSAGE = "session-handoff: publish session memory";

export const publishVerb: Verb = {
  options: {
    root: { type: "string" }, push: { type: "boolean" }, message: { type: "string" }, json: { type: "boolean" },
    "run-hooks": { type: "boolean" }, "lock-timeout": { type: "string" },
  },
  help: `usage: node memory_io.mjs publish [--root DIR] [--push] [--message M]
       [--run-hooks] [--lock-timeout S] [--json]

Commits exactly the memory dir's public files -- HANDOFF.md, LESSONS.md,
SOLUTIONS.md, archive/ and journal/ (unless journal/OFF exists) -- and nothing
else: whatever else is staged stays out of the commit. Never private files,
PAUSE, nor checkpoints/ (they quote the user's words). Run it only on the user's
explicit request. Each run also registers the merge driver for this clone
(\`merge-driver --help\`) and commits .gitattributes when it changed our block
(HEAD's file plus the block, never your own uncommitted lines). Every line it
prints: references/verbs/publish.md.

options:
  --message M       the commit message, one line without a secret (default
                    "${DEFAULT_MESSAGE}")
  --push            then push HEAD to the current branch's upstream, and only
                    there; refused first when the handoff was saved on a
                    commit this branch's history lacks (a rebase or amend)
  --run-hooks       run the repository's git hooks and signing program; without
                    it none runs, and publish says which it skipped; what a
                    hook stages outside memory stays staged, uncommitted, and a
                    secret a hook adds to memory refuses the publish
  --lock-timeout S  seconds to wait for the memory lock (default 10): publish
                    commits only between saves, after repairing an interrupted
                    one
  --root DIR        the project root

stdout: "published <n> file(s) in <commit>" [and "pushed to <remote> <branch>"],
        or "nothing to publish" (with --push, HEAD is pushed all the same);
        lines on the merge driver and skipped hooks.
${ROOT_HELP}
exit:   0 published, or nothing to publish; 2 refused (not a git repository, a
        detached HEAD, the memory dir is git-ignored or holds no memory file:
        "nothing to publish: ...", no upstream for --push, --push with a
        handoff saved on a commit off this branch, a secret in --message or
        in a memory file, a memory file that is a link, hard-linked or not
        UTF-8 text (UTF-16, a NUL), HEAD
        moved by a commit made meanwhile (naming what it holds) or held by
        another git command, git failed: its error follows); also 2 when the
        push failed: a commit made stays, and stderr
        has git's words and the next commands (\`git pull --no-rebase\`, then
        \`git push\`), without the refusal's first words;
        4 paused; 5 busy.
`,
  async run(ctx) {
    const root = rootOption(ctx);
    const message = typeof ctx.values.message === "string" ? ctx.values.message : DEFAULT_MESSAGE;
    if (message.trim() === "" || /[\0-\x1f\x7f]/.test(message)) {
      throw new Refused("--message must be one non-empty line of text");
    }
    // A commit message is pushed and kept forever: a secret in it is refused, never rewritten; its kind is named.
    const kinds = [...new Set(redactText(message).findings.map((f) => f.kind))];
    if (kinds.length > 0) {
      throw new Refused(`--message holds a secret (${kinds.join(", ")}); write the message without it and retry`);
    }
    const memDir = memoryDir(root);
    const lockTimeoutSeconds = lockTimeoutOption(ctx);
    assertNotPaused(memDir, ctx.env);
    // Refusals that need no driver come first: a refusal changes nothing on disk (CONTRIBUTING.md).
    const target = await publishTarget(root, memDir, ctx.env);
    const push = ctx.values.push === true;
    if (push) await pushTarget(target.top, ctx.env, ctx.values["run-hooks"] === true);
    const off = await savedHeadOffBranch(target, ctx.env);
    if (push && off !== null) throw new Refused(offBranchRefusal(off));
    // Registered once publish's checks of the memory files passed: a refusal changes nothing on disk.
    let driver = { lines: [] as string[], notes: [] as string[], attributes: false };
    const register = async () => {
      driver = await mergeDriverStep(root, { helperPath: helperLocation(ctx, root).abs }, ctx.env);
      return driver.attributes;
    };
    let r: Awaited<ReturnType<typeof publishMemory>>;
    let repairs: string[] = [];
    const hooks = ctx.values["run-hooks"] === true;
    const commit = () => publishMemory(target, memDir, message, push, ctx.env, register, hooks, failpointOf(ctx));
    try {
      // Under the lock, so that a file a save claimed is never committed as deleted (docs/design.md#publish).
      const lock = { root, env: ctx.env, lockTimeoutSeconds, failpoint: failpointOf(ctx) };
      if (checkTree(root)) ({ result: r, repairs } = await underLock(lock, commit));
      else r = await commit();
    } catch (err) {
      // The driver's registration stays done whatever git then refuses: said before the refusal.
      if (err instanceof HelperError) err.before.push(...driver.lines, ...driver.notes);
      throw err;
    }
    const notes = [...repairs, ...driver.notes];
    if (off !== null) notes.push(offBranchWarning(off));
    // A merge keeps the commit the handoff was saved on in this branch's history; a rebase would rewrite it.
    const next = "next: `git pull --no-rebase`, then `git push`";
    if (r.pushFailed) notes.push(`${r.pushFailed}\n${r.committed ? "the commit stays; " : ""}${next}`);
    const code = r.pushFailed ? 2 : 0;
    if (ctx.values.json) return ok(`${JSON.stringify({ ...r, mergeDriver: driver.lines })}\n`, notes, code);
    const pushedLine = r.pushed ? [`pushed to ${r.pushed}`] : [];
    const skipped = skippedLine(r.skipped);
    if (!r.committed) {
      const said = [...driver.lines, "nothing to publish", ...(skipped ? [skipped] : []), ...pushedLine];
      return ok(`${said.join("\n")}\n`, notes, code);
    }
    const lines = [...driver.lines, `published ${r.paths.length} file(s) in ${r.commit!.slice(0, 12)}`];
    if (r.attributes) lines.push(ATTRIBUTES_COMMITTED);
    // publish commits only memory: what a hook staged elsewhere is the user's to commit (docs/design.md#publish).
    const left = r.leftStaged ?? [];
    if (left.length) lines.push(`a hook staged ${namesList(left)} outside the memory dir: left staged, not committed`);
    if (skipped) lines.push(skipped);
    return ok(`${[...lines, ...pushedLine].join("\n")}\n`, notes, code);
  },
};
