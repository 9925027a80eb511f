import { useEffect, useState } from 'preact/hooks';

/** The hash route (`#/keys` → `['keys']`): the server serves one index.html, the page picks the view. */
export function useRoute(): string[] {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodedSegment);
}

/**
 * A segment as its page takes it. A malformed escape (a shared link cut short inside `%E0%A4`) is kept as
 * typed: decodeURIComponent would throw during render and leave a blank page instead of the id's refusal.
 */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function go(path: string): void {
  location.hash = `#/${path}`;
}
