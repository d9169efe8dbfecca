// The file users and hooks run (scripts/memory_io.mjs): it loads the small bundle for the verbs
// harnesses run on every session start, and the whole CLI for everything else.
import module from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { HARNESS_VERBS, SESSION_VERBS } from "../verbs/types.ts";

// Node 22.1 and later cache V8's compiled code, which halves the parse cost of the bundles.
try {
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
} catch {
  // No cache: the helper still runs, only slower to start.
}

// Help texts live in the whole CLI only.
const [verb = "", ...rest] = process.argv.slice(2);
const session = (SESSION_VERBS as readonly string[]).includes(verb) && !rest.includes("--help") && !rest.includes("-h");

try {
  await import(session ? "./lib/session.mjs" : "./lib/cli.mjs");
} catch (error) {
  // A skill copied without scripts/lib/ (or a damaged bundle): one line that says what to do, no stack.
  // node:fs only now: its ES module view costs a session start time (src/builtins.ts).
  const { existsSync } = await import("node:fs");
  const dir = path.dirname(fileURLToPath(import.meta.url));
  const missing = (error as { code?: string }).code === "ERR_MODULE_NOT_FOUND" && !existsSync(path.join(dir, "lib"));
  const first = String((error as Error)?.message ?? error).split("\n")[0];
  const unloadable = `the helper's code could not be loaded (${first})`;
  const what = missing ? `${dir}/lib/ is missing beside memory_io.mjs` : unloadable;
  const why = `${what}: reinstall the skill (npx session-handoff init)`;
  process.stderr.write(`session-handoff: ${why}\n`);
  process.exitCode = HARNESS_VERBS.includes(verb) ? 0 : 2;
}
