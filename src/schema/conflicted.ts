// Conflict markers in a memory file: a text merge of two handoffs must never be read as one handoff.

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The two sides of a text holding git's conflict markers and the first marker's line; null without a conflict. */
export function conflictSides(input: string): { line: number; ours: string; theirs: string } | null {
  const ours: string[] = [];
  const theirs: string[] = [];
  let fence: string | null = null;
  let side: "out" | "ours" | "base" | "theirs" = "out";
  let first = 0;
  let complete = false;
  for (const [i, line] of input.replace(/\r\n?/g, "\n").split("\n").entries()) {
    const marker = side === "ours" || side === "base";
    if (side === "out" && fence === null && line.startsWith("<<<<<<< ")) {
      side = "ours";
      first ||= i + 1;
    } else if (side === "out") {
      const f = FENCE.exec(line)?.[1];
      if (fence === null) fence = f ?? null;
      else if (f && f[0] === fence[0] && f.length >= fence.length && line.trim() === f) fence = null;
      ours.push(line);
      theirs.push(line);
    } else if (marker && (line.startsWith("||||||| ") || line === "|||||||")) side = "base";
    else if (marker && line === "=======") side = "theirs";
    else if (side === "ours") ours.push(line);
    else if (side === "theirs" && line.startsWith(">>>>>>> ")) {
      side = "out";
      complete = true;
    } else if (side === "theirs") theirs.push(line);
  }
  return complete ? { line: first, ours: ours.join("\n"), theirs: theirs.join("\n") } : null;
}

/** True when the text holds a complete conflict outside fenced code (see `conflictSides`). Pure. */
export function isConflicted(text: string): boolean {
  return text.includes("\n<<<<<<< ") || text.startsWith("<<<<<<< ") ? conflictSides(text) !== null : false;
}

export const CONFLICTED_MESSAGE =
  "unresolved merge conflict markers (<<<<<<<, =======, >>>>>>>) from a merge: " +
  "keep one side and save it whole (the save archives the conflicted file)";
