import { defineConfig } from 'vitepress';
import { guideSidebar, referenceSidebar } from './sidebar';

/** `api/webhooks.md`, `api/contract/…`: the generated TypeScript pages (the HTTP reference is `api/http/`). */
function isTypeScriptReference(relativePath: string): boolean {
  return relativePath.startsWith('api/') && !relativePath.startsWith('api/http/');
}

// The site is fully static and self-contained: no web fonts, analytics or remote scripts, so it works
// offline and the browser test can treat any failed request as a bug.
export default defineConfig({
  title: 'svc-kit',
  description:
    'TypeScript toolkit for the service /v1 API: verify signed webhooks, call the API with a typed client, test against a mock.',
  lang: 'en-GB',
  cleanUrls: false,
  // Generated fragments are pulled into pages with @include; they are not pages of their own.
  srcExclude: [
    'api/partials/**',
    'guide/partials/**',
    'snippets/**',
    'test/**',
    'test-results/**',
    'scripts/**',
    'public/**',
  ],
  // A broken link between pages fails the build, before the browser test even starts.
  ignoreDeadLinks: false,
  head: [['link', { rel: 'icon', type: 'image/svg+xml', href: '/favicon.svg' }]],
  vite: {
    // The generated reference pages of @svc-kit/contract carry its large zod types; each page's chunk is
    // only loaded on that page, so its size is no concern for the rest of the site.
    build: { chunkSizeWarningLimit: 1000 },
  },
  markdown: {
    theme: { light: 'github-light', dark: 'github-dark' },
  },
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/quickstart', activeMatch: '^/guide/' },
      { text: 'HTTP API', link: '/api/http/', activeMatch: '^/api/http/' },
      { text: 'TypeScript API', link: '/api/', activeMatch: '^/api/(?!http/)' },
    ],
    sidebar: {
      '/guide/': guideSidebar,
      '/api/': referenceSidebar(),
    },
    search: {
      provider: 'local',
      options: {
        // Guides and error codes rank above generated internals: the TypeScript reference is indexed by
        // its headings (symbol names) only, so its long type listings do not outrank the prose.
        _render(src, env, md) {
          const html = md.render(src, env);
          if (!isTypeScriptReference(env.relativePath)) return html;
          const headings = src.split('\n').filter((line) => /^#{1,6} /.test(line));
          return md.render(headings.join('\n\n'), env);
        },
        miniSearch: {
          searchOptions: {
            boostDocument: (id: string) => (id.startsWith('/guide/') ? 2 : 1),
          },
        },
      },
    },
    outline: { level: [2, 3] },
    footer: { message: 'MIT licensed. Built from the svc-kit repository.' },
  },
});
