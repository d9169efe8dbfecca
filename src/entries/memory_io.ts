// The file users and hooks run (scripts/memory_io.mjs). It loads one of two bundles of the same
// source: the small one for the verbs harnesses run on every session start, and the whole CLI
// for everything else, so a session start parses a sixth of the code.
import module from "node:module";

// Node 22.1 and later keep V8's compiled code in a cache folder (the OS temp folder by default),
// which halves the parse cost of the bundles on the next run; older Node lacks the function, and
// a folder that cannot be written only means no cache (Node reports it, it does not throw).
try {
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
} catch {
  // No cache: the helper still runs, only slower to start.
}

/** Verbs served by the small bundle (src/entries/session.ts): keep this list and that table equal. */
const SESSION_VERBS = new Set(["hook", "context", "statusline"]);

await import(SESSION_VERBS.has(process.argv[2] ?? "") ? "./lib/session.mjs" : "./lib/cli.mjs");
