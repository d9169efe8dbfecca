// Entry point of scripts/memory_io.mjs: the one place that touches process (style.md, habit 1).
import { fstatSync, readSync, writeSync } from "node:fs";
import { main } from "./cli.ts";

// Output goes straight to the descriptors: building process.stdout for a pipe loads the
// net and stream modules (~3 ms measured, BENCHMARKS.md), and every verb prints once.
function writeFd(fd: number, data: string | Uint8Array): void {
  const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off, buf.length - off);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // A reader that set O_NONBLOCK on the pipe: wait a moment and go on.
      if (code === "EAGAIN") {
        pause(2);
        continue;
      }
      // The reader is gone (EPIPE): nothing more can be said.
      return;
    }
  }
}

let stdinOpened = false;

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// Read straight from descriptor 0: the verbs that read stdin want all of it before going on,
// and process.stdin would load the stream and net modules first (BENCHMARKS.md). Reading
// stops just past `maxBytes` (ruling 27): an endless producer (`yes |`) costs at most one
// buffer more than the cap, and the caller refuses what is longer.
function readStdin(maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total <= maxBytes) {
    const buf = Buffer.allocUnsafe(Math.min(65536, maxBytes + 1 - total));
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") {
        pause(2);
        continue;
      }
      if (code === "EOF") break;
      // No stdin at all (closed descriptor): the verb sees empty input and says so.
      if (code === "EBADF") break;
      return Promise.reject(err);
    }
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
    total += n;
  }
  return Promise.resolve(Buffer.concat(chunks));
}

// The hook must not wait on a harness that keeps stdin open: the stream, with a deadline.
// (A thread-pool read of fd 0 would be lighter, but a pending one holds up process exit.)
// Past `maxBytes` reading stops and the first `maxBytes + 1` bytes are returned: the caller
// sees the input is too long and ignores it (ruling 20), without holding any more of it.
function readStdinWithin(ms: number, maxBytes: number): Promise<Buffer | null> {
  stdinOpened = true;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const timer = setTimeout(() => resolve(null), ms);
    timer.unref();
    const stdin = process.stdin;
    stdin.on("data", (c: Buffer) => {
      chunks.push(c);
      total += c.length;
      if (total > maxBytes) {
        clearTimeout(timer);
        stdin.pause();
        stdin.destroy();
        resolve(Buffer.concat(chunks).subarray(0, maxBytes + 1));
      }
    });
    stdin.on("end", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    stdin.on("error", () => {
      clearTimeout(timer);
      resolve(null);
    });
  });
}

// A terminal, /dev/null or no stdin at all: nothing for the hook to read. (process.stdin.isTTY
// would build the stdin stream, loading net and tty: ~3 ms that the hook pays every session.)
function stdinIsTerminal(): boolean {
  try {
    return fstatSync(0).isCharacterDevice();
  } catch {
    return true;
  }
}

const code = await main({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  get stdinIsTTY() {
    return stdinIsTerminal();
  },
  readStdin,
  readStdinWithin,
  writeOut: (data) => writeFd(1, data),
  writeErr: (text) => writeFd(2, text),
  helperPath: process.argv[1],
});
process.exitCode = code;
// A harness may keep stdin open after the hook stopped waiting for it: let the process end.
if (stdinOpened) process.stdin.destroy();
