import { fileURLToPath } from 'node:url';

export const docsDir = fileURLToPath(new URL('../../', import.meta.url));
export const distDir = fileURLToPath(new URL('../../.vitepress/dist/', import.meta.url));
export const resultsDir = fileURLToPath(new URL('../../test-results/', import.meta.url));
