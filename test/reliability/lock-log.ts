import { existsSync, readFileSync } from "node:fs";

/** One holder's time under the lock, from the MEMORY_IO_LOCK_LOG seam (monotonic ns). */
export interface Interval {
  pid: number;
  from: bigint;
  to: bigint | null;
}

/** Parses a lock log into intervals; a holder that never released (killed) stays open. */
export function intervals(logFile: string): Interval[] {
  if (!existsSync(logFile)) return [];
  const open = new Map<number, Interval>();
  const out: Interval[] = [];
  for (const line of readFileSync(logFile, "utf8").split("\n")) {
    if (line === "") continue;
    const m = /^(acquire|release) (\d+) (\d+)$/.exec(line);
    if (!m) throw new Error(`malformed lock log line: ${JSON.stringify(line)}`);
    const pid = Number(m[2]);
    const t = BigInt(m[3]!);
    if (m[1] === "acquire") {
      if (open.has(pid)) throw new Error(`pid ${pid} acquired twice without releasing`);
      const iv = { pid, from: t, to: null };
      open.set(pid, iv);
      out.push(iv);
    } else {
      const iv = open.get(pid);
      if (!iv) throw new Error(`pid ${pid} released a lock it never acquired`);
      iv.to = t;
      open.delete(pid);
    }
  }
  return out;
}

/** Pairs of holders whose intervals overlap (should be none). */
export function overlaps(ivs: Interval[]): [Interval, Interval][] {
  const sorted = [...ivs].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  const bad: [Interval, Interval][] = [];
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const cur = sorted[i]!;
    if (prev.to === null || prev.to > cur.from) bad.push([prev, cur]);
  }
  return bad;
}
