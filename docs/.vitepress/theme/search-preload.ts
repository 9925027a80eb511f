/**
 * The local search index is a few hundred kilobytes that VitePress fetches only when the search box opens,
 * which showed an empty panel meanwhile. This starts the fetch as soon as the reader shows the intent to
 * search (pointer over or focus on the search button, Ctrl/Cmd+K or "/"), and marks the page
 * (`data-search-index`) so that the stylesheet says "Loading…" in the box until the index has arrived.
 */
export function preloadSearchIndex(): void {
  const root = document.documentElement;
  root.dataset.searchIndex = 'loading';
  let started = false;
  const load = () => {
    if (started) return;
    started = true;
    import('@localSearchIndex')
      .then((module) => module.default.root?.())
      // On failure VitePress loads it again when the box opens, and reports the error there.
      .finally(() => {
        root.dataset.searchIndex = 'ready';
      });
  };
  const onSearchButton = (event: Event) => {
    if (event.target instanceof Element && event.target.closest('#local-search')) load();
  };
  document.addEventListener('pointerover', onSearchButton, { passive: true });
  document.addEventListener('focusin', onSearchButton);
  document.addEventListener('keydown', (event) => {
    if ((event.key === 'k' && (event.ctrlKey || event.metaKey)) || event.key === '/') load();
  });
}
