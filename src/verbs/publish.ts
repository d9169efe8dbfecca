import { HelperError, Refused } from "../errors.ts";
import { redactText } from "../guard/redaction.ts";
import { mergeDriverStep } from "../git/merge-driver-config.ts";
import { publishMemory, publishTarget } from "../git/publish-memory.ts";
import { helperLocation } from "./agent-files.ts";
import { memoryDir } from "../store/paths.ts";
import { assertNotPaused } from "../store/pause.ts";
import { ROOT_HELP, rootOption } from "./common.ts";
import { ok, type Verb } from "./types.ts";

/** The commit message when none is given. */
/** publish's line when it committed the attributes block too (docs/design.md#the-merge-driver). */
const ATTRIBUTES_COMMITTED = "committed .gitattributes with the merge driver's block (every clone then merges memory with it once it runs install or publish)";

export const DEFAULT_MESSAGE = "session-handoff: publish session memory";

/** `publish [--root DIR] [--push] [--message M] [--json]` (docs/design.md#integrations). */
export const publishVerb: Verb = {
  name: "publish",
  options: { root: { type: "string" }, push: { type: "boolean" }, message: { type: "string" }, json: { type: "boolean" } },
  positionals: [0, 0],
  help: `usage: node memory_io.mjs publish [--root DIR] [--push] [--message M] [--json]

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
git runs without a terminal prompt (GIT_TERMINAL_PROMPT=0); its own error is shown.

Each run also registers the merge driver session-handoff for this clone (see
\`merge-driver --help\`): a [merge "session-handoff"] section in .git/config, a block of ours in
the root .gitattributes, the driver's copy of the helper under
\${XDG_CONFIG_HOME:-~/.config}/session-handoff/driver/; unchanged ones are left as they are.
It commits .gitattributes too when this run created or changed our block, or when the file
holds our block and nothing else.

stdout: "registered the merge driver session-handoff in .git/config" and "added the merge
        driver's block to .gitattributes" when they changed; "published <n> file(s) in
        <commit>" [then "${ATTRIBUTES_COMMITTED}"]
        [and "pushed to <remote> <branch>"], or "nothing to publish".
stderr: when the merge driver could not be registered, the publish goes on and says why:
        "the merge driver was not registered: HOME is not set, so its copy of the helper
        has no place", "the merge driver was not registered: its copy of the helper could
        not be written (<why>)", ".gitattributes was not changed: <why>".
${ROOT_HELP}
exit:   0 published, or nothing to publish; 2 refused (not a git repository, the memory
        dir is git-ignored, no upstream for --push, a secret in --message, git failed: its
        error follows; what the merge driver's step did or could not do is said on
        stderr first, since it stays done);
        4 paused.
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
    assertNotPaused(memDir, ctx.env);
    // Refusals that need no driver come first: a refusal changes nothing on disk (CONTRIBUTING.md).
    const target = await publishTarget(root, memDir, ctx.env);
    const driver = await mergeDriverStep(root, { helperPath: helperLocation(ctx, root).abs }, ctx.env);
    let r: Awaited<ReturnType<typeof publishMemory>>;
    try {
      r = await publishMemory(root, memDir, message, ctx.values.push === true, ctx.env, driver.change?.attributes ? "changed" : "if-only-ours", target);
    } catch (err) {
      // The driver's registration stays done whatever git then refuses: say so before the
      // refusal, as write says what it recovered (HelperError.before, docs/design.md#the-merge-driver).
      if (err instanceof HelperError) err.before.push(...driver.lines, ...driver.notes);
      throw err;
    }
    if (ctx.values.json) return ok(`${JSON.stringify({ ...r, mergeDriver: driver.lines })}\n`, driver.notes);
    if (!r.committed) return ok(`${[...driver.lines, "nothing to publish"].join("\n")}\n`, driver.notes);
    const lines = [...driver.lines, `published ${r.paths.length} file(s) in ${r.commit!.slice(0, 12)}`];
    if (r.attributes) lines.push(ATTRIBUTES_COMMITTED);
    if (r.pushed) lines.push(`pushed to ${r.pushed}`);
    return ok(`${lines.join("\n")}\n`, driver.notes);
  },
};
