// The matrix's own routes in h3 (see routes.mjs), beside the README's h3 quickstart.
import { createFetchHandler } from '@svc-kit/webhooks/fetch';
import { H3 } from 'h3';
import { jsonResponse } from './routes.mjs';

export function h3Routes(routes) {
  const handleRotation = createFetchHandler(routes.rotation);
  const handleParsed = createFetchHandler(routes.parsed);
  const app = new H3();
  app.post('/rotation', (event) => handleRotation(event.req));
  app.post('/parsed', async (event) => {
    await event.req.json();
    return handleParsed(event.req);
  });
  app.post('/verify', async (event) =>
    jsonResponse(routes.verify(await event.req.text(), event.req.headers)),
  );
  return app;
}
