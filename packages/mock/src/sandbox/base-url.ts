/** `https://api.example.test/` → `https://api.example.test`; a path prefix is kept (`…/api`). */
export function normaliseBaseUrl(baseUrl: string): { base: string; origin: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`createSandbox: baseUrl "${baseUrl}" is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError('createSandbox: baseUrl must be an http or https URL');
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new TypeError('createSandbox: baseUrl must not carry a query, a fragment or credentials');
  }
  return { base: `${url.origin}${url.pathname.replace(/\/+$/, '')}`, origin: url.origin };
}
