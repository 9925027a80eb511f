/**
 * The local search index is a few hundred kilobytes; VitePress fetches it only when the search box first
 * opens, which showed an empty panel meanwhile. This fetches it once the page is idle, and marks the page
 * (`data-search-index`) so the stylesheet can say "Loading…" in the box until it has arrived.
 */
export function preloadSearchIndex(): void {
  const root = document.documentElement;
  root.dataset.searchIndex = 'loading';
  const load = () =>
    import('@localSearchIndex')
      .then((module) => module.default.root?.())
      .then(
        () => {
          root.dataset.searchIndex = 'ready';
        },
        () => {
          // VitePress loads it again when the box opens and reports its own failure there.
          root.dataset.searchIndex = 'ready';
        },
      );
  if ('requestIdleCallback' in window) window.requestIdleCallback(() => void load(), { timeout: 2000 });
  else setTimeout(() => void load(), 500);
}
