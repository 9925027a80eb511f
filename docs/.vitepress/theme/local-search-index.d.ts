// The virtual module VitePress generates for the local search: one loader per locale.
declare module '@localSearchIndex' {
  const data: Record<string, (() => Promise<unknown>) | undefined>;
  export default data;
}
