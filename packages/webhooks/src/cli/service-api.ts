import { UsageError } from './usage-error';

export const API_KEY_ENV = 'SVC_API_KEY';
export const BASE_URL_ENV = 'SVC_BASE_URL';
export const DEFAULT_BASE_URL = 'http://localhost:8080';

/** Where the service is and how to authenticate, from flags first, then the environment. */
export interface ServiceTarget {
  baseUrl: string;
  apiKey: string;
}

export function serviceTarget(
  values: { 'base-url'?: string | undefined; 'api-key'?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
): ServiceTarget {
  const apiKey = values['api-key'] ?? env[API_KEY_ENV];
  if (apiKey === undefined || apiKey === '') {
    throw new UsageError(
      `No API key: set ${API_KEY_ENV} (preferred: it stays out of shell history) or pass --api-key.`,
    );
  }
  const raw = values['base-url'] ?? env[BASE_URL_ENV] ?? DEFAULT_BASE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--base-url ${raw} is not a URL (for example ${DEFAULT_BASE_URL}).`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--base-url must be an http or https URL, not ${url.protocol}`);
  }
  return { baseUrl: url.href.replace(/\/+$/, ''), apiKey };
}

/** A refusal of the service, with what its error body said. */
export class ServiceRefusal extends Error {
  override readonly name = 'ServiceRefusal';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
  ) {
    super(message);
  }

  /** One line for the terminal, with what to do for the refusals a person can fix. */
  describe(): string {
    const hint =
      this.status === 401
        ? ' The API key was refused: it is revoked, expired or mistyped. Mint a new one in the portal.'
        : this.code === 'forbidden' && this.message.includes('permission')
          ? ' The key needs the permission service:workspace:admin.'
          : '';
    const id = this.requestId === undefined ? '' : ` (request ${this.requestId})`;
    return `the service refused: ${this.status} ${this.code}: ${this.message}${id}.${hint}`;
  }
}

/** The service could not be reached at all. */
export class ServiceUnreachable extends Error {
  override readonly name = 'ServiceUnreachable';
}

export async function refusalOf(response: Response): Promise<ServiceRefusal> {
  const text = await response.text().catch(() => '');
  try {
    const { error } = JSON.parse(text) as { error: { code: string; message: string; request_id?: string } };
    return new ServiceRefusal(response.status, error.code, error.message, error.request_id);
  } catch {
    return new ServiceRefusal(
      response.status,
      'unknown',
      text.slice(0, 200) || response.statusText,
      undefined,
    );
  }
}

/** One call to the service; a refusal throws `ServiceRefusal`, a network failure `ServiceUnreachable`. */
export async function callService(
  target: ServiceTarget,
  method: string,
  path: string,
  options: { body?: unknown; signal?: AbortSignal; stream?: boolean } = {},
): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(`${target.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${target.apiKey}`,
        accept: options.stream ? 'text/event-stream' : 'application/json',
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new ServiceUnreachable(
      `cannot reach the service at ${target.baseUrl} (${cause?.code ?? cause?.message ?? (error as Error).message})`,
    );
  }
  if (!response.ok) throw await refusalOf(response);
  return response;
}
