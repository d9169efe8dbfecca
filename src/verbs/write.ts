import { lstatSync } from "node:fs";
import path from "node:path";
import { agentOfEnv, recordSave as recordCloneSave, recordSavedBy, savedStampOf, statKey } from "../git/saves.ts";
import { HelperError, Refused, UsageError } from "../errors.ts";
import { draftShown, parseDraftName, removeDraft, takeDraft, type Draft, type Taken } from "../store/drafts.ts";
import { underLock } from "../store/mutate.ts";
import { archiveDir, archivePrefixOf, FILE_OF, memoryDir, parseKind } from "../store/paths.ts";
import { publish } from "../store/publish.ts";
import { readStable, tokenOf } from "../store/files.ts";
import { CAS, expectedTokenOption, failpointOf, lockTimeoutOption, rootOption, stdinForValidate } from "./common.ts";
import { ok, type Verb } from "./types.ts";
import { writeHelp } from "./write-help.ts";
import { buildDocument, checkDocument, type Built, type Checked } from "./write-checked.ts";
import { recordSave } from "../journal/record.ts";

/** `write <kind> --root DIR --expected-current-sha256 TOKEN` (docs/design.md#tokens-and-the-publication-protocol). */
export const writeVerb: Verb = {
  name: "write",
  options: { ...CAS, "from-draft": { type: "boolean" } },
  // The second is the draft `read` named, with --from-draft.
  positionals: [1, 2],
  get help() {
    return writeHelp();
  },
  async run(ctx) {
    const kind = parseKind(ctx.positionals[0]);
    const named = ctx.positionals[1];
    if (ctx.values["from-draft"] !== true) {
      if (named !== undefined) {
        throw new UsageError(`write takes a draft path only with --from-draft; got ${JSON.stringify(named.slice(0, 80))}`);
      }
      return save(ctx, kind, await stdinForValidate(ctx));
    }
    // The draft is read first and kept until a save takes it: a refusal leaves it to be fixed
    // and retried (docs/decisions/save-form.md); each read names its own (docs/decisions/drafts.md).
    const d: Draft = named === undefined ? { kind, id: null } : parseDraftName(kind, named);
    const root = rootOption(ctx);
    let draft: () => Buffer;
    let taken: Taken | null = null;
    try {
      taken = takeDraft(root, d);
      const bytes = taken.bytes;
      draft = () => bytes;
    } catch (err) {
      if (!(err instanceof HelperError)) throw err;
      // Its message says what became of the draft.
      draft = () => {
        throw err;
      };
    }
    try {
      const out = await save(ctx, kind, draft);
      if (taken !== null && out.code === 0) removeDraft(root, d, taken);
      return out;
    } catch (err) {
      if (taken !== null && err instanceof HelperError) {
        err.message += `\nthe draft ${draftShown(d)} was kept: fix it and run this again`;
      }
      throw err;
    }
  },
};

// One save, of the document stdin or the draft gave (`document` throws its refusal).
async function save(ctx: Parameters<Verb["run"]>[0], kind: ReturnType<typeof parseKind>, document: () => Buffer): ReturnType<Verb["run"]> {
  {
    const expected = expectedTokenOption(ctx);
    const lockTimeoutSeconds = lockTimeoutOption(ctx);
    const root = rootOption(ctx);
    const stdin = document;
    let checked: Checked | null = null;
    let built: Built | null = null;
    let journalNotes: string[] = [];
    const file = FILE_OF[kind];
    const anchors = { env: ctx.env, skillDir: ctx.skillDir ?? null };
    // Decoding, redaction, validation and the build run before the lock, so that a large
    // document never keeps other writers waiting; a refusal is raised in its turn, under it.
    let refusal: { error: unknown } | null = null;
    let prebuilt: Built | null = null;
    try {
      checked = checkDocument(stdin(), kind, root);
      prebuilt = await buildDocument(checked, root, anchors).catch(() => null);
    } catch (error) {
      refusal = { error };
    }
    const { result, repairs } = await underLock(
      {
        root,
        env: ctx.env,
        lockTimeoutSeconds,
        failpoint: failpointOf(ctx),
        validate: () => {
          if (refusal !== null) throw refusal.error;
        },
        // No memory dir: the file cannot exist, so only `absent` can be the current token.
        precheck: async () => {
          if (expected !== "absent") {
            throw new Refused(`${file} changed since it was read (expected ${expected}, current absent); read again and merge`);
          }
        },
      },
      async (lock) => {
        // Built from the version still current (a repair under the lock may have changed it);
        // otherwise built again here.
        const now = await readStable(path.join(memoryDir(root), file)).catch(() => undefined);
        const same = prebuilt !== null && now !== undefined && (now?.token ?? null) === (prebuilt.prior?.token ?? null);
        built = same && prebuilt !== null ? prebuilt : await buildDocument(checked!, root, anchors);
        // The same state again (docs/design.md#files-on-disk): keep the file, archive nothing, whatever the token.
        if (built.unchanged) return null;
        const readToken = built.prior?.token ?? "absent";
        const published = publish({
          dir: memoryDir(root),
          file,
          archiveDir: archiveDir(root),
          archivePrefix: archivePrefixOf(file),
          archivePrior: kind === "handoff",
          expectedToken: expected,
          newMode: 0o600,
          build: (prior) => {
            // What was built came from the version read above; another program's write since is a change.
            if ((prior === null ? "absent" : tokenOf(prior)) !== readToken) {
              throw new Refused(`${file} changed since it was read (another program wrote it); read again and merge`);
            }
            return built!.bytes;
          },
          failpoint: failpointOf(ctx),
          lock,
        });
        if (kind !== "handoff") return published;
        // Still under the lock: the journal is appended by the same writer that saved (docs/decisions/journal.md).
        const done = await published;
        journalNotes = await recordSave(root, { prior: built.prior?.bytes.toString("utf8") ?? null, next: done.bytes.toString("utf8"), token: done.token }, failpointOf(ctx));
        return done;
      },
    );
    const notes = (built as Built | null)?.notes ?? [];
    // This clone's record of its handoff saves (docs/design.md#verdicts-and-the-brief).
    if (kind === "handoff") {
      let key: string | null = null;
      try {
        key = statKey(lstatSync(path.join(memoryDir(root), file), { bigint: true }));
      } catch {
        // no stat: the hook hashes instead
      }
      const token = result === null ? (built as Built | null)!.prior!.token : result.token;
      const savedBytes = result === null ? (built as Built | null)!.prior!.bytes : result.bytes;
      recordCloneSave(root, token, key, savedStampOf(savedBytes.toString("utf8")));
      // Which agent saved it, for the brief of the next one (docs/context-threshold.md).
      if (result !== null) recordSavedBy(root, token, agentOfEnv(ctx.env));
    }
    if (result === null) {
      return ok(`unchanged ${file}\nCURRENT-SHA256: ${(built as Built | null)!.prior!.token}\n`, [...repairs, ...notes]);
    }
    const first = result.archived ? `saved ${file}; archived previous handoff as ${result.archived}` : `saved ${file}`;
    return ok(`${first}\nCURRENT-SHA256: ${result.token}\n`, [...repairs, ...notes, ...result.warnings, ...journalNotes]);
  }
}
