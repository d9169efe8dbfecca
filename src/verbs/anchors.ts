import { quotedPath } from "../schema/anchor-lines.ts";
import { collectAnchors } from "../git/anchors.ts";
import { anchorsWithoutTokens, withoutTokens } from "../guard/token-shape.ts";
import { renderAnchorLines } from "../schema/anchor-lines.ts";
import { rootOption, ROOT_HELP } from "./common.ts";
import { ok, type Verb } from "./types.ts";

/**
 * `anchors --root DIR [--key-file PATH]… [--json]` (docs/design.md#verdicts-and-the-brief): the `## Environment
 * anchors` lines for a save. Exit 0; 2 for a usage error or an unusable root. Outside git (or with git missing from
 * PATH, said on stderr) the lines are `- Date:` and `- Key file mtimes:`.
 */
export const anchorsVerb: Verb = {
  name: "anchors",
  options: { root: { type: "string" }, json: { type: "boolean" }, "key-file": { type: "string", multiple: true } },
  positionals: [0, 0],
  help: `usage: node memory_io.mjs anchors [--root DIR] [--key-file PATH]... [--json]

Prints the lines of the handoff's \`## Environment anchors\` section (without the heading),
ready to paste:
  - Branch: <name, or (detached)>
  - HEAD: <full 40/64-hex id>            (\`none (no commits yet)\` in a new repository)
  - Dirty files: <paths, comma-separated, or none>
  - Dirty hashes: <path> <blob id>, ...   (only with dirty files: git's blob id of each
                 file's raw bytes, no filters, 40 or 64 hex by the object format, as
                 \`git hash-object --no-filters\` gives it; \`deleted\`, or \`over 8 MB\`
                 instead of an id; at most 20 files, untracked folders left out; drift then
                 tells a dirty file edited since the save from one untouched)
  - Date: <now, ISO-8601 UTC with Z>
  - In progress: <operation>[ of <branch>] (<n> conflicted files)
                 only while git is in the middle of a rebase, merge, cherry-pick, revert
                 or bisect (read from the git dir's files, no extra process); the branch
                 is the one being rebased, so a HEAD detached by the rebase stays its own
Dirty files come from git status (-z): renames list the new path; a path holding a comma,
a quote, a backslash, a control character or a character \`write\` refuses (a bidi
control, a tag character, a stray joiner or selector, U+2028/U+2029) is written in double
quotes with C escapes, those characters as the octal escapes of their UTF-8 bytes, so
\`write\` accepts the line and \`drift\` reads the path back; other non-ASCII stays as is
(a branch name holding such a character is quoted the same way); the memory dir
.ai/memory/ is never listed, nor the running skill's own folder when it lies inside the
root; past 50 paths the line ends with \`… and N more\`.

Outside a git repository, or when git is not on PATH (said on stderr):
  - Date: <now>
  - Key file mtimes: <path> @ <ISO-8601 UTC, or missing>, ...   (with --key-file)
--key-file PATH (repeatable) names a file inside the root; it is only looked up, never
opened. Paths outside the root are skipped with a warning.

--json prints one object: {"insideGit", "branch", "head", "dirty", "date",
"keyFileMtimes": [{"path", "mtime"}], "gitNote", "markdown"}.

Runs one git process (status); takes no lock; writes nothing.

${ROOT_HELP}
exit: 0 printed
      2 usage error, or the root is missing or a link
`,
  async run(ctx) {
    const root = rootOption(ctx);
    const keyFiles = (ctx.values["key-file"] as string[] | undefined) ?? [];
    const a = await collectAnchors(root, ctx.env, Date.now(), keyFiles, { skillDir: ctx.skillDir ?? null, hashes: true });
    // A vendor token as a branch or file name is redacted even here (docs/decisions/redaction-prefixes.md).
    const markdown = anchorsWithoutTokens(renderAnchorLines(a));
    const stderr: string[] = [];
    if (a.gitNote !== null) stderr.push(`note: ${a.gitNote}`);
    for (const s of a.skippedKeyFiles) stderr.push(`warning: --key-file ${quotedPath(s.path)} skipped: ${s.reason}`);
    if (ctx.values.json === true) {
      const { skippedKeyFiles: _skipped, ...rest } = a;
      return ok(`${JSON.stringify({ ...rest, branch: rest.branch === null ? null : withoutTokens(rest.branch), dirty: rest.dirty.map(withoutTokens), markdown })}\n`, stderr);
    }
    return ok(markdown, stderr);
  },
};
