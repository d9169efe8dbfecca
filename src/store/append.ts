/** What `promote` appends to AGENTS.md / CLAUDE.md: the prior bytes, a newline when they lack one, then the text. */
export function appendedBytes(prior: Buffer | null, text: string): Buffer {
  let head = prior ?? Buffer.alloc(0);
  if (head.length > 0 && head[head.length - 1] !== 0x0a) head = Buffer.concat([head, Buffer.from("\n")]);
  const tail = text.endsWith("\n") ? text : `${text}\n`;
  return Buffer.concat([head, Buffer.from(tail, "utf8")]);
}

// Lines without their ends: LF or CRLF (a target another tool saved with CRLF still matches).
function linesOf(text: string): string[] {
  return text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

/** True when `text`, less its leading and trailing blank lines, is whole lines of `prior`: a retry appends nothing. */
export function alreadyPresent(prior: Buffer | null, text: string): boolean {
  if (prior === null) return false;
  const want = linesOf(text);
  while (want.length > 0 && want[0]!.trim() === "") want.shift();
  while (want.length > 0 && want[want.length - 1]!.trim() === "") want.pop();
  if (want.length === 0) return false;
  const have = `\n${linesOf(prior.toString("utf8")).join("\n")}\n`;
  return have.includes(`\n${want.join("\n")}\n`);
}
