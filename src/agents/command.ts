import type { HelperLocation } from "./types.ts";

/** A POSIX shell word for `s`: single-quoted, with `'` written as `'\''`. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A PowerShell string literal for `s`: single-quoted, with `'` doubled. */
export function psQuote(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/**
 * Where an installed command looks for Node after `$SESSION_HANDOFF_NODE`, the Node recorded
 * at install and `node` on PATH (docs/design.md#integrations): the usual homes of a Node that
 * a GUI-started harness's `/bin/sh` (PATH=/usr/bin:/bin, no login profile) does not see.
 * `install --help` lists them.
 */
export const NODE_LOCATIONS = [
  "/opt/homebrew/bin/node",
  "/usr/local/bin/node",
  "$HOME/.volta/bin/node",
  "$HOME/.local/share/fnm/aliases/default/bin/node",
  "$HOME/.asdf/shims/node",
  "$HOME/.local/share/mise/shims/node",
];

/** The file `install` records the Node it ran under in, relative to the config folder. */
export const NODE_RECORD = "session-handoff/node";

/**
 * The shell text that runs `"$f" <args>` with the first Node found, or does nothing (no
 * output, exit 0) when there is none: the same text on every machine, so a committed
 * settings file works in every clone (docs/design.md#integrations).
 */
export function nodeRun(args: string): string {
  const known = NODE_LOCATIONS.map((p) => (p.startsWith("$HOME") ? `"${p}"` : p)).join(" ");
  return (
    `for n in "$SESSION_HANDOFF_NODE" "$(cat "\${XDG_CONFIG_HOME:-$HOME/.config}/${NODE_RECORD}" 2>/dev/null)" "$(command -v node)" ${known}; ` +
    `do [ -f "$n" ] && [ -x "$n" ] && exec "$n" "$f" ${args}; done`
  );
}

/**
 * The shell command an installed hook runs (docs/design.md#integrations): exits 0 with
 * nothing printed when the helper file is missing (a branch without the skill checked out)
 * or no Node is found, else runs the helper with the first Node of `nodeRun`'s list. With
 * `projectVar` and a skill inside the project, the path is relative to that variable, so a
 * committed settings file works in every clone; otherwise absolute and quoted (paths with
 * spaces are common; harnesses.md).
 */
export function hookCommand(helper: HelperLocation, args: string, projectVar: string | null): string {
  const file = projectVar !== null && helper.rel !== null ? `"$${projectVar}"/${shellQuote(helper.rel)}` : shellQuote(helper.abs);
  return `f=${file}; [ ! -f "$f" ] || ${nodeRun(args)}; :`;
}

/**
 * The PowerShell form of `hookCommand` for a harness with a per-OS command field (Codex's
 * `commandWindows`): the same lookup ($env:SESSION_HANDOFF_NODE, the recorded Node, `node`
 * on PATH, then Node's Windows installer folder), stdin passed on, silent exit 0 when the
 * helper or Node is missing. *Unverified*: no Windows machine has run it (README, "Platforms").
 */
export function hookCommandPowerShell(abs: string, args: string): string {
  return (
    `$f=${psQuote(abs)}; if (Test-Path -LiteralPath $f -PathType Leaf) { ` +
    `$c=if ($env:XDG_CONFIG_HOME) { $env:XDG_CONFIG_HOME } else { Join-Path $HOME '.config' }; ` +
    `foreach ($n in @($env:SESSION_HANDOFF_NODE, (Get-Content -LiteralPath (Join-Path $c '${NODE_RECORD}') -ErrorAction SilentlyContinue | Select-Object -First 1), ` +
    `(Get-Command node -ErrorAction SilentlyContinue | Select-Object -First 1 -ExpandProperty Source), "$env:ProgramFiles\\nodejs\\node.exe")) { ` +
    `if ($n -and (Test-Path -LiteralPath $n -PathType Leaf)) { $input | & $n $f ${args}; exit $LASTEXITCODE } } }; exit 0`
  );
}
