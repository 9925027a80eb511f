/*
 * Kept only for test/portal/support/instance.ts (another change's area), which still imports buildApp from
 * here: the composition root is src/app.ts. Remove once that import names src/app.js.
 */
export { type AppOptions, buildApp } from '../app.js';
