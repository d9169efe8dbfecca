// PLACEHOLDER until issue 4 lands: the guard helper replaces this file.
/** An invisible character found in a text (contract §4). Line and column are 1-based. */
export interface InvisibleHit {
  line: number;
  column: number;
  /** e.g. "U+200B" */
  codePoint: string;
}

/** Lists the forbidden invisible characters of `text`; pure. */
export function findInvisible(_text: string): InvisibleHit[] {
  return [];
}

/**
 * Renders file bytes for display: forbidden invisible code points become `<U+XXXX>`,
 * invalid UTF-8 bytes `<0xNN>`. `changed` counts the replacements.
 */
export function renderVisible(bytes: Uint8Array): { text: string; changed: number } {
  return { text: Buffer.from(bytes).toString("utf8"), changed: 0 };
}
