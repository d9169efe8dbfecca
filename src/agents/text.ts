/** `hook --format text` (the default, the reference's output): the sentences as they are. */
export function textEnvelope(text: string): string {
  return `${text}\n`;
}
