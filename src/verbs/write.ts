import { HelperError, Paused, UsageError } from "../errors.ts";
import { saveDocument } from "../save/save.ts";
import { draftShown, parseDraftName, removeDraft, takeDraft, type Draft, type Taken } from "../store/drafts.ts";
import { parseKind, type Kind } from "../store/paths.ts";
import { helperShown } from "../agents/target.ts";
import { CAS, expectedTokenOption, failpointOf, lockTimeoutOption, rootOption, ROOT_HELP,
  stdinForValidate } from "./common.ts";
import { ok, type Outcome, type Verb, type VerbContext } from "./types.ts";

/** `write <kind> --expected-current-sha256 TOKEN`: replace a memory file by compare-and-swap. */
export const writeVerb: Verb = {
  options: { ...CAS, "from-draft": { type: "boolean" } },
  // The second is the draft `read` named, with --from-draft.
  positionals: [1, 2],
  help: `usage: node memory_io.mjs write <handoff|lessons|solutions> [--root DIR]
         --expected-current-sha256 TOKEN [--lock-timeout SECONDS] < document
       node memory_io.mjs write <handoff|lessons|solutions> --from-draft DRAFT
         [--root DIR] --expected-current-sha256 TOKEN [--lock-timeout SECONDS]

Replaces <root>/.ai/memory/<FILE> with the whole document, only if the file is
still the version whose token you read (\`read\` prints CURRENT-SHA256; \`absent\`
when there was none). A handoff's prior version is archived first (the 5 newest
archives are kept, and every one git tracks). Secrets are redacted before
anything touches the disk; schema errors (\`validate --help\`) refuse the save.
A handoff's \`Saved:\` line is stamped and an empty \`## Environment anchors\`
section is filled with what \`anchors\` prints.

options:
  --expected-current-sha256 TOKEN  the token \`read\` printed, or \`absent\`
  --from-draft DRAFT  the document from DRAFT, the path on \`read\`'s DRAFT: line
                    (removed by a save, kept an hour by a refusal)
  --lock-timeout S  seconds to wait for the lock (default 10; 0 tries once)

stdout: "saved <FILE>[; archived previous handoff as <name>]" or "unchanged
        <FILE>", then "CURRENT-SHA256: <token>" as the last line.
stderr: redactions, notes, score and findings (lines of the saved file), and
        dropped open items and failed approaches.
Every case and its words: references/verbs/write.md.
${ROOT_HELP}
exit:   0 saved or unchanged;
        2 refused (stale token: read again and merge; schema errors; unsafe file
          or tree) or a usage error;
        4 paused (kill switch); 5 busy (the lock was not had within
          --lock-timeout).
`,
  async run(ctx) {
    const kind = parseKind(ctx.positionals[0]);
    const named = ctx.positionals[1];
    if (ctx.values["from-draft"] !== true) {
      if (named !== undefined) {
        const got = JSON.stringify(named.slice(0, 80));
        throw new UsageError(`write takes a draft path only with --from-draft; got ${got}`);
      }
      return save(ctx, kind, await stdinForValidate(ctx));
    }
    // The draft is kept until a save takes it: a refusal leaves it to be fixed and retried.
    const d: Draft = parseDraftName(kind, named);
    const root = rootOption(ctx);
    let taken: Taken | null = null;
    let failed: HelperError | null = null;
    try {
      taken = takeDraft(root, d);
    } catch (err) {
      // Its message says what became of the draft; raised in the refusal order, by `save`.
      if (!(err instanceof HelperError)) throw err;
      failed = err;
    }
    try {
      const out = await save(ctx, kind, () => {
        if (taken === null) throw failed;
        return taken.bytes;
      });
      if (taken !== null && out.code === 0) removeDraft(root, d, taken);
      return out;
    } catch (err) {
      if (taken !== null && err instanceof HelperError) {
        const stale = err.message.includes("changed since it was read");
        const merge = "read again, merge it into that version and save with its token";
        // Nothing in a draft is wrong when writes are paused: it waits for the switch, not for a fix.
        const fix = err instanceof Paused ? "run this again once writes resume" : "fix it and run this again";
        const todo = stale ? merge : fix;
        // It stays until a read or recover finds it untouched for an hour (docs/design.md#drafts).
        err.message += `\nthe draft ${draftShown(d)} was kept (for an hour after its last change): ${todo}`;
      }
      throw err;
    }
  },
};

// One save, of the document stdin or the draft gave (`document` throws its refusal).
async function save(ctx: VerbContext, kind: Kind, document: () => Buffer): Promise<Outcome> {
  const expected = expectedTokenOption(ctx);
  const lockTimeoutSeconds = lockTimeoutOption(ctx);
  const req = { root: rootOption(ctx), env: ctx.env, kind, document, expected, lockTimeoutSeconds };
  const helper = helperShown(ctx, req.root);
  const r = await saveDocument({ ...req, failpoint: failpointOf(ctx), skillDir: ctx.skillDir ?? null, helper });
  const first = r.archived ? `saved ${r.file}; archived previous handoff as ${r.archived}` : `saved ${r.file}`;
  return ok(`${r.unchanged ? `unchanged ${r.file}` : first}\nCURRENT-SHA256: ${r.token}\n`, r.notes);
}
