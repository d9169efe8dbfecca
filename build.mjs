#!/usr/bin/env node
// Builds scripts/memory_io.mjs from src/ (one ESM file, only `node:` imports at run time).
// `node build.mjs --check` rebuilds in memory and fails when the committed bundle differs:
// users run the committed file, never src/ (style.md, habit 8).
//
// ## Start-up: what V8 parses is what the hook pays (docs/decisions/cold-chunks.md)
//
// The hook runs at every session start, so the hot verbs (`hook`, `read`, `check`, `write`)
// must cost next to nothing beyond starting Node. Measured (`npm run bench`, BENCHMARKS.md):
// V8 pre-parses every function in the file, so a dynamic `import()` inside one bundle defers
// evaluation but not parsing; and every `import … from "node:x"` is hoisted to the top of an
// ESM bundle, so each builtin any verb uses (crypto, child_process, …) is loaded at start-up.
// Three rules keep both out of the hot paths, and the output is still ONE file:
//
// 1. Cold verbs travel as text. Every verb that `src/verbs/index.ts` loads and that is not in
//    HOT_VERB_FILES below (anchors, drift, brief, redact, and any verb added later) is built,
//    with any npm packages it needs, into a CommonJS "chunk" of its own (a module two cold
//    verbs use is in both: one process runs one verb, and anchors then compiles 14 KB, not
//    the 190 KB of every cold verb) that the bundle holds as text (rule 4) and compiles
//    with `node:vm`'s `compileFunction` the first time that verb is loaded: skipping text
//    is far cheaper than pre-parsing code. Never `new Function` or `eval`: hardened Node
//    (`--disallow-code-generation-from-strings`) forbids them, while `node:vm` compiles
//    through V8's embedder API, which that flag does not govern (measured against
//    `new Function` on hook, read, check, write: no difference beyond the machine's spread;
//    CONTRIBUTING.md). test/bench/hardened.test.ts runs every verb under that flag.
//    The chunk does not get its own copy of a src/ module that the hot part already holds:
//    it is handed the hot part's instance (`__shared`), so error classes stay one class
//    (`instanceof HelperError` in cli.ts) and module state is not duplicated.
// 2. Packages stay out of the parse too. An npm package that a hot module imports
//    (none today; proper-lockfile for `write` until the lock became our own) is a chunk of its own, compiled when the importing module
//    is first evaluated; only CommonJS packages may be (their default import is then exactly
//    `module.exports`, as in Node), an ESM one is a build error naming it.
// 2b. Cold src modules. A src file named `*.cold.ts` that a hot module imports (named imports
//    only) is a chunk of its own too, and the import becomes a facade whose properties compile
//    the chunk when first read: code that hot verbs need only sometimes (the rules and Unicode
//    tables of the invisible-character guard, needed only when a text holds a candidate code
//    point; the redaction rules; write's schema checks; what `checkpoint` does, whose face is
//    a hot verb so that a compaction hook compiles no cold verb's chunk) costs nothing
//    at start-up. Every other
//    chunk is handed the same instance, behind getters of its own, so it compiles the cold
//    module only when it first uses a name from it.
// 3. Builtins load on first use. `import { x } from "node:y"` in src/ becomes a small ES module
//    of the bundle: for a builtin that Node has loaded before any user code runs (EAGER_BUILTINS:
//    its own loader uses them) plain constants `x = require("node:y").x`; for any other one,
//    wrapper functions that `require("node:y")` when first called, so `hook` never loads
//    node:crypto. Constants, not getters: esbuild then refers to them directly, where getter
//    facades cost ~360 property definitions and a young-generation GC at each start (measured
//    2026-11-30: the hook's scavenge went away). A lazy builtin may only be imported by name,
//    and only functions (a build error says so otherwise).
//
// 4. Chunk text is stored deflated, as base64, in one comment after the code: a line
//    `<name> <base64>` per chunk under a first line holding CHUNKS_MARK and the build's id (the
//    SHA-256 of the chunks' code). V8 scans every byte of the file at start-up, whichever verb
//    runs: deflated, 480 KB of chunks take 221 KB, and a comment is skipped faster than a
//    string literal is scanned (measured, hook interleaved: 1.305x with the base64 in string
//    literals, 1.285x in the comment, 1.323x with the code undeflated in the comment). A
//    chunk is read from the file at the offset an index in the preamble gives (`__shText`:
//    reading and splitting the whole table cost anchors and brief ~1 ms, measured) and
//    inflated with node:zlib when first compiled; a table of another build -- the file
//    replaced while it ran -- is not used, and the verb stops with an internal error naming
//    what is missing. Freshness (`--check`) compares the inflated code, not the deflated
//    bytes (nor the offsets, which follow them).
//
// The cost: a cold verb compiles its chunk (a few ms, once per process; `node:vm` is loaded
// then, not before), and a chunk's stack frames are named `memory_io.mjs?chunk=<name>`. test/bench/lazy-bundle.test.ts checks the
// rules on the built file; `npm run bench` measures them.
import { build } from "esbuild";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { readFileSync, writeFileSync, chmodSync, renameSync, mkdirSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.dirname(fileURLToPath(import.meta.url));
const check = process.argv.includes("--check");
// `--check --bundle FILE` judges another copy of the bundle (tests); the build writes only scripts/.
const bundleArg = process.argv.indexOf("--bundle");
const outfile = check && bundleArg > 0 ? path.resolve(process.argv[bundleArg + 1]) : path.join(root, "scripts", "memory_io.mjs");
const verbTable = path.join(root, "src", "verbs", "index.ts");

/** Verb modules compiled into the bundle's parsed code; every other verb is a cold chunk of its own. */
const HOT_VERB_FILES = new Set(["read.ts", "write.ts", "check.ts", "hook.ts", "promote.ts", "recover.ts", "checkpoint.ts"]);

const BUILTINS = new Set(builtinModules);
const isBuiltin = (spec) => spec.startsWith("node:") || BUILTINS.has(spec.split("/")[0]);
const isBare = (spec) => !spec.startsWith(".") && !path.isAbsolute(spec) && !isBuiltin(spec);
const rel = (abs) => path.relative(root, abs).split(path.sep).join("/");

// The chunks' text follows the code, in one comment that opens with this mark and the build's id.
const CHUNKS_MARK = "/*@@session-handoff chunks ";

// The run-time half of the scheme, in the bundle's preamble (plain JS, not rewritten by esbuild).
// `__shText` reads one chunk's text from the table at the end of this very file, at the offset
// the index gives (bytes from the file's end; both lines are ASCII), after checking that the
// table's first line is this build's; only when that chunk is first needed.
const preamble = (buildId, index = {}, head = [0, 0]) =>
  [
    "#!/usr/bin/env node",
    // Line 2, right after the shebang: the user's own ESLint skips the bundle (README, "Other tools in your project").
    "/* eslint-disable */",
    // One comment line fewer than before the ESLint header, so the parsed part keeps its size.
    "// Generated by build.mjs from src/ (do not edit: `npm run build`); cold verbs and packages are deflated text after the code.",
    'import { createRequire as __shCreateRequire } from "node:module";',
    "const require = __shCreateRequire(import.meta.url);",
    "const __shLoad = (id) => require(id);",
    `const __shBuild = ${JSON.stringify(buildId)};`,
    `const __shIndex = ${JSON.stringify({ head, ...index })};`,
    `const __shText = (name) => { const fs = require("node:fs"); const at = __shIndex[name]; const fd = fs.openSync(new URL(import.meta.url), "r"); try { const size = fs.fstatSync(fd).size; const read = ([fromEnd, length]) => { if (fromEnd > size) return ""; const b = Buffer.alloc(length); fs.readSync(fd, b, 0, length, size - fromEnd); return b.toString("latin1"); }; if (at !== undefined && name !== "head" && read(__shIndex.head) === ${JSON.stringify(CHUNKS_MARK)} + __shBuild) return read(at); } finally { fs.closeSync(fd); } throw new Error("memory_io.mjs: the code of " + name + " is missing from the file (it was replaced while it ran, or damaged): run the command again, or reinstall the skill"); };`,
    'const __shChunk = (name, shared) => { const module = { exports: {} }; require("node:vm").compileFunction(require("node:zlib").inflateRawSync(Buffer.from(__shText(name), "base64")).toString("utf8"), ["require", "__shared", "module", "exports"], { filename: "memory_io.mjs?chunk=" + name })(require, (id) => shared[id](), module, module.exports); return module.exports; };',
  ].join("\n");

const common = { bundle: true, platform: "node", target: "node20", write: false, absWorkingDir: root, legalComments: "inline", logLevel: "warning" };

/**
 * The hot bundle. `chunks` maps a chunk name to { code, shared } (null while discovering the
 * hot module graph). Returns the output and what the graph needs: hot src files, the cold
 * verb files, the packages hot modules import.
 */
async function buildHot(chunks, buildId = "", index = {}, head = [0, 0]) {
  const coldVerbs = new Set();
  const coldModules = new Set();
  const packages = new Set();
  const chunkModule = (name) => {
    if (name === "table") {
      // One table of what the chunks ask of the hot part (and of each other), however many chunks.
      const all = {};
      for (const c of Object.values(chunks ?? {})) Object.assign(all, c.shared);
      // Sorted: esbuild resolves in parallel, and the output must not depend on the order.
      const shared = Object.entries(all).sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, req]) => `  ${JSON.stringify(id)}: () => require(${JSON.stringify(req)}),`);
      return `module.exports = {\n${shared.join("\n")}\n};\n`;
    }
    const c = chunks?.[name];
    if (!c) return "module.exports = {};";
    return `module.exports = __shChunk(${JSON.stringify(name)}, require("chunk:table"));\n`;
  };
  const lazy = {
    name: "lazy",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (a) => {
        if (a.namespace === "lazy") {
          // Requests made by the generated modules themselves.
          if (a.path.startsWith("chunk:")) return { path: a.path, namespace: "lazy" };
          return undefined;
        }
        if (a.kind === "dynamic-import" && a.importer === verbTable && !HOT_VERB_FILES.has(path.basename(a.path))) {
          const abs = path.resolve(path.dirname(a.importer), a.path);
          coldVerbs.add(abs);
          return { path: `cold:${rel(abs)}`, namespace: "lazy" };
        }
        if (a.kind === "import-statement" && a.path.endsWith(".cold.ts") && a.importer.startsWith(path.join(root, "src"))) {
          const abs = path.resolve(path.dirname(a.importer), a.path);
          const names = importedNames(readFileSync(a.importer, "utf8"), a.path);
          if (names === null) throw new Error(`build: ${rel(a.importer)} must import ${a.path} with named imports only`);
          coldModules.add(abs);
          return { path: `coldmod:${rel(abs)}:${names.join(",")}`, namespace: "lazy" };
        }
        if (isBuiltin(a.path) && a.kind === "import-statement") {
          // One facade per importer, holding only the names it imports (every name for
          // `import * as` and default imports): esbuild's interop copies each of them.
          const names = importedNames(readFileSync(a.importer, "utf8"), a.path, { withDefault: true });
          if (names === null) throw new Error(`build: ${rel(a.importer)} imports ${a.path} as a namespace; import it by name or as a default`);
          return { path: `builtin:${a.path}:${names.join(",")}`, namespace: "lazy" };
        }
        if (isBare(a.path) && a.importer.startsWith(path.join(root, "src"))) {
          const name = packageName(a.path);
          packages.add(a.path);
          return { path: `chunk:pkg:${a.path}`, namespace: "lazy", pluginData: name };
        }
        return undefined;
      });
      b.onLoad({ filter: /.*/, namespace: "lazy" }, (a) => {
        let contents;
        if (a.path.startsWith("builtin:")) {
          const [, id, keys] = /^builtin:(.+):([^:]*)$/.exec(a.path);
          contents = builtinModule(id.startsWith("node:") ? id : `node:${id}`, keys.split(","));
        } else if (a.path.startsWith("coldmod:")) {
          const [, id, keys] = /^coldmod:(.+):([^:]*)$/.exec(a.path);
          // Getters: esbuild's interop reads each name when used, so the chunk compiles then.
          contents = `let m;\nfor (const k of ${JSON.stringify(keys)}.split(",")) Object.defineProperty(module.exports, k, { get: () => (m ??= require(${JSON.stringify(`chunk:lazy:${id}`)}))[k], enumerable: true });\n`;
        } else if (a.path.startsWith("cold:")) {
          contents = `module.exports = require(${JSON.stringify(`chunk:${a.path}`)});`;
        } else {
          contents = chunkModule(a.path.slice("chunk:".length));
        }
        return { contents, loader: "js", resolveDir: root };
      });
    },
  };
  const result = await build({
    ...common,
    entryPoints: [path.join(root, "src", "main.ts")],
    format: "esm",
    outfile,
    metafile: true,
    plugins: [lazy],
    banner: { js: preamble(buildId, index, head) },
  });
  const hotFiles = new Set(Object.keys(result.metafile.inputs).filter((f) => !f.includes(":") && f.startsWith("src/")).map((f) => path.join(root, f)));
  return { text: result.outputFiles[0].text, hotFiles, coldVerbs, coldModules, packages };
}

