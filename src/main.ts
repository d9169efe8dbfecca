// The process boundary: the one place that reads argv, writes to the descriptors and sets the exit code.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, writeSync,
  type Stats } from "./builtins.ts";
import { Refused, type ExitCode } from "./errors.ts";
import { orNull, succeeds } from "./store/files.ts";
import { crashOutcome, geminiHookRun, type Process } from "./run-verb.ts";

// Straight to the descriptor: process.stdout for a pipe loads the net and stream modules (~3 ms, BENCHMARKS.md).
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

// Reads `fd` to its end or just past `maxBytes`; with a deadline, what came by then, or a whole JSON value.
function readFd(fd: number, maxBytes: number, deadline?: number): Buffer | null {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total <= maxBytes) {
    const buf = Buffer.allocUnsafe(Math.min(65536, maxBytes + 1 - total));
    let n: number;
    try {
      n = readSync(fd, buf, 0, buf.length, null);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // No stdin at all (a closed descriptor): the verb sees empty input and says so.
      if (code === "EOF" || code === "EBADF") break;
      if (code !== "EAGAIN") throw err;
      if (deadline !== undefined && Date.now() >= deadline) return chunks.length > 0 ? Buffer.concat(chunks) : null;
      pause(deadline === undefined ? 2 : 1);
      continue;
    }
    if (n === 0) break;
    const got = buf.subarray(0, n);
    chunks.push(got);
    total += n;
    if (deadline !== undefined && wholeJson(chunks, got)) break;
  }
  return Buffer.concat(chunks);
}

// Read straight from descriptor 0 (process.stdin would load the stream and net modules first).
function readStdin(maxBytes: number): Promise<Buffer> {
  try {
    return Promise.resolve(readFd(0, maxBytes) as Buffer);
  } catch (err) {
    // `< somedir`: a mistake in the command, not a bug; refused before anything is read or written.
    if ((err as NodeJS.ErrnoException).code === "EISDIR") {
      const todo = "pass the document's file (`< FILE`) or pipe it in";
      return Promise.reject(new Refused(`stdin is a directory, not a document: ${todo}`));
    }
    return Promise.reject(err);
  }
}

// True when the bytes read so far end a whole JSON value: a harness that keeps stdin open is not waited for.
function wholeJson(chunks: Buffer[], last: Buffer): boolean {
  let i = last.length - 1;
  while (i >= 0 && (last[i] === 0x20 || last[i] === 0x0a || last[i] === 0x0d || last[i] === 0x09)) i--;
  return i >= 0 && last[i] === 0x7d && succeeds(() => JSON.parse(Buffer.concat(chunks).toString("utf8")));
}

// A Linux pipe read without the stream (~3 ms of the hook's CPU): /proc/self/fd/0 makes O_NONBLOCK ours alone.
function readPipeWithin(stdin: Stats, ms: number, maxBytes: number): Buffer | null | undefined {
  if (process.platform !== "linux" || !stdin.isFIFO()) return undefined;
  const fd = orNull(() => openSync("/proc/self/fd/0", constants.O_RDONLY | constants.O_NONBLOCK));
  if (fd === null) return undefined;
  try {
    if (fstatSync(fd).ino !== stdin.ino) return undefined;
    return readFd(fd, maxBytes, Date.now() + ms);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

// At most `ms` for a harness that may keep stdin open; a socket is streamed, as a blocking read could wait forever.
function readStdinWithin(ms: number, maxBytes: number): Promise<Buffer | null> {
  const stdin = orNull(() => fstatSync(0));
  if (stdin === null) return Promise.resolve(null);
  if (stdin.isFile()) return readStdin(maxBytes);
  const piped = readPipeWithin(stdin, ms, maxBytes);
  if (piped !== undefined) return Promise.resolve(piped);
  stdinOpened = true;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const stdin = process.stdin;
    const done = (value: Buffer | null) => {
      clearTimeout(timer);
      stdin.pause();
      resolve(value);
    };
    const timer = setTimeout(() => done(chunks.length > 0 ? Buffer.concat(chunks) : null), ms);
    timer.unref();
    stdin.on("data", (c: Buffer) => {
      chunks.push(c);
      total += c.length;
      if (total > maxBytes) {
        stdin.destroy();
        done(Buffer.concat(chunks).subarray(0, maxBytes + 1));
      } else if (wholeJson(chunks, c)) done(Buffer.concat(chunks));
    });
    stdin.on("end", () => done(Buffer.concat(chunks)));
    stdin.on("error", () => done(null));
  });
}

// A terminal, /dev/null or no stdin; process.stdin.isTTY would load net and tty (~3 ms every session).
function stdinIsTerminal(): boolean {
  return orNull(() => fstatSync(0).isCharacterDevice()) ?? true;
}

// Held until the verb ends and redacted whole, so that a secret split over two printed lines is seen as one.
function heldOutput(fd: number, redact?: (text: string) => string) {
  const parts: Buffer[] = [];
  return {
    write: (data: string | Uint8Array) => void parts.push(Buffer.from(data)),
    flush() {
      const all = Buffer.concat(parts);
      const text = redact === undefined ? null : orNull(() => new TextDecoder("utf-8", { fatal: true }).decode(all));
      if (all.length > 0) writeFd(fd, text === null ? all : redact!(text));
    },
  };
}

// Through npm's bin link argv[1] is a link to the file: the skill folder is the one it leads to.
function runningFile(file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  return orNull(() => (lstatSync(file).isSymbolicLink() ? realpathSync(file) : file)) ?? file;
}

/** Runs `dispatch` on this process's argv and descriptors and sets the exit code. */
export async function runProcess(dispatch: (proc: Process) => Promise<ExitCode>, redact?: (text: string) => string) {
  const out = heldOutput(1, redact);
  const err = heldOutput(2, redact);
  const gemini = geminiHookRun(process.argv.slice(2));
  // Node's own warnings go to stderr too, which Gemini would show as a chat line.
  if (gemini) process.removeAllListeners("warning");
  let code: number;
  try {
    code = await dispatch({
      argv: process.argv.slice(2),
      env: process.env,
      cwd: process.cwd(),
      get stdinIsTTY() {
        return stdinIsTerminal();
      },
      readStdin,
      readStdinWithin,
      writeOut: (data) => out.write(data),
      writeErr: (text) => err.write(text),
      helperPath: runningFile(process.argv[1]),
    });
  } catch (error) {
    // Outside a verb's run (its code damaged): never a refusal, and still never a failed session.
    const said = crashOutcome(process.argv.slice(2), error);
    out.write(said.out);
    err.write(said.err);
    code = said.code;
  }
  out.flush();
  err.flush();
  process.exitCode = code;
  // A harness may keep stdin open after the hook stopped waiting for it: let the process end.
  if (stdinOpened) process.stdin.destroy();
}
