// @ts-check
/**
 * @typedef {{ name: string, dir: string, slug: string, summary: string }} PublishedPackage
 */

/**
 * The published packages whose every export gets a page in the TypeScript reference.
 * @type {readonly PublishedPackage[]}
 */
export const PUBLISHED_PACKAGES = [
  { name: '@svc-kit/webhooks', dir: 'packages/webhooks', slug: 'webhooks', summary: 'Receiver SDK' },
  {
    name: '@svc-kit/contract',
    dir: 'packages/contract',
    slug: 'contract',
    summary: 'Schemas and operations',
  },
  { name: '@svc-kit/client', dir: 'packages/client', slug: 'client', summary: 'Typed API client' },
  { name: '@svc-kit/mock', dir: 'packages/mock', slug: 'mock', summary: 'msw sandbox of the API' },
];
