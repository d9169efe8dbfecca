// git's blob id of each dirty file as `git add` would store it, with no program the repository names run
// (docs/decisions/dirty-hash-conversions.md).
import path from "node:path";
import { blobBytesOf, checkedOutAt, gitDirOf, hashBlob, objectFormat } from "./git-dir.ts";
import { quotePath } from "../guard/quote.ts";
import { pathspecOf, type Git } from "./run.ts";

// The ls-files --eol attributes under which git keeps CRLF already in the indexed blob: `text=auto`, or none
// (core.autocrlf decides); `text` or `eol=` convert whatever the index holds.
const AUTO = (attr: string) => /text=auto/.test(attr) || !/\b(text|eol)\b/.test(attr);

/** Ids of the first `max` `paths`; none for a folder, a non-UTF-8 name or a file under a filter of `drivers`. */
export async function blobIdsOf(
  git: Git, drivers: ReadonlySet<string>, top: string, paths: readonly string[], max = Infinity,
): Promise<Map<string, string>> {
  const format = objectFormat(gitDirOf(top));
  const out = new Map<string, string>();
  const files: { p: string; raw: string; cr: boolean }[] = [];
  for (const p of paths) {
    if (out.size + files.length >= max) break;
    // Bytes of a name that are not UTF-8 were read as U+FFFD: the file on disk has another name, so it has no id here.
    if (p.includes("\uFFFD")) continue;
    const abs = path.join(top, p);
    const blob = p.endsWith("/") ? null : blobBytesOf(abs);
    if (blob === null) {
      // A submodule is stored as the commit checked out in it.
      const module = p.endsWith("/") ? null : checkedOutAt(abs);
      if (module !== null) out.set(p, module);
      continue;
    }
    const raw = typeof blob === "string" ? blob : hashBlob(blob.bytes, format);
    if (typeof blob === "string" || !blob.file) out.set(p, raw);
    else files.push({ p, raw, cr: blob.bytes.includes(13) });
  }
  if (files.length === 0) return out;
  const at = (args: string[], input?: string) => git(["-C", top, ...args], input);
  const names = files.map((f) => f.p);
  // `hash-object` reads no index: `git add` leaves CRLF in a file whose indexed blob holds it, which only ls-files
  // tells, and only a file holding a CR can differ by it.
  const crlf = files.filter((f) => f.cr).map((f) => pathspecOf(f.p, ""));
  const [hashed, attrs, eols] = await Promise.all([
    // git reads one path a line and unquotes one starting with a quote: every name goes as git would quote it.
    at(["hash-object", "--stdin-paths"], names.map((p) => `${quotePath(p)}\n`).join("")),
    drivers.size === 0 ? null : at(["check-attr", "-z", "--stdin", "filter"], names.map((p) => `${p}\0`).join("")),
    crlf.length === 0 ? null : at(["ls-files", "--eol", "-z", "--", ...crlf]),
  ]);
  const ids = hashed.code === 0 ? hashed.stdout.toString("utf8").split("\n") : [];
  const attr = attrs?.stdout.toString("utf8").split("\0") ?? [];
  const filtered = new Set<string>();
  for (let i = 0; i + 2 < attr.length; i += 3) if (drivers.has(attr[i + 2]!)) filtered.add(attr[i]!);
  const keepsCrlf = new Set<string>();
  for (const rec of eols?.code === 0 ? eols.stdout.toString("utf8").split("\0") : []) {
    const m = /^i\/(\S*)\s+w\/\S*\s+attr\/(.*?)\s*\t(.*)$/s.exec(rec);
    if (m && /^(crlf|mixed)$/.test(m[1]!) && AUTO(m[2]!)) keepsCrlf.add(m[3]!);
  }
  files.forEach((f, i) => {
    const id = /^[0-9a-f]{40,64}$/.exec(ids[i] ?? "")?.[0];
    if (id !== undefined && !filtered.has(f.p)) out.set(f.p, keepsCrlf.has(f.p) ? f.raw : id);
  });
  return out;
}
