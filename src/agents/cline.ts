import { block, bootstrapBody } from "./bootstrap.ts";
import { nodeRun, psQuote, shellQuote, NODE_RECORD } from "./command.ts";
import { Refused } from "../errors.ts";
import type { Agent, HelperLocation } from "./types.ts";

/** The comment that marks a hook script as ours (a comment in sh and in PowerShell alike). */
export const CLINE_HOOK_MARK = "# session-handoff: installed hook";

const ARGS = `hook --mode session --format cline --root "$root"`;

// Cline runs the file itself, and its stdin names no cwd: the project is the script's
// folder's grandparent (`<project>/.clinerules/hooks/`), and a skill inside the project is
// found from there, so a committed script works in every clone. Builtins only before the
// Node lookup (no `dirname`): a GUI-started harness's PATH may hold nothing.
function hookScript(helper: HelperLocation): string {
  const file = helper.rel !== null ? `"$root"/${shellQuote(helper.rel)}` : shellQuote(helper.abs);
  return `#!/bin/sh\n${CLINE_HOOK_MARK}\nroot=$(cd "\${0%/*}/../.." && pwd) || exit 0\nf=${file}\n[ -f "$f" ] || exit 0\n${nodeRun(ARGS)}\nexit 0\n`;
}

// Cline on Windows runs only `<Event>.ps1` (harnesses.md): the same lookup in PowerShell,
// written on every OS so a committed folder works on every teammate's machine.
// *Unverified*: no Windows machine has run it (README, "Platforms").
function hookScriptPs1(helper: HelperLocation): string {
  const file = helper.rel !== null ? `Join-Path $root ${psQuote(helper.rel)}` : psQuote(helper.abs);
  return [
    CLINE_HOOK_MARK,
    "$root = (Resolve-Path -LiteralPath (Join-Path $PSScriptRoot '..\\..')).Path",
    `$f = ${file}`,
    "if (-not (Test-Path -LiteralPath $f -PathType Leaf)) { exit 0 }",
    "$c = if ($env:XDG_CONFIG_HOME) { $env:XDG_CONFIG_HOME } else { Join-Path $HOME '.config' }",
    `$record = Get-Content -LiteralPath (Join-Path $c '${NODE_RECORD}') -ErrorAction SilentlyContinue | Select-Object -First 1`,
    "$onPath = Get-Command node -ErrorAction SilentlyContinue | Select-Object -First 1 -ExpandProperty Source",
    "foreach ($n in @($env:SESSION_HANDOFF_NODE, $record, $onPath, \"$env:ProgramFiles\\nodejs\\node.exe\")) {",
    "  if ($n -and (Test-Path -LiteralPath $n -PathType Leaf)) { $input | & $n $f hook --mode session --format cline --root $root; exit $LASTEXITCODE }",
    "}",
    "exit 0",
    "",
  ].join("\r\n");
}

/**
 * Cline (harnesses.md): the rule `.clinerules/00-session-handoff.md` (siblings are the
 * user's), and executable hook files `.clinerules/hooks/TaskStart` and `TaskResume` (0755;
 * the user must enable hooks), with `TaskStart.ps1` and `TaskResume.ps1` beside them for
 * Windows. No global folder.
 */
export const cline: Agent = {
  name: "cline",
  format: "cline",
  skillFolders: { project: [".cline/skills", ".clinerules/skills"], home: [] },
  edits(helper, global) {
    if (global) throw new Refused("cline has no per-user rules folder to install into; run `install --agent cline` in the project instead");
    return [
      { kind: "owned-file", file: ".clinerules/00-session-handoff.md", mode: 0o644, content: `${block(bootstrapBody(helper, ["cline"]))}\n` },
      { kind: "owned-file", file: ".clinerules/hooks/TaskStart", mode: 0o755, content: hookScript(helper) },
      { kind: "owned-file", file: ".clinerules/hooks/TaskResume", mode: 0o755, content: hookScript(helper) },
      { kind: "owned-file", file: ".clinerules/hooks/TaskStart.ps1", mode: 0o644, content: hookScriptPs1(helper) },
      { kind: "owned-file", file: ".clinerules/hooks/TaskResume.ps1", mode: 0o644, content: hookScriptPs1(helper) },
    ];
  },
};
