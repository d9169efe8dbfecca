#!/usr/bin/env node
// Builds scripts/memory_io.mjs from src/ (one ESM file, only `node:` imports at run time).
// `node build.mjs --check` rebuilds in memory and fails when the committed bundle differs:
// users run the committed file, never src/ (style.md, habit 8).
//
// ## Two tiers: what V8 parses is what the hook pays (docs/decisions/cold-chunks.md)
//
// The hook runs at every session start, so what a session start and a save need must cost next
// to nothing beyond starting Node. V8 pre-parses every function in the file (a dynamic
// `import()` inside one bundle defers evaluation, not parsing), and every `import … from
// "node:x"` is hoisted to the top of an ESM bundle, loading that builtin at start-up. So the
// source has two tiers, and the output is still ONE file:
//
// 1. The hot tier: src/main.ts and what it imports outside src/cold/, bundled as ESM and parsed
//    at every start. It may not import an npm package (a build error says so).
// 2. The cold tier: each file under src/cold/ (the cold verbs in src/cold/verbs/; the rest are
//    the parts of hot verbs they need only sometimes: the redaction and invisible-character
//    rules, write's schema checks, the repair of an interrupted save, the help text, …) is a
//    chunk: bundled with what only it imports (npm packages included) as CommonJS, stored as
//    text after the code (rule 4) and compiled with `node:vm`'s `compileFunction` when first
//    used. Importing it is the whole protocol: `import { repair } from "../cold/repair.ts"`
//    becomes an object whose getters compile the chunk when a name is first read (named
//    imports only: a build error says so), and `await import("../cold/verbs/drift.ts")`
//    compiles it then. A chunk is handed the hot part's instance of every hot-tier module it
//    imports (`__shared`), so error classes stay one class (`instanceof HelperError` in cli.ts)
//    and module state is not duplicated, and gets getters for another src/cold/ file, which
//    stays a chunk of its own; any other module two chunks import is copied into both (one
//    process runs one cold verb). Never `new Function` or `eval`: hardened Node
//    (`--disallow-code-generation-from-strings`) forbids them, while `node:vm` compiles
//    through V8's embedder API, which that flag does not govern (docs/decisions/node-vm-chunks.md;
//    test/bench/hardened.test.ts runs every verb under that flag).
// 3. Builtins load on first use. `import { x } from "node:y"` in src/ becomes a small ES module
//    of the bundle: for a builtin that Node has loaded before any user code runs (EAGER_BUILTINS:
//    its own loader uses them) plain constants `x = require("node:y").x`; for any other one,
//    wrapper functions that `require("node:y")` when first called, so `hook` never loads
//    node:crypto. Constants, not getters: esbuild then refers to them directly, where getter
//    facades cost ~360 property definitions and a young-generation GC at each start (measured
//    2026-11-30). A lazy builtin may only be imported by name, and only functions (a build
//    error says so otherwise).
// 4. Chunk text is stored deflated, as base64, in one comment after the code: a line
//    `<name> <base64>` per chunk under a first line holding CHUNKS_MARK and the build's id (the
//    SHA-256 of the chunks' code). V8 scans every byte of the file at start-up: deflated, the
//    chunks take less than half their size, and a comment is skipped faster than a string
//    literal is scanned (measured: docs/decisions/cold-chunks.md). A chunk is read from the
//    file at the offset an index in the preamble gives (`__shText`) and inflated with node:zlib
//    when first compiled; a table of another build -- the file replaced while it ran -- is not
//    used, and the verb stops with an internal error naming what is missing. Freshness
//    (`--check`) compares the inflated code, not the deflated bytes (nor the offsets).
//
// esbuild runs once per chunk and twice for the hot part: once to learn its files (what a
// chunk is handed rather than copies), once holding the chunks. A chunk's stack frames are
// named `memory_io.mjs?chunk=<its path>`. test/bench/lazy-bundle.test.ts checks the rules on
// the built file; `npm run bench` measures them.
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
const SRC = path.join(root, "src") + path.sep;
/** The cold tier: every file under it is a chunk (rule 2). */
const COLD = path.join(root, "src", "cold") + path.sep;

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
    "// Generated by build.mjs from src/ (do not edit: `npm run build`); src/cold/ is deflated text after the code.",
    'import { createRequire as __shCreateRequire } from "node:module";',
    "const require = __shCreateRequire(import.meta.url);",
    "const __shLoad = (id) => require(id);",
    `const __shBuild = ${JSON.stringify(buildId)};`,
    `const __shIndex = ${JSON.stringify({ head, ...index })};`,
    `const __shText = (name) => { const fs = require("node:fs"); const at = __shIndex[name]; const fd = fs.openSync(new URL(import.meta.url), "r"); try { const size = fs.fstatSync(fd).size; const read = ([fromEnd, length]) => { if (fromEnd > size) return ""; const b = Buffer.alloc(length); fs.readSync(fd, b, 0, length, size - fromEnd); return b.toString("latin1"); }; if (at !== undefined && name !== "head" && read(__shIndex.head) === ${JSON.stringify(CHUNKS_MARK)} + __shBuild) return read(at); } finally { fs.closeSync(fd); } throw new Error("memory_io.mjs: the code of " + name + " is missing from the file (it was replaced while it ran, or damaged): run the command again, or reinstall the skill"); };`,
    'const __shChunk = (name, shared) => { const module = { exports: {} }; require("node:vm").compileFunction(require("node:zlib").inflateRawSync(Buffer.from(__shText(name), "base64")).toString("utf8"), ["require", "__shared", "module", "exports"], { filename: "memory_io.mjs?chunk=" + name })(require, (id) => shared[id](), module, module.exports); return module.exports; };',
  ].join("\n");

