import path from "node:path";
import { agentOfEnv, recordSavedBy, recordSavedHere, savedStampOf } from "../git/saves.ts";
import { HelperError, Refused, UsageError } from "../errors.ts";
import { draftShown, parseDraftName, removeDraft, takeDraft, type Draft, type Taken } from "../store/drafts.ts";
import { underLock } from "../store/mutate.ts";
import { archiveDir, archivePrefixOf, FILE_OF, memoryDir, parseKind, type Kind } from "../store/paths.ts";
import { publish } from "../store/publish.ts";
import { readStable, tokenOf } from "../store/files.ts";
import { CAS, expectedTokenOption, failpointOf, lockTimeoutOption, rootOption, ROOT_HELP,
  stdinForValidate } from "./common.ts";
import { ok, type Outcome, type Verb, type VerbContext } from "./types.ts";
import { buildDocument, checkDocument, type Built, type Checked } from "../git/write-checked.ts";
import { recordSave } from "../journal/record.ts";

/** `write <kind> --expected-current-sha256 TOKEN`: replace a memory file by compare-and-swap. */
export const writeVerb: Verb = {
  name: "write",
  options: { ...CAS, "from-draft": { type: "boolean" } },
  // The second is the draft `read` named, with --from-draft.
  positionals: [1, 2],
  help: `usage: node memory_io.mjs write <handoff|lessons|solutions> [--root DIR]
         --expected-current-sha256 TOKEN [--lock-timeout SECONDS] < document
       node memory_io.mjs write <handoff|lessons|solutions> --from-draft DRAFT
         [--root DIR] --expected-current-sha256 TOKEN [--lock-timeout SECONDS]

Replaces <root>/.ai/memory/<FILE> with the whole document, only if the file is still the
version whose token you read (\`read\` prints CURRENT-SHA256; \`absent\` when there was none).
A handoff's prior version is archived first (the 5 newest archives are kept). Secrets are
redacted before anything touches the disk; schema errors (\`validate --help\`) refuse the
save. A handoff's \`Saved:\` line is stamped and an empty \`## Environment anchors\`
section is filled with what \`anchors\` prints.

options:
  --expected-current-sha256 TOKEN  the token \`read\` printed, or \`absent\`
  --from-draft DRAFT  the document from DRAFT, the path on \`read\`'s DRAFT: line
                    (removed by a save, kept by a refusal)
  --lock-timeout S  seconds to wait for the lock (default 10; 0 tries once)

stdout: "saved <FILE>[; archived previous handoff as <name>]" or "unchanged <FILE>",
        then "CURRENT-SHA256: <token>" as the last line.
stderr: redactions, notes, score and findings, and dropped open items.
Every case and its words: references/verbs.md#write.
${ROOT_HELP}
exit:   0 saved or unchanged;
        2 refused (stale token: read again and merge; schema errors; unsafe file
          or tree) or a usage error;
        4 paused (kill switch); 5 busy (the lock was not had within --lock-timeout).
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
        const todo = stale ? merge : "fix it and run this again";
        err.message += `\nthe draft ${draftShown(d)} was kept: ${todo}`;
      }
      throw err;
    }
  },
};

// One save, of the document stdin or the draft gave (`document` throws its refusal).
async function save(ctx: VerbContext, kind: Kind, document: () => Buffer): Promise<Outcome> {
  const expected = expectedTokenOption(ctx);
  const lockTimeoutSeconds = lockTimeoutOption(ctx);
  const root = rootOption(ctx);
  const file = FILE_OF[kind];
  const anchors = { env: ctx.env, skillDir: ctx.skillDir ?? null };
  // Decoding, redaction, validation and the build run before the lock, so that a large document
  // never keeps other writers waiting; a refusal is raised in its turn, under the lock.
  let checked: Checked | null = null;
  let refusal: { error: unknown } | null = null;
  let prebuilt: Built | null = null;
  try {
    checked = checkDocument(document(), kind, root);
    prebuilt = await buildDocument(checked, root, anchors).catch(() => null);
  } catch (error) {
    refusal = { error };
  }
  let built: Built | null = null;
  let journalNotes: string[] = [];
  const validate = () => {
    if (refusal !== null) throw refusal.error;
  };
  // No memory dir: the file cannot exist, so only `absent` can be the current token.
  const precheck = async () => {
    if (expected !== "absent") {
      const what = `expected ${expected}, current absent`;
      throw new Refused(`${file} changed since it was read (${what}); read again and merge`);
    }
  };
  const options = { root, env: ctx.env, lockTimeoutSeconds, failpoint: failpointOf(ctx), validate, precheck };
  const { result, repairs } = await underLock(options, async (lock) => {
    // Built again when a repair under the lock changed the current version.
    const now = await readStable(path.join(memoryDir(root), file)).catch(() => undefined);
    const same = prebuilt !== null && now !== undefined && (now?.token ?? null) === (prebuilt.prior?.token ?? null);
    const b = same ? prebuilt! : await buildDocument(checked!, root, anchors);
    built = b;
    // The same state again: keep the file, archive nothing, whatever the token.
    if (b.unchanged) return null;
    const readToken = b.prior?.token ?? "absent";
    // What was built came from the version read above; another program's write since is a change.
    const build = (prior: Buffer | null) => {
      if ((prior === null ? "absent" : tokenOf(prior)) !== readToken) {
        throw new Refused(`${file} changed since it was read (another program wrote it); read again and merge`);
      }
      return b.bytes;
    };
    const published = publish({
      dir: memoryDir(root), file, archiveDir: archiveDir(root), archivePrefix: archivePrefixOf(file),
      archivePrior: kind === "handoff", expectedToken: expected, newMode: 0o600, build, lock,
      failpoint: failpointOf(ctx),
    });
    if (kind !== "handoff") return published;
    // Still under the lock: the journal is appended by the same writer that saved.
    const done = await published;
    const prior = b.prior?.bytes.toString("utf8") ?? null;
    const entry = { prior, next: done.bytes.toString("utf8"), token: done.token };
    journalNotes = await recordSave(root, entry, failpointOf(ctx));
    return done;
  });
  const b = built as Built | null;
  const notes = b?.notes ?? [];
  const saved = result ?? b!.prior!;
  // This clone's record of its handoff saves, and which agent saved it, for the next brief.
  if (kind === "handoff") {
    recordSavedHere(root, ctx.env, saved.token, savedStampOf(saved.bytes.toString("utf8")));
    if (result !== null) recordSavedBy(root, ctx.env, saved.token, agentOfEnv(ctx.env));
  }
  if (result === null) return ok(`unchanged ${file}\nCURRENT-SHA256: ${saved.token}\n`, [...repairs, ...notes]);
  const first = result.archived ? `saved ${file}; archived previous handoff as ${result.archived}` : `saved ${file}`;
  return ok(`${first}\nCURRENT-SHA256: ${result.token}\n`, [...repairs, ...notes, ...result.warnings, ...journalNotes]);
}
