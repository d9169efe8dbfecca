// Entry point of scripts/memory_io.mjs: the one place that touches process (style.md, habit 1).
import { main } from "./cli.ts";

let stdinOpened = false;

function readStdin(): Promise<Buffer> {
  stdinOpened = true;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on("data", (c: Buffer) => chunks.push(c));
    process.stdin.on("end", () => resolve(Buffer.concat(chunks)));
    process.stdin.on("error", reject);
  });
}

const code = await main({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  // A getter: touching process.stdin builds a stream (net, tty: ~3 ms) that most verbs never read.
  get stdinIsTTY() {
    return Boolean(process.stdin.isTTY);
  },
  readStdin,
  writeOut: (data) => process.stdout.write(data),
  writeErr: (text) => process.stderr.write(text),
});
process.exitCode = code;
// A harness may keep stdin open after the hook stopped waiting for it: let the process end.
if (stdinOpened) process.stdin.destroy();
