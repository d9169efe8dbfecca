import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, statSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo, handoff, helperAsync, sha, tempDir } from "../helpers.ts";

// A read never returns a version that never existed (docs/design.md#tokens-and-the-publication-protocol):
// another program rewriting HANDOFF.md in place, at the same size, while we read
// (docs/decisions/torn-reads.md: it passed before the change too on the loaded machine).

const WRITER = `
const fs = require("node:fs");
const [file, a, b] = process.argv.slice(1);
const bufs = [Buffer.from(a), Buffer.from(b)];
const fd = fs.openSync(file, "r+");
const end = Date.now() + 60000;
let i = 0;
const sab = new Int32Array(new SharedArrayBuffer(4));
// One write per version, then a pause of 0.3 ms, as a program that rewrites a file does. A
// writer descheduled inside its write leaves a torn file on disk for as long as it waits: a
// state that exists, that no reader can tell from a whole one (docs/decisions/torn-reads.md).
while (Date.now() < end && i < 5000000) {
  fs.writeSync(fd, bufs[i++ % 2], 0, bufs[0].length, 0);
  const until = process.hrtime.bigint() + 300000n;
  while (process.hrtime.bigint() < until) Atomics.wait(sab, 0, 0, 0.05);
}
`;

describe("torn reads", () => {
  it("another process rewriting HANDOFF.md in place at the same size: of many reads, none returns a half-and-half version", async () => {
    const root = gitRepo();
    const dir = path.join(root, ".ai", "memory");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const filler = "x".repeat(20_000);
    const a = handoff(`version A ${filler.replaceAll("x", "a")}`);
    const b = handoff(`version B ${filler.replaceAll("x", "b")}`);
    expect(a.length).toBe(b.length);
    const file = path.join(dir, "HANDOFF.md");
    writeFileSync(file, a, { mode: 0o600 });
    const writer = spawn(process.execPath, ["-e", WRITER, file, a, b], { stdio: "ignore" });
    try {
      let whole = 0;
      let refused = 0;
      const torn: string[] = [];
      for (let n = 0; n < 30; n++) {
        const reads = await Promise.all([0, 1, 2].map(() => helperAsync(["read", "handoff", "--root", root])));
        for (const r of reads) {
          if (r.code === 2) {
            expect(r.stderr).toContain("changed while it was read");
            refused++;
            continue;
          }
          expect(r.code, r.stderr).toBe(0);
          const token = /^CURRENT-SHA256: (\S+)$/m.exec(r.stdout)?.[1];
          if (token === sha(a) || token === sha(b)) whole++;
          else torn.push(r.stdout.slice(0, 200));
        }
      }
      expect(torn).toEqual([]);
      expect(whole + refused).toBe(90);
    } finally {
      writer.kill("SIGKILL");
    }
  }, 120_000);

  // Deterministic, through the failpoint seam (docs/decisions/failpoints.md): the reader has read
  // the whole file and found its fstat unchanged; before its second read another program
  // rewrites the file in place at the same size and puts its mtime back. Without the second
  // read, `read` printed version A with A's token while the file held B.
  it("a same-size in-place rewrite between the first read and its re-check is refused, never printed", async () => {
    const root = gitRepo();
    const dir = path.join(root, ".ai", "memory");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const a = handoff(`version A ${"a".repeat(2000)}`);
    const b = handoff(`version B ${"b".repeat(2000)}`);
    expect(a.length).toBe(b.length);
    const file = path.join(dir, "HANDOFF.md");
    writeFileSync(file, a, { mode: 0o600 });
    const old = new Date(Date.now() - 60_000);
    utimesSync(file, old, old);
    const gate = path.join(tempDir("sh-gate-"), "gate");
    const reading = helperAsync(["read", "handoff", "--root", root], { env: { MEMORY_IO_FAILPOINT: `read-before-recheck:pause=${gate}` } });
    const until = Date.now() + 30_000;
    while (!existsSync(`${gate}.ready`) && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(existsSync(`${gate}.ready`)).toBe(true);
    const before = statSync(file);
    const fd = openSync(file, "r+");
    writeSync(fd, Buffer.from(b), 0, b.length, 0);
    closeSync(fd);
    utimesSync(file, before.atime, before.mtime);
    writeFileSync(`${gate}.go`, "");
    const r = await reading;
    expect(r.stdout).toBe("");
    expect(r.code, r.stdout).toBe(2);
    expect(r.stderr).toContain("changed while it was read");
  }, 60_000);
});
