import { Client } from '@svc-kit/client';

/** SVC_API_KEY is a workspace API key (`svc_…`); SVC_BASE_URL the service's address. */
export function createClient(env: Record<string, string | undefined> = process.env) {
  // An unset key is refused here, with a clear message, rather than sent as "Bearer undefined".
  return new Client({ apiKey: env.SVC_API_KEY, baseUrl: env.SVC_BASE_URL ?? 'https://api.example.com' });
}
