import { fileURLToPath } from 'node:url';

// The monorepo's root: where node_modules (and @svc-kit/webhooks, linked) is found.
const root = fileURLToPath(new URL('../../../../', import.meta.url));

export default {
  turbopack: { root },
  outputFileTracingRoot: root,
};
