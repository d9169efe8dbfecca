// The handoff template, bundled as text (esbuild and vitest both read `?raw` with this attribute).
declare module "*.md?raw" {
  const text: string;
  export default text;
}