// A JSON string literal in pure ASCII: Node decodes the file and V8 scans it fastest so.
// The bundle with every chunk inflated: what freshness is judged on, since zlib builds may
// deflate the same text to different bytes (SIMD paths differ by CPU) while the code is the same.
const inflated = (bundleText) => {
  const at = bundleText.lastIndexOf(`\n${CHUNKS_MARK}`);
  if (at < 0) return bundleText;
  const lines = bundleText.slice(at + 1).split("\n");
  return [bundleText.slice(0, at).replace(/^const __shIndex = .*$/m, "const __shIndex = <offsets>;"), lines[0], ...lines.slice(1).map((l) => (/^\S+ [A-Za-z0-9+/=]+$/.test(l) ? `${l.slice(0, l.indexOf(" "))} ${inflateRawSync(Buffer.from(l.slice(l.indexOf(" ") + 1), "base64")).toString("utf8")}` : l))].join("\n");
};

// Builtins Node has loaded before the bundle's first line runs (its ESM loader needs them), on
// every version the bundle targets: reading one of their exports at start-up costs nothing.
const EAGER_BUILTINS = new Set(["node:fs", "node:path", "node:url", "node:util", "node:buffer", "node:events"]);

/** The ES module that stands for `import { names } from id` (rule 3); `default` is the module itself. */
function builtinModule(id, names) {
  const spec = JSON.stringify(id);
  if (EAGER_BUILTINS.has(id)) {
    const lines = [`const m = __shLoad(${spec});`];
    for (const n of names) lines.push(n === "default" ? "export default m;" : `export const ${n} = m.${n};`);
    return lines.join("\n");
  }
  const real = createRequire(import.meta.url)(id);
  const lines = [`let m;`, `const load = () => (m ??= __shLoad(${spec}));`];
  for (const n of names) {
    if (n === "default" || typeof real[n] !== "function" || /^[A-Z]/.test(n)) {
      throw new Error(`build: ${id} loads on first use, so only its functions can be imported by name (not ${n}); add it to EAGER_BUILTINS only if Node loads it before user code`);
    }
    lines.push(`export function ${n}(...args) { return load().${n}(...args); }`);
  }
  return lines.join("\n");
}

