// Scenarios that fail today for a known reason, each with the fix that will make it pass.
// A listed scenario runs as `it.fails`: while it fails the suite is green, and the day the fix
// lands vitest reports "expected to fail" — then delete its line here. Keys are
// `<harness>/<scenario>` as the test files name them.
export const KNOWN_FAILURES: Record<string, string> = {};
