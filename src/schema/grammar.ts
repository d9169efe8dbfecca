// A strict line grammar for our Markdown; what CommonMark reads otherwise is flagged (docs/decisions/line-grammar.md).

/** A block, its source range `[start, end)` in the LF-normalised text and its first line (1-based). */
export interface Block {
  type: "document" | "list" | "listItem" | "paragraph" | "heading" | "thematicBreak" | "code" | "html";
  start: number;
  end: number;
  line: number;
  children: Block[];
  depth?: number;
}

/** A line the grammar does not accept, read as plain text: its 1-based line and what to write instead. */
export interface Flag {
  line: number;
  message: string;
}

export type Tree = Block & { flags: Flag[] };

/** An open list item and the column its content starts at. */
interface Container {
  block: Block;
  col: number;
}

/** A fence or comment still open: its block, its container's depth and the fence that closes it. */
interface OpenLeaf {
  block: Block;
  depth: number;
  line: number;
  fence: string | null;
}

const ATX = /^#{1,6}(?:[ \t]+|$)/;
const FENCE_OPEN = /^`{3,}(?!.*`)|^~{3,}/;
const FENCE_CLOSE = /^(`{3,}|~{3,})[ \t]*$/;
const SETEXT = /^(?:=+|-+)[ \t]*$/;
const THEMATIC = /^(?:(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|(?:-[ \t]*){3,})$/;
const MARKER = /^(?:[-*+]|(\d{1,9})[.)])(?=[ \t]|$)/;
// `[label]:` opens what may be a link reference definition: flagged whatever follows, never parsed.
const DEFINITION = /^\[(?:[^\\[\]]|\\.){1,999}\]:/;
const TAG = "[A-Za-z][A-Za-z0-9-]*";
const ATTRIBUTE = `(?:\\s+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:\\s*=\\s*(?:[^"'=<>\`\\x00-\\x20]+|'[^']*'|"[^"]*"))?)`;
const BLOCK_NAMES =
  "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|" +
  "fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|" +
  "menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|" +
  "title|tr|track|ul";
// The HTML blocks CommonMark starts other than a comment (a complete tag alone on its line included).
const HTML_BLOCK = new RegExp(
  `^(?:<(?:script|pre|textarea|style)(?:\\s|>|$)|<[?]|<![A-Za-z]|<!\\[CDATA\\[|</?(?:${BLOCK_NAMES})(?:\\s|/?>|$)` +
    `|(?:<${TAG}${ATTRIBUTE}*\\s*/?>|</${TAG}\\s*>)\\s*$)`,
  "i",
);

/** Most nested list items; a deeper marker is text (and flagged), so hostile nesting stays linear. */
export const MAX_DEPTH = 32;

const SAY = {
  tab: "a tab in the indentation, which Markdown counts as up to 4 columns: indent with spaces",
  code: "indented 4 or more spaces past its container, which Markdown reads as code: use a ``` fence for code "
    + "and indent a nested item by its parent's text column",
  quote: "a block quote (`>`), which this helper does not read: write the text without `>`",
  html: "an HTML tag opens the line, which Markdown reads as raw HTML: put the tag in backticks",
  definition: "a link reference definition, which Markdown hides: write the link inline",
  setext: "a line of `=` or `-` under text makes it a heading Markdown reads (setext): write `## <title>` instead",
  empty: "an empty list item: write `- none`, or remove the marker",
  wide: "5 or more spaces after the list marker, which Markdown reads as code: write one space",
  twoMarkers: "two list markers on one line: put the nested item on its own line, indented",
  numbered: "a numbered item right after text, which Markdown reads as text unless it is `1.`: "
    + "put a blank line before the list",
  deep: `lists nested more than ${MAX_DEPTH} deep: flatten them`,
  comment: "an HTML comment never closed: end it with -->",
};

/** Parses LF-normalised text into blocks and flags. Pure; never throws on content; linear in the text. */
export function parseBlocks(text: string): Tree {
  const reader = new LineReader(text.length);
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  for (const line of lines) reader.read(line);
  if (reader.leaf !== null) reader.unclosed(reader.leaf);
  close(reader.doc);
  return reader.doc;
}

// The reader's state between lines: the open items, the open paragraph, an open fence or comment.
class LineReader {
  doc: Tree;
  stack: Container[];
  para: Block | null = null;
  paraDepth = 0;
  leaf: OpenLeaf | null = null;
  line = "";
  lineStart = 0;
  lineNo = 0;

  constructor(length: number) {
    this.doc = { type: "document", start: 0, end: length, line: 1, children: [], flags: [] };
    this.stack = [{ block: this.doc, col: 0 }];
  }

  read(line: string): void {
    this.line = line;
    this.lineNo++;
    let indent = 0;
    while (line[indent] === " " || line[indent] === "\t") indent++;
    const blank = indent === line.length;
    const tab = !blank && line.lastIndexOf("\t", indent - 1) >= 0;
    if (this.leaf === null || !this.inLeaf(this.leaf, indent, blank)) {
      this.leaf = null;
      if (tab) this.flag(SAY.tab);
      if (blank) this.para = null;
      else {
        const stack = this.stack;
        let depth = stack.length - 1;
        while (depth > 0 && stack[depth]!.col > indent) depth--;
        const lazyCol = this.para !== null && this.paraDepth > depth ? stack[this.paraDepth]!.col : 0;
        if (lazyCol > 0) this.para = null;
        stack.length = depth + 1;
        this.content(depth, indent, stack[depth]!.col, lazyCol);
      }
    } else if (tab && this.stack.length > 1) this.flag(SAY.tab);
    this.lineStart += line.length + 1;
  }

  flag(message: string, at = this.lineNo): void {
    this.doc.flags.push({ line: at, message });
  }

  lineEnd(): number {
    return this.lineStart + this.line.length;
  }

  unclosed(open: OpenLeaf): void {
    const fence = open.fence;
    this.flag(fence ? `a ${fence} fence never closed: close it with ${fence}` : SAY.comment, open.line);
  }

  // A block added to the container at `depth`; items open a list, or join the last one of their kind.
  add(depth: number, type: Block["type"], start: number, end = this.lineEnd(), key = ""): Block {
    let parent = this.stack[depth]!.block;
    if (type === "listItem") {
      const last = parent.children[parent.children.length - 1] as (Block & { key?: string }) | undefined;
      const same = last?.type === "list" && last.key === key;
      const list = same ? last : { type: "list" as const, start, end, line: this.lineNo, children: [], key };
      if (list !== last) parent.children.push(list);
      parent = list;
    }
    const block: Block = { type, start, end, line: this.lineNo, children: [] };
    parent.children.push(block);
    this.para = null;
    return block;
  }

  // Text after a paragraph line of the same container continues it; otherwise it starts one.
  paragraphLine(depth: number, from: number): void {
    if (this.para !== null && this.paraDepth === depth) this.para.end = this.lineEnd();
    else {
      this.para = this.add(depth, "paragraph", this.lineStart + from);
      this.paraDepth = depth;
    }
  }

  // `lazyCol`: the column of the item whose paragraph the previous line continued, when this line is left of it.
  content(depth: number, from: number, base: number, lazyCol: number): void {
    const s = this.line.slice(from);
    const at = this.lineStart + from;
    const open = this.para !== null && this.paraDepth === depth;
    if (from - base >= 4) {
      if (!open) this.flag(SAY.code);
      return this.paragraphLine(depth, from);
    }
    const atx = s[0] === "#" ? ATX.exec(s) : null;
    if (atx) {
      this.add(depth, "heading", at).depth = atx[0].trim().length;
      return;
    }
    if (FENCE_OPEN.test(s)) {
      const fence = /^(`{3,}|~{3,})/.exec(s)![1]!;
      this.leaf = { block: this.add(depth, "code", at), depth, line: this.lineNo, fence };
      return;
    }
    if (s.startsWith("<!--")) {
      const block = this.add(depth, "html", this.lineStart + base);
      if (!s.includes("-->")) this.leaf = { block, depth, line: this.lineNo, fence: null };
      return;
    }
    if (open && SETEXT.test(s)) {
      this.flag(SAY.setext);
      return this.paragraphLine(depth, from);
    }
    if (THEMATIC.test(s)) {
      this.add(depth, "thematicBreak", at);
      return;
    }
    const marker = MARKER.exec(s);
    if (marker) return this.item(depth, from, marker, open);
    if (s[0] === ">") this.flag(SAY.quote);
    else if (s[0] === "<" && HTML_BLOCK.test(s)) this.flag(SAY.html);
    else if (s[0] === "[" && DEFINITION.test(s)) this.flag(SAY.definition);
    else if (lazyCol > 0) {
      this.flag(`text under a list item without its indentation, which Markdown reads as part of the item: `
        + `indent it by ${lazyCol} spaces, or put a blank line before it`);
    }
    this.paragraphLine(depth, from);
  }

  // A list item: its content column is after the marker and 1-4 spaces (one when more).
  item(depth: number, from: number, marker: RegExpExecArray, open: boolean): void {
    const line = this.line;
    const width = marker[0].length;
    let spaces = 0;
    while (line[from + width + spaces] === " ") spaces++;
    const rest = from + width + spaces;
    if (line[rest] === "\t") this.flag(SAY.tab);
    if (rest === line.length) this.flag(SAY.empty);
    if (open && marker[1] !== undefined && marker[1] !== "1") {
      this.flag(SAY.numbered);
      return this.paragraphLine(depth, from);
    }
    if (this.stack.length > MAX_DEPTH) {
      this.flag(SAY.deep);
      return this.paragraphLine(depth, from);
    }
    const key = marker[1] === undefined ? marker[0] : marker[0].slice(-1);
    const block = this.add(depth, "listItem", this.lineStart + from, this.lineStart + rest, key);
    this.stack.push({ block, col: from + width + (spaces >= 1 && spaces <= 4 ? spaces : 1) });
    const inner = this.stack.length - 1;
    if (rest === line.length) return;
    if (spaces >= 5) this.flag(SAY.wide);
    if (MARKER.test(line.slice(rest))) {
      this.flag(SAY.twoMarkers);
      return this.paragraphLine(inner, rest);
    }
    this.content(inner, rest, rest, 0);
  }

  // Whether a line belongs to the open fence or comment: blank, or indented to its container's column.
  inLeaf(open: OpenLeaf, indent: number, blank: boolean): boolean {
    const col = this.stack[open.depth]!.col;
    if (!blank && indent < col) {
      this.unclosed(open);
      return false;
    }
    open.block.end = this.lineEnd();
    const { fence } = open;
    const line = this.line;
    if (fence === null ? line.includes("-->") : closesFence(line.slice(indent), fence, indent - col)) this.leaf = null;
    return true;
  }
}

function closesFence(s: string, fence: string, indent: number): boolean {
  const m = indent <= 3 ? FENCE_CLOSE.exec(s) : null;
  return m !== null && m[1]![0] === fence[0] && m[1]!.length >= fence.length;
}

// A list and an item end where their last child does (an item with none, after its marker).
function close(block: Block): void {
  for (const child of block.children) close(child);
  const last = block.children[block.children.length - 1];
  if (last && (block.type === "list" || block.type === "listItem")) block.end = last.end;
}