/**
 * The names `source` imports from `spec` with `import { a, b as c }` (and `default` for a
 * default import when `withDefault`); null when it imports a namespace or, without
 * `withDefault`, a default.
 */
function importedNames(source, spec, { withDefault = false } = {}) {
  const names = new Set();
  const from = new RegExp(`^import\\s+(type\\s+)?([^;]*?)\\s+from\\s+["']${spec.replace(/[/.]/g, "\\$&")}["']`, "gm");
  for (const m of source.matchAll(from)) {
    if (m[1]) continue;
    let clause = m[2].trim();
    const def = /^([A-Za-z_$][\w$]*)\s*(?:,\s*|$)/.exec(clause);
    if (def && def[1] !== "type") {
      if (!withDefault) return null;
      names.add("default");
      clause = clause.slice(def[0].length).trim();
      if (clause === "") continue;
    }
    const braces = /^\{([^}]*)\}$/.exec(clause);
    if (!braces) return null;
    for (const part of braces[1].split(",")) {
      const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0];
      if (name && !part.trim().startsWith("type ")) names.add(name);
    }
  }
  return names.size > 0 ? [...names].sort() : null;
}

function packageName(spec) {
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/**
 * A chunk: `entry` (CommonJS source) bundled as CommonJS. Imports of hot src files and of
 * package chunks are served by the hot part through `__shared(id)`; returns the code and
 * the ids it asked for, each mapped to what the hot part must `require` to serve it.
 */
async function buildChunk(name, entry, hotFiles, packageChunks, coldModules = new Set()) {
  const shared = {};
  const share = {
    name: "share",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (a) => {
        if (a.namespace === "share" || a.importer === "" || !a.importer.startsWith(path.join(root, "src"))) return undefined;
        if (a.path.startsWith(".")) {
          const abs = path.resolve(path.dirname(a.importer), a.path);
          if (coldModules.has(abs)) {
            // Getters, as in the hot part: the cold module's chunk compiles when a name is
            // first used, not when this chunk loads (a cold verb that never redacts never
            // compiles the redaction rules).
            shared[`lazy:${rel(abs)}`] = `chunk:lazy:${rel(abs)}`;
            const names = importedNames(readFileSync(a.importer, "utf8"), a.path);
            if (names === null) throw new Error(`build: ${rel(a.importer)} must import ${a.path} by name (a cold module's facade has getters only)`);
            return { path: `lazyfacade:${rel(abs)}:${names.join(",")}`, namespace: "share" };
          }
          if (!hotFiles.has(abs)) return undefined;
          shared[rel(abs)] = abs;
          return { path: rel(abs), namespace: "share" };
        }
        if (packageChunks.has(a.path)) {
          shared[`pkg:${a.path}`] = `chunk:pkg:${a.path}`;
          return { path: `pkg:${a.path}`, namespace: "share" };
        }
        return undefined;
      });
      b.onLoad({ filter: /.*/, namespace: "share" }, (a) => {
        const facade = /^lazyfacade:(.+):([^:]*)$/.exec(a.path);
        if (!facade) return { contents: `module.exports = __shared(${JSON.stringify(a.path)});`, loader: "js" };
        const [, id, keys] = facade;
        return { contents: `let m;\nfor (const k of ${JSON.stringify(keys)}.split(",")) Object.defineProperty(module.exports, k, { get: () => (m ??= __shared(${JSON.stringify(`lazy:${id}`)}))[k], enumerable: true });\n`, loader: "js" };
      });
    },
  };
  const result = await build({
    ...common,
    stdin: { contents: entry, resolveDir: root, sourcefile: `chunk-${name.replace(/[^\w.-]/g, "-")}.cjs`, loader: "js" },
    format: "cjs",
    // Whitespace and syntax only: a chunk's text is scanned at every start-up (~0.9 ms per
    // 100 KB measured), and its names stay readable in stack traces.
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    plugins: [share],
  });
  const code = result.outputFiles[0].text;
  const required = [...code.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]).filter((s) => !isBuiltin(s));
  if (required.length > 0) throw new Error(`build: chunk ${name} requires non-node modules: ${required.join(", ")}`);
  return { code, shared, metafile: result.metafile };
}

