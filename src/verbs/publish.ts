import { HelperError, Refused } from "../errors.ts";
import { redactText } from "../guard/redaction.ts";
import { mergeDriverStep } from "../git/merge-driver-config.ts";
import { publishMemory, publishTarget } from "../git/publish-memory.ts";
import { helperLocation } from "./agent-files.ts";
import { checkTree, memoryDir } from "../store/paths.ts";
import { assertNotPaused } from "../store/pause.ts";
import { failpointOf, lockTimeoutOption, ROOT_HELP, rootOption } from "./common.ts";
import { underLock } from "../store/mutate.ts";
import { ok, type Verb } from "./types.ts";

/** The commit message when none is given. */
/** publish's line when it committed the attributes block too (docs/design.md#the-merge-driver). */
const ATTRIBUTES_COMMITTED = "committed .gitattributes with the merge driver's block (every clone then merges memory with it once it runs install or publish)";

/** The start of publish's line naming what the repository names that it did not run. */
export const SKIPPED_HEAD = "ran none of the repository's ";

/** publish's line for what it skipped, or null when nothing was (docs/decisions/git-runs-nothing.md). */
export function skippedLine(skipped: { hooks: string[]; signing: boolean } | undefined): string | null {
  if (!skipped || (skipped.hooks.length === 0 && !skipped.signing)) return null;
  const parts = [...(skipped.hooks.length > 0 ? [`hooks (${skipped.hooks.join(", ")})`] : []), ...(skipped.signing ? ["commit signing"] : [])];
  return `${SKIPPED_HEAD}${parts.join(" nor its ")}: pass --run-hooks to run them`;
}

export const DEFAULT_MESSAGE = "session-handoff: publish session memory";

/** `publish [--root DIR] [--push] [--message M] [--json]` (docs/design.md#integrations). */
export const publishVerb: Verb = {
  name: "publish",
  options: {
    root: { type: "string" },
    push: { type: "boolean" },
    message: { type: "string" },
    json: { type: "boolean" },
    "run-hooks": { type: "boolean" },
    "lock-timeout": { type: "string" },
  },
  positionals: [0, 0],
  help: `usage: node memory_io.mjs publish [--root DIR] [--push] [--message M] [--run-hooks] [--lock-timeout S] [--json]

Commits exactly the memory dir's public files -- HANDOFF.md, LESSONS.md, SOLUTIONS.md and
archive/ (deletions of pruned archives included) -- and nothing else: whatever else is
staged stays staged and out of the commit. Never private files, PAUSE, nor checkpoints/
(they quote the user's words). Run it only on the user's explicit request.

--message M   the commit message, one line (default "${DEFAULT_MESSAGE}"); a message
              holding a secret (the rules of \`redact\`) is refused, naming its kind:
              "--message holds a secret (<kinds>); write the message without it and
              retry"; one with a line break or a control character: "--message must be
              one non-empty line of text"
--push        then push HEAD to the current branch's upstream, and only there
--run-hooks   run the repository's git hooks and sign the commit as its config says;
              without it no hook and no signing program runs, and publish says which
              it skipped
--lock-timeout S  seconds to wait for the memory lock (default 10): publish commits
              only between saves, after repairing an interrupted one
git runs without a terminal prompt (GIT_TERMINAL_PROMPT=0) and runs no filter, hook,
fsmonitor or signing program the repository names; its own error is shown.

Each run also registers the merge driver session-handoff for this clone (see
\`merge-driver --help\`): a [merge "session-handoff"] section in .git/config, a block of ours in
the root .gitattributes, the driver's copy of the helper under
\${XDG_CONFIG_HOME:-~/.config}/session-handoff/driver/; unchanged ones are left as they are.
It commits .gitattributes too when this run created or changed our block, or when the file
holds our block and nothing else.

stdout: "registered the merge driver session-handoff in .git/config" and "added the merge
        driver's block to .gitattributes" when they changed; "published <n> file(s) in
        <commit>" [then "${ATTRIBUTES_COMMITTED}"]
        [then "${SKIPPED_HEAD}<hooks> and commit signing; pass --run-hooks to run them"]
        [and "pushed to <remote> <branch>"], or "nothing to publish".
stderr: "recovered: <what>" for an interrupted save repaired first;
        when the merge driver could not be registered, the publish goes on and says why:
        "the merge driver was not registered: HOME is not set, so its copy of the helper
        has no place", "the merge driver was not registered: its copy of the helper could
        not be written (<why>)", ".gitattributes was not changed: <why>".
${ROOT_HELP}
exit:   0 published, or nothing to publish; 2 refused (not a git repository, the memory
        dir is git-ignored, no upstream for --push, a secret in --message, git failed: its
        error follows; what the merge driver's step did or could not do is said on
        stderr first, since it stays done);
        4 paused; 5 busy (another save held the memory lock past --lock-timeout).
`,
  async run(ctx) {
    const root = rootOption(ctx);
    const message = typeof ctx.values.message === "string" ? ctx.values.message : DEFAULT_MESSAGE;
    if (message.trim() === "" || /[\0-\x1f\x7f]/.test(message)) throw new Refused("--message must be one non-empty line of text");
    // A commit message is pushed and kept forever: a secret in it is refused, never rewritten
    // behind the user's back (docs/decisions/redaction-prefixes.md). The kind is named, never the value.
    const secrets = redactText(message).findings;
    if (secrets.length > 0) {
      throw new Refused(`--message holds a secret (${[...new Set(secrets.map((f) => f.kind))].join(", ")}); write the message without it and retry`);
    }
    const memDir = memoryDir(root);
    const lockTimeoutSeconds = lockTimeoutOption(ctx);
    assertNotPaused(memDir, ctx.env);
    // Refusals that need no driver come first: a refusal changes nothing on disk (CONTRIBUTING.md).
    const target = await publishTarget(root, memDir, ctx.env);
    const driver = await mergeDriverStep(root, { helperPath: helperLocation(ctx, root).abs }, ctx.env);
    let r: Awaited<ReturnType<typeof publishMemory>>;
    let repairs: string[] = [];
    const commit = () =>
      publishMemory(root, memDir, message, ctx.values.push === true, ctx.env, driver.change?.attributes ? "changed" : "if-only-ours", target, ctx.values["run-hooks"] === true);
    try {
      // A memory writer: between saves only, after repairing an interrupted one, so that a
      // claimed (renamed) file is never committed as deleted (docs/design.md#publish).
      if (checkTree(root)) ({ result: r, repairs } = await underLock({ root, env: ctx.env, lockTimeoutSeconds, failpoint: failpointOf(ctx) }, commit));
      else r = await commit();
    } catch (err) {
      // The driver's registration stays done whatever git then refuses: say so before the
      // refusal, as write says what it recovered (HelperError.before, docs/design.md#the-merge-driver).
      if (err instanceof HelperError) err.before.push(...driver.lines, ...driver.notes);
      throw err;
    }
    const notes = [...repairs, ...driver.notes];
    if (ctx.values.json) return ok(`${JSON.stringify({ ...r, mergeDriver: driver.lines })}\n`, notes);
    if (!r.committed) return ok(`${[...driver.lines, "nothing to publish"].join("\n")}\n`, notes);
    const lines = [...driver.lines, `published ${r.paths.length} file(s) in ${r.commit!.slice(0, 12)}`];
    if (r.attributes) lines.push(ATTRIBUTES_COMMITTED);
    const skipped = skippedLine(r.skipped);
    if (skipped) lines.push(skipped);
    if (r.pushed) lines.push(`pushed to ${r.pushed}`);
    return ok(`${lines.join("\n")}\n`, notes);
  },
};
