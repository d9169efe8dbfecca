/**
 * Whether a branch name, path or anchor line may hold a vendor's token at all: every shape of
 * the redaction rules has a run of 16 or more letters, digits and underscores mixing letters
 * and digits; names of words (`feature/login-2024-fix`) have none. Hot callers (`drift`) ask
 * this before loading the redaction rules' chunk (docs/decisions/redaction-prefixes.md). Pure.
 */
export function mayHoldToken(text: string): boolean {
  for (const m of text.matchAll(/[A-Za-z0-9_]{16,}/g)) if (/\d/.test(m[0]) && /[A-Za-z]/.test(m[0])) return true;
  return false;
}
