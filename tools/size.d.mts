export const GENERATED: Set<string>;
export function measure(root?: string): {
  total: number;
  folders: Map<string, number>;
  longLines: string[];
  bigFiles: string[];
  bigFunctions: string[];
};
