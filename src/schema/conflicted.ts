// Conflict markers in a memory file: a text merge of two handoffs must never be read as one handoff.

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * The two documents a text holding git's conflict markers holds (lines outside conflicts are on both), ours
 * (`<<<<<<<` side) and theirs, with the 1-based line of the first marker; null when it holds no complete conflict.
 */
export function conflictSides(input: string): { line: number; ours: string; theirs: string } | null {
  const lines = input.replace(/\r\n?/g, "\n").split("\n");
  const ours: string[] = [];
  const theirs: string[] = [];
  let fence: string | null = null;
  let state: "out" | "ours" | "base" | "theirs" = "out";
  let first = 0;
  let complete = false;
  for (const [i, line] of lines.entries()) {
    if (state === "out") {
      const f = FENCE.exec(line);
      if (fence !== null) {
        if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && line.trim() === f[1]) fence = null;
      } else if (f) fence = f[1]!;
      else if (line.startsWith("<<<<<<< ")) {
        state = "ours";
        if (first === 0) first = i + 1;
        continue;
      }
      ours.push(line);
      theirs.push(line);
      continue;
    }
    if (state === "ours" || state === "base") {
      if (line.startsWith("||||||| ") || line === "|||||||") {
        state = "base";
        continue;
      }
      if (line === "=======") {
        state = "theirs";
        continue;
      }
      if (state === "ours") ours.push(line);
      continue;
    }
    if (line.startsWith(">>>>>>> ")) {
      state = "out";
      complete = true;
      continue;
    }
    theirs.push(line);
  }
  if (!complete) return null;
  return { line: first, ours: ours.join("\n"), theirs: theirs.join("\n") };
}

/** True when the text holds a complete conflict outside fenced code (see `conflictSides`). Pure. */
export function isConflicted(text: string): boolean {
  return text.includes("\n<<<<<<< ") || text.startsWith("<<<<<<< ") ? conflictSides(text) !== null : false;
}

/** The message of the `conflicted` schema error (`validate`, `write`; docs/design.md#conflicted-memory). */
export const CONFLICTED_MESSAGE =
  "unresolved merge conflict markers (<<<<<<<, =======, >>>>>>>) from a merge: " +
  "keep one side (archive the other), then save it whole";
