import { Refused } from "../errors.ts";
import { redactText } from "../guard/redaction.cold.ts";
import { publishMemory } from "../git/publish-memory.ts";
import { memoryDir } from "../store/paths.ts";
import { assertNotPaused } from "../store/pause.ts";
import { ROOT_HELP, rootOption } from "./common.ts";
import { ok, type Verb } from "./types.ts";

/** The commit message when none is given. */
export const DEFAULT_MESSAGE = "session-handoff: publish session memory";

/** `publish [--root DIR] [--push] [--message M] [--json]` (contract §5, ruling 25). */
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
              holding a secret (the rules of \`redact\`) is refused, naming its kind
--push        then push HEAD to the current branch's upstream, and only there
git runs without a terminal prompt (GIT_TERMINAL_PROMPT=0); its own error is shown.

stdout: "published <n> file(s) in <commit>" [and "pushed to <remote> <branch>"], or
        "nothing to publish".
${ROOT_HELP}
exit:   0 published, or nothing to publish; 2 refused (not a git repository, the memory
        dir is git-ignored, no upstream for --push, a secret in --message, git failed: its
        error follows);
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
    const r = await publishMemory(root, memDir, message, ctx.values.push === true, ctx.env);
    if (ctx.values.json) return ok(`${JSON.stringify(r)}\n`);
    if (!r.committed) return ok("nothing to publish\n");
    const lines = [`published ${r.paths.length} file(s) in ${r.commit!.slice(0, 12)}`];
    if (r.pushed) lines.push(`pushed to ${r.pushed}`);
    return ok(`${lines.join("\n")}\n`);
  },
};
