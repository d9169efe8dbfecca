import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, sha, unstamped } from "../helpers.ts";
import { archiveContents, privateFiles, runAsync, runBounded, seed, SUBJECTS } from "./support.ts";

// Many sessions saving one handoff at once, as parallel agents do. Each round is a `read`
// then a `write` with the token it printed; a refused write makes the next round read again.
// Full size (16 x 100) with STRESS_ROUNDS=100; `npm run test:reliability`
// runs a smaller default so that CI's step stays within minutes on two cores.
const WRITERS = Number(process.env.STRESS_WRITERS ?? 16);
const ROUNDS = Number(process.env.STRESS_ROUNDS ?? 6);

interface Ack {
  writer: number;
  round: number;
  content: string;
  expected: string;
  token: string;
  archived: string | null;
}

function envelopeBody(stdout: string): { token: string; body: string } {
  const m = /^CURRENT-SHA256: ([0-9a-f]{64})\n<<<BEGIN UNTRUSTED HANDOFF\.md ([0-9a-f]{16})>>>\n([\s\S]*)<<<END UNTRUSTED HANDOFF\.md \2>>>\n$/.exec(stdout);
  if (!m) throw new Error(`malformed read output: ${stdout.slice(0, 200)}`);
  return { token: m[1]!, body: m[3]! };
}

describe("stress: concurrent read-then-write rounds on one handoff", () => {
  it(`${WRITERS} writers x ${ROUNDS} rounds: every acknowledged write is kept in order, nothing torn, only CAS or busy refusals`, async () => {
    const root = gitRepo();
    const t0 = seed(root, SUBJECTS.handoff, "seed");
    const seedDoc = handoff("seed");
    const acks: Ack[] = [];
    const counts = { rounds: 0, acks: 0, cas: 0, busy: 0, readRetries: 0, other: [] as string[], torn: 0 };
    const pad = "x".repeat(6000);

    async function writer(w: number): Promise<void> {
      for (let round = 0; round < ROUNDS; round++) {
        counts.rounds++;
        let read;
        for (let attempt = 0; ; attempt++) {
          read = await runAsync(["read", "handoff", "--root", root], { timeoutMs: 60_000 });
          if (read.code === 0) break;
          // A read that meets a save in progress is refused whole; anything else is a bug.
          if (read.code !== 2 || !/changed while it was read/.test(read.stderr) || attempt > 200) {
            counts.other.push(`read exit ${read.code}: ${read.stderr.trim()}`);
            return;
          }
          counts.readRetries++;
        }
        const { token, body } = envelopeBody(read.stdout);
        if (sha(body) !== token) counts.torn++;
        const content = handoff(`writer ${w} round ${round}\n${pad}`);
        const r = await runAsync(["write", "handoff", "--root", root, "--expected-current-sha256", token, "--lock-timeout", "30"], {
          input: content,
          timeoutMs: 90_000,
        });
        if (r.code === 0) {
          const printed = /CURRENT-SHA256: ([0-9a-f]{64})\n$/.exec(r.stdout)?.[1];
          // The saved bytes carry write's own Saved: stamp: the chain below checks them.
          if (printed === undefined) counts.torn++;
          const archived = /archived previous handoff as (\S+)\n/.exec(r.stdout)?.[1] ?? null;
          acks.push({ writer: w, round, content, expected: token, token: printed ?? "", archived });
          counts.acks++;
        } else if (r.code === 2 && /^memory operation refused: HANDOFF\.md changed since it was read \(expected /.test(r.stderr)) {
          counts.cas++;
        } else if (r.code === 5 && /^memory operation refused: memory is busy/.test(r.stderr)) {
          counts.busy++;
        } else {
          counts.other.push(`write exit ${r.code} signal ${r.signal}: ${r.stderr.trim()}`);
        }
      }
    }

    const started = Date.now();
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `stress ${WRITERS}x${ROUNDS}: ${counts.rounds} rounds in ${seconds} s: ${counts.acks} acks, ${counts.cas} CAS refusals, ${counts.busy} busy, ` +
        `${counts.readRetries} reads refused mid-save (re-read), ${counts.torn} torn, ${counts.other.length} other errors`,
    );
    expect(counts.other).toEqual([]);
    expect(counts.torn).toBe(0);
    expect(counts.acks + counts.cas + counts.busy).toBe(WRITERS * ROUNDS);
    expect(counts.acks).toBeGreaterThan(0);

    // The acknowledged writes form one chain from the seed: each was based on the one before,
    // so none was silently overwritten (two acks on one token would be a lost write).
    const byExpected = new Map<string, Ack>();
    for (const a of acks) {
      expect(byExpected.has(a.expected), `two acknowledged writes on token ${a.expected}`).toBe(false);
      byExpected.set(a.expected, a);
    }
    const chain: string[] = [seedDoc];
    let t = t0;
    for (let next = byExpected.get(t); next; next = byExpected.get(t)) {
      chain.push(next.content);
      t = next.token;
    }
    expect(chain.length - 1, "every acknowledged write is in the chain").toBe(acks.length);
    const file = readFileSync(path.join(root, ".ai", "memory", "HANDOFF.md"), "utf8");
    expect(sha(file), "the current file is the last acknowledged write's, byte for byte").toBe(t);
    expect(unstamped(file)).toBe(unstamped(chain[chain.length - 1]!));

    // The archive holds the five versions before the current one, oldest name first, whole.
    const archived = archiveContents(root);
    const names = [...archived.keys()].sort();
    expect(names.length).toBe(Math.min(5, acks.length));
    expect(names.map((n) => archived.get(n))).toEqual(chain.slice(-1 - names.length, -1).map(unstamped));
    // Every archive name an acknowledged write printed that still exists holds its predecessor.
    for (const a of acks) {
      expect(a.archived).not.toBeNull();
      if (archived.has(a.archived!)) expect(unstamped(chain[chain.indexOf(a.content) - 1]!)).toBe(archived.get(a.archived!));
    }
    expect(privateFiles(root)).toEqual([]);
    expect(runBounded(["check", "--root", root]).code).toBe(2);
  }, 900_000);
});
