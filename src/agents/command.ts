import type { HelperLocation } from "./types.ts";

/** The comment that marks a hook script as ours (a comment in sh and in PowerShell alike). */
export const CLINE_HOOK_MARK = "# session-handoff: installed hook";

/** A POSIX shell word for `s`: single-quoted, with `'` written as `'\''`. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A PowerShell string literal for `s`: single-quoted, with `'` doubled. */
export function psQuote(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

// Where Node lives that a GUI-started harness's `/bin/sh` (PATH=/usr/bin:/bin) does not see.
const KNOWN_NODES =
  '/opt/homebrew/bin/node /usr/local/bin/node "$HOME/.volta/bin/node" ' +
  '"$HOME/.local/share/fnm/aliases/default/bin/node" "$HOME/.asdf/shims/node" "$HOME/.local/share/mise/shims/node"';

/** The file `install` records the Node it ran under in, relative to the config folder. */
export const NODE_RECORD = "session-handoff/node";

/** PowerShell's "first result, quietly". */
export const PS_FIRST = "-ErrorAction SilentlyContinue | Select-Object -First 1";

// Outside Windows Node loads no ES module from a path holding a backslash (a project moved there): one line, exit 0.
const UNLOADABLE = "%s holds a backslash, from which Node cannot load it; move the project to a path without one";
const GUARD =
  `{ case $OS$f in Windows_NT*) ;; *\\\\*) printf 'session-handoff: ${UNLOADABLE}\\n' "$f" >&2; exit 0;; esac; `;

/** A command of ours as install wrote it before GUARD, which install upgrades in place and uninstall removes. */
export const unguarded = (command: string) => command.replace(GUARD, "").replace("; }; done", "; done");

/** Shell text running `"$f" <args>` with the first Node found: the same on every machine, so clones share it. */
export function nodeRun(args: string): string {
  const record = `"$(cat "\${XDG_CONFIG_HOME:-$HOME/.config}/${NODE_RECORD}" 2>/dev/null)"`;
  return (
    `for n in "$SESSION_HANDOFF_NODE" ${record} "$(command -v node)" ${KNOWN_NODES}; ` +
    `do [ -f "$n" ] && [ -x "$n" ] && ${GUARD}exec "$n" "$f" ${args}; }; done`
  );
}

/** A hook's shell command, silent without the helper or Node; relative to `projectVar` so that clones share it. */
export function hookCommand(helper: HelperLocation, args: string, projectVar: string | null): string {
  const rel = projectVar !== null && helper.rel !== null;
  const file = rel ? `"$${projectVar}"/${shellQuote(helper.rel!)}` : shellQuote(helper.abs);
  return `f=${file}; [ ! -f "$f" ] || ${nodeRun(args)}; :`;
}

/** `hookCommand` in PowerShell, for Codex's `commandWindows` (*unverified*: no Windows machine has run it). */
export function hookCommandPowerShell(abs: string, args: string): string {
  const record = `(Get-Content -LiteralPath (Join-Path $c '${NODE_RECORD}') ${PS_FIRST})`;
  const onPath = `(Get-Command node ${PS_FIRST} -ExpandProperty Source)`;
  return (
    `$f=${psQuote(abs)}; if (Test-Path -LiteralPath $f -PathType Leaf) { ` +
    `$c=if ($env:XDG_CONFIG_HOME) { $env:XDG_CONFIG_HOME } else { Join-Path $HOME '.config' }; ` +
    `foreach ($n in @($env:SESSION_HANDOFF_NODE, ${record}, ${onPath}, "$env:ProgramFiles\\nodejs\\node.exe")) { ` +
    `if ($n -and (Test-Path -LiteralPath $n -PathType Leaf)) { $input | & $n $f ${args}; exit $LASTEXITCODE } } }; ` +
    "exit 0"
  );
}
