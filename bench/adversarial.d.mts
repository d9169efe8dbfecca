/** The hostile units of bench/adversarial.mjs, by name. */
export const ADVERSARIAL_UNITS: Record<string, string>;
/** About `bytes` of text made of every unit in turn. */
export function adversarialDocument(bytes?: number): string;
