// The block structure of a Markdown document, as CommonMark defines it, with the source
// offsets of each block: a small line scanner, pure and free of dependencies. It exists so
// that `parseHandoff` (handoff.ts) can read the line-oriented handoff schema without remark,
// whose parser (micromark) cost drift and brief ~30 ms of start-up (BENCHMARKS.md). It
// follows the CommonMark block algorithm (two phases per line: match the open containers,
// then look for new block starts; lazy paragraph continuation), and only that: no inline
// parsing, no tree of inline nodes. The offsets are those remark gives the same blocks, so
// that source slices match what the remark-based parser produced (test/schema/corpus). remark
// is its oracle: test/schema/remark-oracle.test.ts compares the two live on generated
// documents, and where micromark departs from CommonMark the scanner follows micromark, save
// the exclusions docs/decisions/line-scanner.md lists.

/** A block and its source range `[start, end)` in the (LF-normalised) text. */
export interface Block {
  type: "document" | "blockquote" | "list" | "listItem" | "paragraph" | "definition" | "heading" | "thematicBreak" | "code" | "html";
  start: number;
  end: number;
  children: Block[];
  /** Heading level (1-6). */
  depth?: number;
}

interface Node extends Block {
  parent: Node | null;
  open: boolean;
  children: Node[];
  // list / listItem
  listType?: "bullet" | "ordered";
  bulletChar?: string;
  delimiter?: string;
  markerOffset?: number;
  padding?: number;
  markerEnd?: number;
  // code
  fenced?: boolean;
  fenceChar?: string;
  fenceLength?: number;
  fenceOffset?: number;
  /** Fenced code closed by its fence, HTML block by its end condition. */
  closedByFence?: boolean;
  /** Indented code begun on a lazy line (one that left an open container unmatched): it ends there. */
  lazy?: boolean;
  /** Indented code: end of its last line with content; block quote: of its last `>` line. */
  lastContentEnd?: number;
  // html
  htmlType?: number;
  // paragraph: the start offset and end of each of its lines, flat (start, end, start, end…)
  lines?: number[];
}

const TAGNAME = "[A-Za-z][A-Za-z0-9-]*";
const ATTRIBUTE = "(?:\\s+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:\\s*=\\s*(?:[^\"'=<>`\\x00-\\x20]+|'[^']*'|\"[^\"]*\"))?)";
const OPENTAG = `<${TAGNAME}${ATTRIBUTE}*\\s*/?>`;
const CLOSETAG = `</${TAGNAME}\\s*[>]`;
const BLOCK_NAMES =
  "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[123456]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul";
const HTML_OPEN: RegExp[] = [
  /^$/,
  /^<(?:script|pre|textarea|style)(?:\s|>|$)/i,
  /^<!--/,
  /^<[?]/,
  /^<![A-Za-z]/,
  /^<!\[CDATA\[/,
  new RegExp(`^<[/]?(?:${BLOCK_NAMES})(?:\\s|[/]?[>]|$)`, "i"),
  new RegExp(`^(?:${OPENTAG}|${CLOSETAG})\\s*$`, "i"),
];
const HTML_CLOSE: RegExp[] = [/^$/, /<\/(?:script|pre|textarea|style)>/i, /-->/, /\?>/, />/, /\]\]>/];
const ATX = /^#{1,6}(?:[ \t]+|$)/;
const FENCE_OPEN = /^`{3,}(?!.*`)|^~{3,}/;
const FENCE_CLOSE = /^(?:`{3,}|~{3,})(?=[ \t]*$)/;
const SETEXT = /^(?:=+|-+)[ \t]*$/;
const THEMATIC = /^(?:\*[ \t]*){3,}$|^(?:_[ \t]*){3,}$|^(?:-[ \t]*){3,}$/;
const NONBLANK = /[^ \t]/;
// The first characters that can start a block other than a paragraph line: any other line
// skips the block-start tries (most lines of a handoff).
const MAYBE_SPECIAL = /[#`~*+_=<>0-9-]/;
// A link reference definition on one line (a paragraph made only of them is no paragraph).
const DEFINITION = /^ {0,3}\[(?:[^\\\[\]]|\\.){0,999}\]:[ \t]*(?:<[^<>\n]*>|[^\s\x00-\x1f]+)(?:[ \t]+(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\((?:[^()\\]|\\.)*\)))?[ \t]*$/;