const common = { bundle: true, platform: "node", target: "node20", write: false, absWorkingDir: root, legalComments: "inline", logLevel: "warning" };

/** True for a file of the cold tier (rule 2). */
const isCold = (abs) => abs.startsWith(COLD);

/**
 * The module standing for `import { names } from "<a cold file>"` (getters that compile the
 * chunk when a name is first read), or for the whole chunk when `names` is null (dynamic import).
 * `get` is the expression that yields the chunk's exports, evaluated once.
 */
const chunkFacade = (get, names) =>
  names === null ? `module.exports = ${get};\n` : `let m;\nfor (const k of ${JSON.stringify(names.join(","))}.split(",")) Object.defineProperty(module.exports, k, { get: () => (m ??= ${get})[k], enumerable: true });\n`;

/** The names `importer` imports from the cold file `spec`; a build error unless they are named imports. */
function coldNames(importer, spec) {
  const names = importedNames(readFileSync(importer, "utf8"), spec);
  if (names === null) throw new Error(`build: ${rel(importer)} must import ${spec} by name (a cold file is compiled when a name is first read)`);
  return names;
}

/**
 * The hot part (rule 1). `chunks` maps a chunk's name (its path, `src/cold/…`) to { code, shared }
 * (null while learning the hot files). Returns the output, the hot src files and the cold files
 * the hot part imports.
 */
