/**
 * Fills an OpenAPI path template (`/v1/identities/{slug}/contacts/{fingerprint}`) with values, each
 * percent-encoded as one path segment so that a `/` or `?` in a value cannot change the route.
 * A placeholder without a value, or a value with a lone surrogate, throws a `TypeError`.
 */
export function expandPath(template: string, params: Readonly<Record<string, string>> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`missing path parameter "${name}" for ${template}`);
    try {
      return encodeURIComponent(value);
    } catch {
      // Only a lone UTF-16 surrogate makes encodeURIComponent throw; it has no UTF-8 form to send.
      throw new TypeError(`path parameter "${name}" is not well-formed Unicode`);
    }
  });
}

/** `/v1/workspace/webhooks/{id}` → `/v1/workspace/webhooks/:id`, the form Express, Fastify and msw route on. */
export function toColonPath(template: string): string {
  return template.replace(/\{(\w+)\}/g, ':$1');
}