/** Most nested containers (block quotes, lists, list items); deeper markers are text. */
export const MAX_DEPTH = 48;

const isSpaceOrTab = (c: string | undefined): boolean => c === " " || c === "\t";

// `write` reads one document's layout a dozen times (stamp, anchors, comparison, validation,
// score): the last few trees are kept, frozen, so a caller can never change another's tree.
const RECENT = 4;
const recent: { text: string; tree: Block }[] = [];

// No children yet, no paragraph line yet: shared and frozen, replaced by an array of exactly
// one on the first (most blocks of a handoff hold one child or none, and an array grown by
// push reserves 17 slots).
const NO_CHILDREN: Node[] = Object.freeze([]) as unknown as Node[];
const NO_LINES: number[] = Object.freeze([]) as unknown as number[];

function freeze(b: Block): Block {
  for (const c of b.children) freeze(c);
  Object.freeze(b.children);
  return Object.freeze(b);
}

/**
 * Parses the block structure of LF-normalised text; never throws on content. The result is
 * frozen and shared: the same text parsed again (of the last four) gives the same tree.
 */
export function parseBlocks(text: string): Block {
  for (const r of recent) if (r.text === text) return r.tree;
  const tree = freeze(scan(text));
  recent.unshift({ text, tree });
  if (recent.length > RECENT) recent.pop();
  return tree;
}

/**
 * `parseBlocks` for a caller that keeps the tree to itself and never changes it (the hook's
 * state time, handoff.ts): the same scan, neither frozen nor kept, which saves the session-start
 * hook a third of the scan's allocation (docs/decisions/plain-bundle.md). Never throws on content.
 */
export function parseBlocksPrivately(text: string): Block {
  for (const r of recent) if (r.text === text) return r.tree;
  return scan(text);
}

