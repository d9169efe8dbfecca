import { collectAnchors } from "../git/anchors.ts";
import { anchorsWithoutTokens, withoutTokens } from "../guard/redact.ts";
import { quotedPath } from "../guard/quote.ts";
import { renderAnchorLines } from "../schema/anchor-lines.ts";
import { rootOption, ROOT_HELP } from "./common.ts";
import { ok, type Verb } from "./types.ts";

/** `anchors`: the `## Environment anchors` lines for a save. */
export const anchorsVerb: Verb = {
  options: { root: { type: "string" }, json: { type: "boolean" }, "key-file": { type: "string", multiple: true } },
  help: `usage: node memory_io.mjs anchors [--root DIR] [--key-file PATH]... [--json]

Prints the lines of the handoff's \`## Environment anchors\` section (without the
heading), ready to paste:
  - Branch: <name, or (detached)>
  - HEAD: <full 40/64-hex id>            (\`none (no commits yet)\` in a new
    repository)
  - Dirty files: <paths, comma-separated, or none>
  - Dirty hashes: <path> <blob id>, ...   (only with dirty files)
  - Dirty modes: <path> <mode>, ...   (only for a mode other than HEAD's)
  - Date: <now, ISO-8601 UTC with Z>
  - In progress: <operation>[ of <branch>] (<n> conflicted files)
                 (only while git is in the middle of a rebase, merge, …)
Outside a git repository, or when git is not on PATH (said on stderr), the Date
and, with --key-file, \`- Key file mtimes: <path> @ <time, or missing>, ...\`.
The memory dir and the running skill's own folder are never listed; each
untracked file is, but a new folder of more than 20 files is one entry \`dir/\`.
Runs one git process, one more past 20 dirty paths (to find new folders), one
more to hash dirty files (two with CRLF or filtered files); writes nothing.
How each line is made: references/verbs/anchors.md.

options:
  --key-file PATH  a file inside the root whose time to record (repeatable)
  --json      print {"insideGit", "branch", "head", "dirty", "date",
              "keyFileMtimes", "gitNote", "markdown"}
${ROOT_HELP}
exit: 0 printed
      2 usage error, or the root is missing or a link
`,
  async run(ctx) {
    const root = rootOption(ctx);
    const keyFiles = (ctx.values["key-file"] as string[] | undefined) ?? [];
    const a = await collectAnchors(root, ctx.env, Date.now(), keyFiles, ctx.skillDir ?? null);
    // A vendor token as a branch or file name is redacted even here (docs/decisions/redaction-prefixes.md).
    const markdown = anchorsWithoutTokens(renderAnchorLines(a));
    const stderr: string[] = [];
    if (a.gitNote !== null) stderr.push(`note: ${a.gitNote}`);
    for (const s of a.skippedKeyFiles) stderr.push(`warning: --key-file ${quotedPath(s.path)} skipped: ${s.reason}`);
    if (ctx.values.json === true) {
      const { skippedKeyFiles: _skipped, ...rest } = a;
      const branch = rest.branch === null ? null : withoutTokens(rest.branch);
      return ok(`${JSON.stringify({ ...rest, branch, dirty: rest.dirty.map(withoutTokens), markdown })}\n`, stderr);
    }
    return ok(markdown, stderr);
  },
};
