// The session bundle's functions a session start runs, compiled with the module rather than at their first call.
//
// V8 compiles a function when it is first called, unless it sits in parentheses, and Node's compile cache keeps
// only what V8 compiled with the module: every session start compiled the hook's functions anew (about 80, a few
// ms of CPU). `eagerFunctions` writes each one listed here as `var f = (function f() { ... });`, which V8
// compiles with the module and the cache then keeps (docs/decisions/eager-session.md). Only the functions the hook
// runs: compiling the rest too costs Node 20, which has no compile cache, more than it saves.
// test/bench/eager.test.ts lists, from V8's coverage of a hook run, any the hook runs that is missing here.
import ts from "typescript";

export const EAGER_FUNCTIONS = new Set([
  "ageText", "ageWords", "beside", "checkpointHookLines", "checkpointsDir", "checkpointsDirState", "cloneIdOf",
  "close", "commonDirOf", "composeHookText", "disabledByEnv", "dubious", "findRoot", "firstNul", "geminiHookRun",
  "gitDirAt", "gitDirOf", "gitTopOf", "glanceAtHandoff", "guarded", "handoffStateTime", "harnessPath", "heldOutput",
  "homeFolder", "hookCwd", "hookObject", "hookStart", "inProgressOf", "inspectFile", "interruptedSave",
  "isConflicted", "isHookFormat", "itemText", "lastSave", "listPrivate", "localDay", "memoryDir", "newestOrThrow",
  "newestSave", "normaliseText", "obj", "ok", "openRegular", "orNull", "parseBlocks", "parseStrictTime",
  "pauseSwitch", "peek", "pendingRepairs", "quotePath", "quotedPath", "readAll", "readHandoff", "readHookJson",
  "readPipeWithin", "readSmall", "readStdinWithin", "recordLines", "refusedIndexes", "renderHook", "repeatedFlag",
  "rootOption", "ruleOf", "runProcess", "runVerb", "runningFile", "samePath", "savedHere", "savedStampOf",
  "savesPath", "savesRecord", "sessionStartJson", "stateTime", "stdinIsTerminal", "straySentence", "succeeds",
  "treeUnsafe", "treeVerdict", "unmergedMemory", "unticked", "userDir", "walk", "wholeJson", "windowsShaped",
  "writeFd",
]);

/** `text` (lib/session.mjs) with each top-level function named in `names` wrapped in parentheses. */
export function eagerFunctions(text, names = EAGER_FUNCTIONS) {
  const file = ts.createSourceFile("session.mjs", text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const found = new Set();
  let out = "";
  let at = 0;
  for (const statement of file.statements) {
    const name = ts.isFunctionDeclaration(statement) ? statement.name?.text : undefined;
    if (name === undefined || !names.has(name)) continue;
    const start = statement.getStart(file);
    out += `${text.slice(at, start)}var ${name} = (${text.slice(start, statement.end)});`;
    at = statement.end;
    found.add(name);
  }
  // A name that matches no function (renamed, or now an arrow) would silently stop counting: fail the build.
  const stale = [...names].filter((n) => !found.has(n));
  if (stale.length > 0) throw new Error(`build: ${stale.join(", ")} in tools/session-eager.mjs is no top-level function`);
  return out + text.slice(at);
}