// Pass 1: the hot graph, with empty chunks. Pass 2: the chunks. Pass 3: the hot part again,
// now holding them (the same graph: the chunks only ask for modules it already has).
const discovery = await buildHot(null);
const chunks = {};
const packageChunks = new Set(discovery.packages);
for (const spec of packageChunks) {
  const { code, shared, metafile } = await buildChunk(`pkg:${spec}`, `module.exports = require(${JSON.stringify(spec)});`, discovery.hotFiles, new Set());
  const entry = Object.values(metafile.inputs).find((i) => i.imports.some((imp) => imp.original === spec));
  const target = entry?.imports.find((imp) => imp.original === spec)?.path;
  if (target === undefined || metafile.inputs[target]?.format !== "cjs") {
    // An ESM package's default import would come out as its namespace here (Node's rule for
    // a CommonJS module): refuse rather than ship a subtly wrong bundle.
    throw new Error(`build: hot code imports ${spec}, which is not a CommonJS package; import it from a cold verb, or pick a CommonJS package`);
  }
  chunks[`pkg:${spec}`] = { code, shared };
}
for (const abs of [...discovery.coldModules].sort()) {
  // A cold module that imports another one gets that one's instance too, not a copy.
  const others = new Set([...discovery.coldModules].filter((m) => m !== abs));
  const { code, shared } = await buildChunk(`lazy:${rel(abs)}`, `module.exports = require(${JSON.stringify(abs)});`, discovery.hotFiles, packageChunks, others);
  chunks[`lazy:${rel(abs)}`] = { code, shared };
}
// One chunk per cold verb (and per cold helper): a verb compiles what it runs, not the others.
// A module two cold verbs import is in both chunks; no process runs two cold verbs.
for (const abs of [...discovery.coldVerbs].sort()) {
  chunks[`cold:${rel(abs)}`] = await buildChunk(`cold:${rel(abs)}`, `module.exports = require(${JSON.stringify(abs)});`, discovery.hotFiles, packageChunks, discovery.coldModules);
}
// The chunks' text after the code (rule 4): one line each, `<name> <deflated code as base64>`,
// sorted; the id is the SHA-256 of the code itself (zlib builds may deflate it differently).
const names = Object.keys(chunks).sort();
const buildId = createHash("sha256").update(names.map((n) => `${n}\n${chunks[n].code}`).join("\n")).digest("hex").slice(0, 16);
const lines = [`${CHUNKS_MARK}${buildId}`, ...names.map((n) => `${n} ${deflateRawSync(Buffer.from(chunks[n].code, "utf8"), { level: 9 }).toString("base64")}`), "*/"];
const trailer = lines.join("\n");
// Where each chunk's base64 lies, in bytes from the end of the file (the trailer, then "\n").
const index = {};
let at = 0;
for (const [k, line] of lines.entries()) {
  if (k > 0 && k <= names.length) index[names[k - 1]] = [trailer.length + 1 - (at + names[k - 1].length + 1), line.length - names[k - 1].length - 1];
  at += line.length + 1;
}
const final = await buildHot(chunks, buildId, index, [trailer.length + 1, lines[0].length]);
const text = `${final.text}\n${trailer}\n`;

