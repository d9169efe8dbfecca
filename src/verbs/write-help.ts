// `write --help`: a chunk of its own (src/cold/, build.mjs), compiled only when the help is read.
import { ROOT_HELP } from "./common.ts";

/** The text of `write --help` (docs/decisions/save-form.md). */
export function writeHelp(): string {
  return `usage: node memory_io.mjs write <handoff|lessons|solutions> [--root DIR]
         --expected-current-sha256 TOKEN [--lock-timeout SECONDS] < document
       node memory_io.mjs write <handoff|lessons|solutions> --from-draft [--root DIR]
         --expected-current-sha256 TOKEN [--lock-timeout SECONDS]

Replaces <root>/.ai/memory/<FILE> with the document on stdin, only if the file is still
the version whose token you read (\`read\` prints CURRENT-SHA256; use \`absent\` when there
was none). A handoff's prior version is archived first as
archive/HANDOFF-<UTC time>-<seq>-<8 hex>.md, <seq> one more than the largest there;
the 5 newest archives (by <seq>, not by the clock) are kept.

--from-draft takes the document from <root>/.ai/memory/drafts/<kind>.md instead of stdin
(stdin is not read): the agent writes the whole document there with its own file tool, so
no shell ever sees it (a shell policy may refuse backticks, even in a quoted heredoc). The
draft must be a regular file with one link, not reached through a link, at most 1,000,000
bytes; one readable by others is made 0600 first. It is then redacted, checked and
published exactly as stdin would be, and removed after a save (or "unchanged"); a refusal
keeps it and ends with "the draft .ai/memory/drafts/<kind>.md was kept: fix it and run this
again"; a link, FIFO or hard-linked file there is removed unread, a directory is left.
drafts/ is never published: publish does not commit it, and the write creates
drafts/.gitignore (ignoring everything there, itself included) when there is none;
\`recover\` removes a draft left behind.

The document must be UTF-8 without NUL bytes, at most 1,000,000 bytes, begin with the line
<!-- memory-schema: v1 -->, have its heading (# Session Handoff, # Lessons, # Solutions) in
its first four lines, and end with a newline. Reading stdin stops past 1,000,000 bytes:
"stdin is more than 1,000,000 bytes" (exit 2). CRLF becomes LF and a leading BOM is dropped
(said on stderr). Invisible and control characters are refused with their line, column
and code point: bidi embeddings, overrides and isolates; zero-width spaces; tag characters
(except in the England, Scotland and Wales flags); a variation selector after anything but
an emoji or keycap, a base Unicode standardizes it for, or (ideographic ones) a CJK
ideograph, so runs of them too; controls but TAB and LF; U+2028, U+2029. Living scripts
pass: U+200C/U+200D between letters or marks (Persian, Indic, Sinhala, …), U+200D inside
emoji sequences, U+200E/U+200F/U+061C on a line holding a right-to-left letter. Secrets are redacted before anything
touches the disk (see \`--help redact\`); stderr names each kind and line, never a value.
Open items of the previous handoff (unfinished plan steps, next steps) that the new one
neither carries over nor marks done (\`- [x]\`, or \`- [-] <step> — dropped: <why>\`) are named
on stderr, so they are not lost silently (quoted as data: secrets redacted, controls and
refused characters shown as <U+XXXX>, each cut at 100 characters).

The document is checked against its schema (\`validate --help\`); its errors refuse the save
and change nothing:
  memory operation refused: HANDOFF.md has N schema error(s)
  line L: <rule>: <message>                    (one line per error)
A heading that resembles a missing section names it ("did you mean \`## Failed approaches\`?").
Ledgers are refused only for the file-format errors above and malformed entry headings. After a save, stderr
gives "score: N/100 (<part> a/b, …)" and "finding: line L: <rule>: <message>" lines (at
most 20); findings never refuse.

A handoff is stamped and completed before it is checked: its \`Saved:\` line is set to the
time of the write (inserted after the title when missing; stderr notes an old value that was
more than 5 minutes off), and an empty \`## Environment anchors\` section (blank, \`- none\` or
template placeholders, or the very lines of the current handoff) is filled with what
\`anchors\` prints at that moment, inside the lock (git runs only then; outside git, the key
files' modification times). Anchor lines you wrote are kept (stderr notes a \`- Date:\` more
than 5 minutes old; a \`- Date:\` later than the save, by any amount, becomes the save's time,
and stderr says so) and redacted like prose unless they are what \`anchors\` reports now.

A document equal to the current file, apart from \`Saved:\` and a \`- Date:\` anchor that write
filled itself, is not saved again: stdout is "unchanged <FILE>" then "CURRENT-SHA256: <current
token>", exit 0, whatever token was given; nothing is archived.

stdout: "saved HANDOFF.md; archived previous handoff as <name>" (or "saved <FILE>", or
        "unchanged <FILE>"), then "CURRENT-SHA256: <token of what was saved>" as the last line.
stderr, as they apply, in these words:
  redacted N secret(s): <KIND> (line L), …
  note: Saved: "<value>" is not a time; stamped <time>
  note: Saved: "<value>" was N minutes off; stamped <time>
  note: anchors filled outside git: <why>
  note: the - Date: anchor "<value>" was later than this save; set it to <time>
  note: the - Date: anchor is N minutes before this save; empty the anchors section to
    have write fill them
  score: N/100 (<part> a/b, …), then finding: lines, and past 20 of them
    "finding: … and more; run \`validate\` for the full list"
  journal: not appended: <why>   (the handoff is saved all the same)
  journal: the fold of an old month did not finish: <why>; the next save tries again
  note: this session ran \`<command>\`, listed as a failed approach of the handoff it
    resumed (measured by its checkpoint); say why it was retried in the new handoff
A file another program created during a save whose token was \`absent\` is kept: "<FILE> was
written by another program during this save; that version was kept as current[ and the
prior version is in archive/<name>]; read again and merge" (exit 2).
A save that fails after it set the previous version aside (a full disk, an I/O error) puts
it back: "cannot save <FILE>: <why>; nothing was changed"; when it cannot, it says so
instead: "…; <FILE> is kept at a private name until \`recover\` puts it back: run
\`recover\`" (exit 2, and \`check\` says 1).
A document over the limit, also after redaction, is refused: "the document is N bytes
(M after redaction); memory documents are at most 1000000 bytes (shorten it)".
A save that an earlier one left interrupted is repaired first, under the lock; stderr says
so ("recovered: …"), also when this write is then refused.
Other refusals, in these words (stderr "memory operation refused: <reason>"):
  <FILE> changed since it was read (expected <token>, current absent); read
    again and merge
  <FILE> changed since it was read (another program wrote it); read again and
    merge
  line L: conflicted: unresolved merge conflict markers (<<<<<<<, =======,
    >>>>>>>) from a merge: keep one side (archive the other), then save it whole
  lost the memory lock to another process before publishing; nothing was
    published: read again and retry
  <what>: <who> holds the lock <path>; wait and retry, or pass a longer
    --lock-timeout
  <path> is a link; it is the helper's private lock: move it away and retry
  <path> has more than one hard link; the helper only uses regular files with
    one link (move it away and retry)   (likewise "is not a regular file", "is
    larger than 1000000 bytes")
  <path> is a link to "<target>"; the helper only uses regular files with one
    link (replace the link with a copy of the file it points to, or move it
    away, and retry)
  <dir> is a link or not a directory; memory must live in real directories
    under the root (move it away)
  <dir> is a link; memory must live in real directories under the root (move
    the link away)
  <dir> is not a directory; move it away so the memory tree can be used
  unknown kind "<kind>": use handoff, lessons or solutions
  memory writes are paused: remove <switch> to resume   (exit 4)
  --expected-current-sha256 TOKEN is required: pass the CURRENT-SHA256 token
    from \`read\` (or \`absent\`)
  --expected-current-sha256 must be \`absent\` or 64 lowercase hex characters,
    got "<value>"
  --lock-timeout takes seconds as a decimal number ≥ 0, got "<value>"
  root <path> does not exist; pass the project root with --root
  root <path> is not a directory; pass the project root with --root
  --root needs a folder: pass --root <project>, or leave it out to start from
    the current folder
--from-draft's own refusals (<draft>: .ai/memory/drafts/<kind>.md, from the project root;
<again>: "write the whole document there with your file tool, then run this again"):
  no draft at <draft>: <again>
  <draft> is a directory, not a draft; move it away, then <again>
  <draft> is a link; it was removed unread: <again>
    (or "is not a regular file")
  <draft> cannot be read (<code>); it was removed: <again>
  <draft> was replaced while it was read; <again>
  <draft> is hard-linked elsewhere; it was removed unread: <again>
  the draft <draft> is N bytes; memory documents are at most 1000000 bytes
    (shorten it)
  the draft <draft> grew past 1000000 bytes while it was read
  <folder> is a link or not a directory, so <draft> was neither read nor
    removed; move it away, then write the draft again (<folder>: .ai, .ai/memory or
    .ai/memory/drafts)
  cannot remove the draft <draft>: <why>
${ROOT_HELP}Where the walk stops, stderr says: "stopped looking for the project root at <folder>
(<why>); using <root>: pass --root <project> to choose another".

exit:   0 saved or unchanged;
        2 refused (stale token: read again and merge, never resend the stale document;
          schema errors; bad document; unsafe file or tree; another program wrote the
          file);
        4 paused (kill switch);
        5 busy (the lock was not had within --lock-timeout, default 10 s; 0 tries once).
`;
}