function scan(text: string): Node {
  const doc: Node = { type: "document", start: 0, end: text.length, children: NO_CHILDREN, parent: null, open: true };
  let tip: Node = doc;
  let oldtip: Node = doc;
  let lastMatched: Node = doc;
  let allClosed = true;

  // Cursor on the current line (commonmark's offset / column / partially consumed tab).
  let line = "";
  let lineStart = 0;
  let offset = 0;
  let column = 0;
  let nextNonspace = 0;
  let nextNonspaceColumn = 0;
  let indent = 0;
  let indented = false;
  let blank = false;
  let partialTab = false;
  // Blank lines just before the current one, the start of the last of them; end of the text.
  let blankRun = 0;
  let lastBlankStart = 0;
  let atEnd = false;
  // An empty list item ended by a blank line, and no line with content since; the current
  // line is the first with content after it (see `continues`, listItem).
  let emptyItemBlank = false;
  let afterEmptyItem = false;

  const findNextNonspace = (): void => {
    let i = offset;
    let cols = column;
    let c: string | undefined;
    while ((c = line[i]) !== undefined) {
      if (c === " ") {
        i++;
        cols++;
      } else if (c === "\t") {
        i++;
        cols += 4 - (cols % 4);
      } else break;
    }
    blank = c === undefined;
    nextNonspace = i;
    nextNonspaceColumn = cols;
    indent = nextNonspaceColumn - column;
    indented = indent >= 4;
  };
  const advanceNextNonspace = (): void => {
    offset = nextNonspace;
    column = nextNonspaceColumn;
    partialTab = false;
  };
  const advanceOffset = (count: number, columns: boolean): void => {
    let c: string | undefined;
    while (count > 0 && (c = line[offset]) !== undefined) {
      if (c === "\t") {
        const toTab = 4 - (column % 4);
        if (columns) {
          partialTab = toTab > count;
          const n = toTab > count ? count : toTab;
          column += n;
          offset += partialTab ? 0 : 1;
          count -= n;
        } else {
          partialTab = false;
          column += toTab;
          offset += 1;
          count -= 1;
        }
      } else {
        partialTab = false;
        offset += 1;
        column += 1;
        count -= 1;
      }
    }
  };

  const lineEnd = (): number => lineStart + line.length;

  const finalize = (block: Node): void => {
    block.open = false;
    const last = block.children[block.children.length - 1];
    switch (block.type) {
      case "blockquote":
        // Through its last `>` line, or its last child's end (a lazy line).
        block.end = Math.max(block.lastContentEnd!, last ? last.end : 0);
        break;
      case "listItem":
      case "list":
        block.end = last ? last.end : (block.markerEnd ?? block.start + 1);
        break;
      case "code":
        if (!block.fenced) block.end = block.lastContentEnd ?? block.end;
        else if (!block.closedByFence) block.end = implicitFenceEnd(block);
        break;
      case "html":
        // An HTML block of kinds 1-5 that its container's end (or the text's) closed: remark
        // ends it as a fence (an item's text, the goal's blocks).
        if (!block.closedByFence && block.htmlType! <= 5) block.end = implicitFenceEnd(block);
        break;
      case "paragraph": {
        // Leading link reference definitions are not paragraph text.
        const lines = block.lines ?? [];
        const n = insertDefinitions(block);
        if (n === 0) break;
        if (n === lines.length) block.parent!.children.splice(block.parent!.children.indexOf(block), 1);
        else {
          block.start = lines[n]! + leadOf(lines[n]!, lines[n + 1]!);
          block.lines = lines.slice(n);
        }
        break;
      }
    }
    tip = block.parent ?? doc;
  };

  // A definition node for each link reference definition that opens the paragraph's lines,
  // inserted before it; returns how many entries of its `lines` they take (two a line).
  const insertDefinitions = (block: Node): number => {
    const lines = block.lines ?? [];
    let n = 0;
    while (n < lines.length && isDefinition(lines[n]!, lines[n + 1]!)) n += 2;
    if (n === 0) return 0;
    const siblings = block.parent!.children;
    let at = siblings.indexOf(block);
    for (let i = 0; i < n; i += 2) {
      siblings.splice(at++, 0, { type: "definition", start: lines[i]! + leadOf(lines[i]!, lines[i + 1]!), end: lines[i + 1]!, children: NO_CHILDREN, parent: block.parent, open: false });
    }
    return n;
  };

  // Spaces and tabs at the start of text[start, end).
  const leadOf = (start: number, end: number): number => {
    let i = start;
    while (i < end && isSpaceOrTab(text[i])) i++;
    return i - start;
  };

  // A link reference definition on the line text[start, end): its first character after up to
  // three spaces is `[`, which most lines fail without a slice or a regex.
  const isDefinition = (start: number, end: number): boolean => {
    let i = start;
    while (i < end && i - start < 3 && text[i] === " ") i++;
    return text[i] === "[" && DEFINITION.test(text.slice(start, end));
  };

  // Where remark ends a fence, or an HTML block of kinds 1-5, that its container's end (or the
  // text's) closed: before a list item or a block quote (not indented as code), through the
  // line break before it; otherwise inside a block quote, at the end of its last line; at the
  // end of the text, there; otherwise through the line break before the last blank line, or
  // at the end of the last line. Only trailing whitespace depends on it, but an item's text
  // and the goal keep it.
  const implicitFenceEnd = (block: Node): number => {
    if (!atEnd && opensContainer()) return lineStart;
    if (block.parent?.type === "blockquote") return block.end;
    if (atEnd) return text.length;
    return blankRun > 0 ? lastBlankStart : lineStart - 1;
  };

  // Whether the current line opens a list item or a block quote (only read when a container
  // ends a fence or an HTML block: rare).
  const opensContainer = (): boolean => {
    if (indented) return false;
    const rest = line.slice(nextNonspace);
    return rest[0] === ">" || (/^(?:[*+-]|\d{1,9}[.)])(?:[ \t]|$)/.test(rest) && !THEMATIC.test(rest));
  };

  // Whether a list item on this line interrupts something (micromark's `interrupt`): set when
  // every open container matched and a paragraph or an indented code block is open, and kept
  // for the whole line, also inside a block quote or list item the line opens (`a\n> 2. b`
  // and `a\n1. 2. b` keep `2.` as text). Such an item may not be empty, nor ordered unless
  // numbered `1`. (CommonMark asks this of a paragraph only, and not inside a new container;
  // remark is the oracle.) An HTML block of kind 7 may follow indented code: micromark's check
  // for it asks whether a paragraph is being interrupted.
  let interrupt = false;

  const closeUnmatched = (): void => {
    if (!allClosed) {
      while (oldtip !== lastMatched) {
        const parent = oldtip.parent!;
        finalize(oldtip);
        oldtip = parent;
      }
      allClosed = true;
    }
  };

  const canContain = (parent: Node["type"], child: Node["type"]): boolean =>
    parent === "document" || parent === "blockquote" || parent === "listItem" ? child !== "listItem" : parent === "list" ? child === "listItem" : false;

  const addChild = (type: Node["type"], start: number): Node => {
    while (!canContain(tip.type, type)) finalize(tip);
    const node: Node = { type, start, end: start, children: NO_CHILDREN, parent: tip, open: true };
    if (tip.children === NO_CHILDREN) tip.children = [node];
    else tip.children.push(node);
    tip = node;
    return node;
  };

  const addParagraphLine = (p: Node): void => {
    if (p.lines === NO_LINES) p.lines = [lineStart + offset, lineEnd()];
    else p.lines!.push(lineStart + offset, lineEnd());
    p.end = lineEnd();
  };

  // 0: matched, 1: not matched, 2: line consumed (closing fence).
  const continues = (c: Node): 0 | 1 | 2 => {
    switch (c.type) {
      case "document":
      case "list":
        return 0;
      case "blockquote":
        if (!indented && line[nextNonspace] === ">") {
          advanceNextNonspace();
          advanceOffset(1, false);
          if (isSpaceOrTab(line[offset])) advanceOffset(1, true);
          c.lastContentEnd = lineEnd();
          return 0;
        }
        return 1;
      case "listItem":
        if (blank) {
          if (c.children.length === 0) {
            // CommonMark ends an empty item at a blank line; micromark keeps it open (and the
            // next non-blank line lazy) until a line that is not blank.
            emptyItemBlank = true;
            return 1;
          }
          advanceNextNonspace();
        } else if (indent >= c.markerOffset! + c.padding!) {
          advanceOffset(c.markerOffset! + c.padding!, true);
        } else return 1;
        return 0;
      case "code":
        if (c.fenced) {
          const m = indent <= 3 && line[nextNonspace] === c.fenceChar ? FENCE_CLOSE.exec(line.slice(nextNonspace)) : null;
          if (m && m[0].length >= c.fenceLength!) {
            c.end = lineEnd();
            c.closedByFence = true;
            finalize(c);
            return 2;
          }
          let i = c.fenceOffset!;
          while (i > 0 && isSpaceOrTab(line[offset])) {
            advanceOffset(1, true);
            i--;
          }
          return 0;
        }
        if (indent >= 4) advanceOffset(4, true);
        else if (blank) advanceNextNonspace();
        else return 1;
        return 0;
      case "html":
        return blank && (c.htmlType === 6 || c.htmlType === 7) ? 1 : 0;
      case "paragraph":
        return blank ? 1 : 0;
      default:
        return 1;
    }
  };

  // The list marker parseListMarker found: what blockStart makes its list and item of (set
  // here, not returned as an object: a handoff is mostly list items, and the session-start
  // hook parses one on every start, docs/decisions/plain-bundle.md).
  let markerType: "bullet" | "ordered" = "bullet";
  let markerChar: string | undefined;
  let markerDelimiter: string | undefined;
  let markerOffset = 0;
  let markerPadding = 0;
  let markerStart = 0;
  let markerEnd = 0;

  const parseListMarker = (): boolean => {
    if (indent >= 4) return false;
    const c = line[nextNonspace];
    let len: number;
    if (c === "*" || c === "+" || c === "-") {
      markerType = "bullet";
      markerChar = c;
      markerDelimiter = undefined;
      len = 1;
    } else {
      // An ordered marker: 1 to 9 digits, then `.` or `)`; one interrupting (see `interrupt`)
      // must number 1.
      let d = nextNonspace;
      while (d - nextNonspace < 10 && line.charCodeAt(d) >= 48 && line.charCodeAt(d) <= 57) d++;
      const digits = d - nextNonspace;
      const delimiter = line[d];
      if (digits < 1 || digits > 9 || (delimiter !== "." && delimiter !== ")")) return false;
      // micromark takes only the single digit `1` there, not `01` (CommonMark's start number 1).
      if (interrupt && (digits !== 1 || line[nextNonspace] !== "1")) return false;
      markerType = "ordered";
      markerChar = undefined;
      markerDelimiter = delimiter;
      len = digits + 1;
    }
    const after = line[nextNonspace + len];
    if (!(after === undefined || isSpaceOrTab(after))) return false;
    if (interrupt && !NONBLANK.test(line.slice(nextNonspace + len))) return false;
    const first = nextNonspace;
    advanceNextNonspace();
    advanceOffset(len, true);
    const spacesStartCol = column;
    const spacesStartOffset = offset;
    let ch: string | undefined;
    do {
      advanceOffset(1, true);
      ch = line[offset];
    } while (column - spacesStartCol < 5 && isSpaceOrTab(ch));
    const blankItem = line[offset] === undefined;
    const spaces = column - spacesStartCol;
    if (spaces >= 5 || spaces < 1 || blankItem) {
      markerPadding = len + 1;
      column = spacesStartCol;
      offset = spacesStartOffset;
      partialTab = false;
      if (isSpaceOrTab(line[offset])) advanceOffset(1, true);
    } else markerPadding = len + spaces;
    markerOffset = indent;
    markerStart = lineStart + first;
    // An item with no content ends where its first line does (remark's position).
    markerEnd = blankItem ? lineEnd() : lineStart + first + len;
    return true;
  };

  const depthOf = (n: Node): number => {
    let d = 0;
    for (let p = n.parent; p !== null; p = p.parent) d++;
    return d;
  };

  // Block starts, tried in CommonMark's order. 0: none, 1: container started, 2: leaf started.
  const blockStart = (container: Node): 0 | 1 | 2 => {
    const c = line[nextNonspace];
    // Past MAX_DEPTH nested containers, markers are text: every line walks the open
    // containers, so unbounded nesting would make hostile input quadratic.
    const deep = depthOf(container) >= MAX_DEPTH;
    if (!indented) {
      if (c === ">" && !deep) {
        advanceNextNonspace();
        advanceOffset(1, false);
        if (isSpaceOrTab(line[offset])) advanceOffset(1, true);
        closeUnmatched();
        addChild("blockquote", lineStart + nextNonspace).lastContentEnd = lineEnd();
        return 1;
      }
      // Each try below needs its first character: most lines skip the slice and the regexes.
      const rest = c === "#" || c === "`" || c === "~" || c === "<" || c === "=" || c === "-" || c === "*" || c === "_" ? line.slice(nextNonspace) : "";
      const atx = c === "#" ? ATX.exec(rest) : null;
      if (atx) {
        advanceNextNonspace();
        closeUnmatched();
        const h = addChild("heading", lineStart + nextNonspace);
        h.depth = atx[0].trim().length;
        h.end = lineEnd();
        offset = line.length;
        finalize(h);
        return 2;
      }
      const fence = c === "`" || c === "~" ? FENCE_OPEN.exec(rest) : null;
      if (fence) {
        closeUnmatched();
        const f = addChild("code", lineStart + nextNonspace);
        f.fenced = true;
        f.fenceChar = fence[0][0];
        f.fenceLength = fence[0].length;
        f.fenceOffset = indent;
        f.end = lineEnd();
        advanceNextNonspace();
        offset = line.length;
        return 2;
      }
      if (c === "<") {
        // Kind 7 interrupts no paragraph, nor a lazy line's: there the scanner keeps CommonMark
        // against micromark (docs/decisions/line-scanner.md, lazy-html-tag).
        for (let type = 1; type <= 7; type++) {
          if (HTML_OPEN[type]!.test(rest) && (type < 7 || (container.type !== "paragraph" && !(!allClosed && !blank && tip.type === "paragraph")))) {
            closeUnmatched();
            // remark starts the block at its line's indentation, after the containers' markers.
            const h = addChild("html", lineStart + offset + (partialTab ? 1 : 0));
            h.htmlType = type;
            return 2;
          }
        }
      }
      if (container.type === "paragraph" && (c === "=" || c === "-") && SETEXT.test(rest)) {
        const p = container;
        closeUnmatched();
        let definitions = true;
        for (let i = 0; i < p.lines!.length && definitions; i += 2) definitions = isDefinition(p.lines![i]!, p.lines![i + 1]!);
        if (definitions) {
          // After a paragraph of definitions only, the line is a thematic break or starts a
          // paragraph (remark).
          finalize(p);
          if (!THEMATIC.test(rest)) {
            addChild("paragraph", lineStart + nextNonspace).lines = NO_LINES;
            advanceNextNonspace();
            return 2;
          }
        } else {
          // remark gives the leading definitions as nodes and still keeps them in the
          // heading's range: so does the scanner.
          insertDefinitions(p);
          p.type = "heading";
          finalize(p);
          p.depth = rest[0] === "=" ? 1 : 2;
          p.end = lineEnd();
          offset = line.length;
          return 2;
        }
      }
      if ((c === "*" || c === "_" || c === "-") && THEMATIC.test(rest)) {
        closeUnmatched();
        const t = addChild("thematicBreak", lineStart + nextNonspace);
        t.end = lineEnd();
        offset = line.length;
        finalize(t);
        return 2;
      }
    }
    if ((!indented || container.type === "list") && !deep) {
      if (parseListMarker()) {
        closeUnmatched();
        if (tip.type !== "list" || tip.listType !== markerType || tip.bulletChar !== markerChar || tip.delimiter !== markerDelimiter) {
          const list = addChild("list", markerStart);
          list.listType = markerType;
          list.bulletChar = markerChar;
          list.delimiter = markerDelimiter;
        }
        const item = addChild("listItem", markerStart);
        item.markerOffset = markerOffset;
        item.padding = markerPadding;
        item.markerEnd = markerEnd;
        return 1;
      }
    }
    if (indented && tip.type !== "paragraph" && !blank) {
      // A tab that the containers' markers took in part: remark starts the code after it.
      const start = lineStart + offset + (partialTab ? 1 : 0);
      // micromark takes no line of indented code from a lazy line (some open container not
      // matched, or an empty list item that blank lines ended): the block ends with it.
      const lazy = (!allClosed && oldtip !== lastMatched) || afterEmptyItem;
      advanceOffset(4, true);
      closeUnmatched();
      addChild("code", start).lazy = lazy;
      return 2;
    }
    return 0;
  };

  const incorporate = (): void => {
    afterEmptyItem = emptyItemBlank && NONBLANK.test(line);
    if (afterEmptyItem) emptyItemBlank = false;
    let container: Node = doc;
    oldtip = tip;
    offset = 0;
    column = 0;
    partialTab = false;
    blank = false;
    let last: Node | undefined;
    while ((last = container.children[container.children.length - 1]) && last.open) {
      container = last;
      findNextNonspace();
      const r = continues(container);
      if (r === 2) return;
      if (r === 1) {
        container = container.parent!;
        break;
      }
    }
    allClosed = container === oldtip;
    lastMatched = container;
    interrupt = (oldtip.type === "paragraph" || (oldtip.type === "code" && !oldtip.fenced)) && (allClosed || container === oldtip.parent);
    let matchedLeaf = container.type !== "paragraph" && (container.type === "code" || container.type === "html");
    while (!matchedLeaf) {
      findNextNonspace();
      if (!indented && !MAYBE_SPECIAL.test(line[nextNonspace] ?? "")) {
        advanceNextNonspace();
        break;
      }
      const r = blockStart(container);
      if (r === 0) {
        advanceNextNonspace();
        break;
      }
      container = tip;
      if (r === 2) matchedLeaf = true;
    }
    if (!allClosed && !blank && tip.type === "paragraph") {
      addParagraphLine(tip);
      return;
    }
    closeUnmatched();
    const t = container.type;
    if (t === "code" || t === "html") {
      if (t === "code" && !container.fenced) {
        // remark keeps a whitespace line of 4 columns or more as code content.
        if (!blank || indent >= 4) container.lastContentEnd = lineEnd();
        if (container.lazy) finalize(container);
      } else container.end = lineEnd();
      if (t === "html" && container.htmlType! <= 5 && HTML_CLOSE[container.htmlType!]!.test(line.slice(offset))) {
        container.closedByFence = true;
        finalize(container);
      }
    } else if (t === "paragraph") {
      addParagraphLine(container);
    } else if (t === "heading" || t === "thematicBreak") {
      // complete already
    } else if (offset < line.length && !blank) {
      const p = addChild("paragraph", lineStart + nextNonspace);
      p.lines = NO_LINES;
      advanceNextNonspace();
      addParagraphLine(p);
    }
  };

  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  for (const l of lines) {
    line = l;
    incorporate();
    // Only empty lines count here: remark keeps a fence's whitespace lines as its content.
    if (l === "") {
      blankRun++;
      lastBlankStart = lineStart;
    } else blankRun = 0;
    lineStart += l.length + 1;
  }
  atEnd = true;
  while (tip !== doc) finalize(tip);
  return doc;
}