async function buildHot(chunks) {
  const coldFiles = new Set();
  const lazy = {
    name: "lazy",
    setup(b) {
      b.onResolve({ filter: /.*/ }, (a) => {
        if (a.namespace === "lazy") return a.path.startsWith("chunk:") ? { path: a.path, namespace: "lazy" } : undefined;
        if (!a.importer.startsWith(SRC)) return undefined;
        if (a.path.startsWith(".") && isCold(path.resolve(path.dirname(a.importer), a.path))) {
          const abs = path.resolve(path.dirname(a.importer), a.path);
          coldFiles.add(abs);
          const names = a.kind === "dynamic-import" ? "*" : coldNames(a.importer, a.path).join(",");
          return { path: `cold:${rel(abs)}:${names}`, namespace: "lazy" };
        }
        if (isBuiltin(a.path) && a.kind === "import-statement") {
          // One facade per importer, holding only the names it imports (every name for
          // `import * as` and default imports): esbuild's interop copies each of them.
          const names = importedNames(readFileSync(a.importer, "utf8"), a.path, { withDefault: true });
          if (names === null) throw new Error(`build: ${rel(a.importer)} imports ${a.path} as a namespace; import it by name or as a default`);
          return { path: `builtin:${a.path}:${names.join(",")}`, namespace: "lazy" };
        }
        if (isBare(a.path)) throw new Error(`build: ${rel(a.importer)} is hot code and imports the npm package ${a.path}; import it from a file under src/cold/`);
        return undefined;
      });
      b.onLoad({ filter: /.*/, namespace: "lazy" }, (a) => {
        let contents;
        if (a.path.startsWith("builtin:")) {
          const [, id, keys] = /^builtin:(.+):([^:]*)$/.exec(a.path);
          contents = builtinModule(id.startsWith("node:") ? id : `node:${id}`, keys.split(","));
        } else if (a.path.startsWith("cold:")) {
          const [, id, keys] = /^cold:(.+):([^:]*)$/.exec(a.path);
          contents = chunkFacade(`require(${JSON.stringify(`chunk:${id}`)})`, keys === "*" ? null : keys.split(","));
        } else if (a.path === "chunk:table") {
          // One table of what the chunks ask of the hot part (and of each other), sorted: esbuild
          // resolves in parallel, and the output must not depend on the order.
          const ids = [...new Set(Object.values(chunks ?? {}).flatMap((c) => [...c.shared]))].sort();
          const entries = ids.map((id) => `  ${JSON.stringify(id)}: () => require(${JSON.stringify(isCold(path.join(root, id)) ? `chunk:${id}` : path.join(root, id))}),`);
          contents = `module.exports = {\n${entries.join("\n")}\n};\n`;
        } else {
          const name = a.path.slice("chunk:".length);
          contents = chunks?.[name] ? `module.exports = __shChunk(${JSON.stringify(name)}, require("chunk:table"));\n` : "module.exports = {};";
        }
        return { contents, loader: "js", resolveDir: root };
      });
    },
  };
  const result = await build({ ...common, entryPoints: [path.join(root, "src", "main.ts")], format: "esm", outfile, metafile: true, plugins: [lazy] });
  const hotFiles = new Set(Object.keys(result.metafile.inputs).filter((f) => !f.includes(":") && f.startsWith("src/")).map((f) => path.join(root, f)));
  return { text: result.outputFiles[0].text, hotFiles, coldFiles };
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
 * The chunk of the cold file `abs` (rule 2), bundled as CommonJS. Imports of hot files and of
 * other cold files are served by the hot part through `__shared(id)`; returns the code and
 * the ids it asks for (src paths).
 */
async function buildChunk(abs, hotFiles) {
  const shared = new Set();
  const share = {
    name: "share",
    setup(b) {
      b.onResolve({ filter: /^\./ }, (a) => {
        if (a.namespace !== "file" || !a.importer.startsWith(SRC)) return undefined;
        const dep = path.resolve(path.dirname(a.importer), a.path);
        if (isCold(dep) && dep !== abs) {
          shared.add(rel(dep));
          return { path: `${rel(dep)}:${coldNames(a.importer, a.path).join(",")}`, namespace: "share" };
        }
        if (!hotFiles.has(dep)) return undefined;
        shared.add(rel(dep));
        return { path: `${rel(dep)}:*`, namespace: "share" };
      });
      b.onLoad({ filter: /.*/, namespace: "share" }, (a) => {
        const [, id, keys] = /^(.+):([^:]*)$/.exec(a.path);
        return { contents: chunkFacade(`__shared(${JSON.stringify(id)})`, keys === "*" ? null : keys.split(",")), loader: "js" };
      });
    },
  };
  const result = await build({
    ...common,
    stdin: { contents: `module.exports = require(${JSON.stringify(abs)});`, resolveDir: root, sourcefile: `chunk-${rel(abs).replace(/[^\w.-]/g, "-")}.cjs`, loader: "js" },
    format: "cjs",
    // Whitespace and syntax only: a chunk's text is scanned at every start-up (~0.9 ms per
    // 100 KB measured), and its names stay readable in stack traces.
    minifyWhitespace: true,
    minifySyntax: true,
    plugins: [share],
  });
  const code = result.outputFiles[0].text;
  const required = [...code.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]).filter((s) => !isBuiltin(s));
  if (required.length > 0) throw new Error(`build: the chunk of ${rel(abs)} requires non-node modules: ${required.join(", ")}`);
  return { code, shared };
}

// The hot part's files first (what a chunk is handed, not copied), then every chunk it or
// another chunk imports, then the hot part again, holding them.
const discovery = await buildHot(null);
const chunks = {};
const pending = [...discovery.coldFiles];
while (pending.length > 0) {
  const abs = pending.pop();
  if (chunks[rel(abs)]) continue;
  chunks[rel(abs)] = await buildChunk(abs, discovery.hotFiles);
  for (const id of chunks[rel(abs)].shared) if (isCold(path.join(root, id))) pending.push(path.join(root, id));
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
const final = await buildHot(chunks);
const text = `${preamble(buildId, index, [trailer.length + 1, lines[0].length])}\n${final.text}\n${trailer}\n`;

const nonNode = [...text.matchAll(/^\s*import\b[^"'\n]*["']([^"']+)["']/gm)]
  .map((m) => m[1])
  .filter((spec) => !spec.startsWith("node:"));
if (nonNode.length > 0) {
  console.error(`build: the bundle imports non-node modules: ${nonNode.join(", ")}`);
  process.exit(1);
}

// Plain ASCII: Node's loader then decodes the file into a one-byte string, half the memory
// pages of a two-byte one, which each start pays for (docs/decisions/cold-chunks.md). esbuild
// escapes strings and names but leaves regular expression literals and kept comments as
// written: such a character in src/ is written as an escape (`\u2014`).
const nonAscii = text.split("\n").findIndex((line) => /[^\x00-\x7f]/.test(line));
if (nonAscii >= 0) {
  const line = text.split("\n")[nonAscii];
  console.error(`build: the bundle holds a non-ASCII character on its line ${nonAscii + 1}: ${JSON.stringify(line.trim().slice(0, 120))}; write it as an escape in src/`);
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
