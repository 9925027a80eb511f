import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DefaultTheme } from 'vitepress';

type SidebarItem = DefaultTheme.SidebarItem;

export const guideSidebar: SidebarItem[] = [
  {
    text: 'Receive webhooks',
    items: [
      { text: 'Quickstart', link: '/guide/quickstart' },
      { text: 'Develop locally (listen)', link: '/guide/develop-locally' },
      { text: 'Delivery contract', link: '/guide/delivery-contract' },
      { text: 'Event catalogue', link: '/guide/events' },
      { text: 'Rotating the secret', link: '/guide/secret-rotation' },
      {
        text: 'Verify by hand (six languages)',
        link: '/guide/verify-by-hand',
        collapsed: true,
        items: ['node', 'python', 'go', 'ruby', 'php', 'java'].map((slug) => ({
          text:
            { node: 'Node.js', python: 'Python', go: 'Go', ruby: 'Ruby', php: 'PHP', java: 'Java' }[slug] ??
            slug,
          link: `/guide/verify-by-hand/${slug}`,
        })),
      },
      { text: 'Troubleshooting', link: '/guide/troubleshooting' },
      { text: 'svc-webhooks CLI', link: '/guide/cli' },
      { text: 'Test vectors', link: '/guide/test-vectors' },
    ],
  },
  {
    text: 'Call the API',
    items: [
      { text: 'API client', link: '/guide/api-client' },
      { text: 'Testing with the mock and the sandbox', link: '/guide/testing' },
      { text: 'Error codes', link: '/guide/error-codes' },
    ],
  },
  {
    text: 'Run the service',
    items: [{ text: 'Reference service', link: '/guide/reference-service' }],
  },
  {
    text: 'Project',
    items: [
      { text: 'Changelog', link: '/guide/changelog' },
      { text: 'Choices the spec leaves open', link: '/guide/open-choices' },
    ],
  },
  {
    text: 'Reference',
    items: [
      { text: 'HTTP API', link: '/api/http/' },
      { text: 'TypeScript API', link: '/api/' },
    ],
  },
];

/**
 * The reference sidebar is written by `scripts/build-reference.mjs` next to the generated pages; before the
 * first generation (a fresh clone running `vitepress dev`) it is simply empty.
 */
export function referenceSidebar(): SidebarItem[] {
  const file = fileURLToPath(new URL('../api/sidebar.json', import.meta.url));
  if (!existsSync(file)) return [];
  return JSON.parse(readFileSync(file, 'utf8')) as SidebarItem[];
}