const nonNode = [...text.matchAll(/^\s*import\b[^"'\n]*["']([^"']+)["']/gm)]
  .map((m) => m[1])
  .filter((spec) => !spec.startsWith("node:"));
if (nonNode.length > 0) {
  console.error(`build: the bundle imports non-node modules: ${nonNode.join(", ")}`);
  process.exit(1);
}

if (check) {
  let committed = "";
  try {
    committed = readFileSync(outfile, "utf8");
  } catch {
    committed = "";
  }
  if (committed !== text && inflated(committed) !== inflated(text)) {
    console.error("build --check: scripts/memory_io.mjs is not what `npm run build` makes from src/; run `npm run build` and commit it");
    process.exit(1);
  }
  console.log("build --check: scripts/memory_io.mjs is fresh");
} else {
  // Write beside and rename: tests running elsewhere never spawn a half-written bundle.
  let same = false;
  try {
    const current = readFileSync(outfile, "utf8");
    same = current === text || inflated(current) === inflated(text);
  } catch {
    same = false;
  }
  if (!same) {
    mkdirSync(path.dirname(outfile), { recursive: true });
    const tmp = `${outfile}.${process.pid}.tmp`;
    writeFileSync(tmp, text, { mode: 0o755 });
    chmodSync(tmp, 0o755);
    renameSync(tmp, outfile);
  }
  const strings = Object.values(chunks).reduce((n, c) => n + c.code.length, 0);
  console.log(`built ${path.relative(root, outfile)} (${text.length} bytes, lazy chunks of ${strings} bytes stored deflated)`);
}
