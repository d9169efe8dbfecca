export const EAGER_FUNCTIONS: Set<string>;
export function eagerFunctions(text: string, names?: Set<string>): string;
