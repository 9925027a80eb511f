// @ts-check
import { fileURLToPath } from 'node:url';

/** The VitePress source root (`docs/`). */
export const docsRoot = fileURLToPath(new URL('../../', import.meta.url));
/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
/** Everything generated lives here; the folder is gitignored and rebuilt on every `npm run docs`. */
export const apiRoot = fileURLToPath(new URL('../../api/', import.meta.url));
