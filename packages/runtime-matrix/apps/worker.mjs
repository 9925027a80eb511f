// workerd (Cloudflare Workers): a module worker. Bundled by the matrix with the conditions wrangler uses.
import { createWebApp } from './web.mjs';

let app;
export default {
  fetch(request) {
    // Built on the first request: bindings reach process.env when the worker runs, not when it is parsed.
    app ??= createWebApp();
    return app(request);
  },
};
