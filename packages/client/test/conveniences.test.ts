// What the client does for you without being asked: the API key from the environment, list defaults, a
// log of requests and retries, checked error codes.
import {
  APIError,
  Client,
  ClientValidationError,
  DEFAULT_DELIVERIES_LIMIT,
  type Logger,
} from '@svc-kit/client';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { delivery, endpoint, errorBody } from './support/fixtures.js';
import { API_KEY, BASE_URL, record, type Seen, useServer } from './support/server.js';

const server = useServer();
afterEach(() => {
  vi.unstubAllEnvs();
});

const WEBHOOKS = `${BASE_URL}/v1/workspace/webhooks`;

function answerList(seen: Seen[] = []) {
  server.use(
    http.get(WEBHOOKS, async ({ request }) => {
      seen.push(await record(request));
      return HttpResponse.json(
        { endpoints: [endpoint], events: [], enabled: true },
        {
          headers: { 'x-request-id': 'req_list' },
        },
      );
    }),
  );
  return seen;
}

function constructionError(options: unknown): ClientValidationError {
  try {
    new Client(options as ConstructorParameters<typeof Client>[0]);
  } catch (error) {
    if (error instanceof ClientValidationError) return error;
    throw error;
  }
  throw new Error('expected the constructor to refuse');
}

/** Runs `body` while `globalThis.process` is replaced, as on a runtime without it (synchronously only). */
function withProcess(replacement: unknown, body: () => void): void {
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'process');
  Object.defineProperty(globalThis, 'process', { value: replacement, configurable: true, writable: true });
  try {
    body();
  } finally {
    if (saved) Object.defineProperty(globalThis, 'process', saved);
  }
}

describe('the API key', () => {
  it('comes from SVC_API_KEY when the options give none', async () => {
    vi.stubEnv('SVC_API_KEY', API_KEY);
    const seen = answerList();
    await new Client({ baseUrl: BASE_URL }).webhooks.list();
    expect(seen[0]?.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
  });

  it('given in the options wins over the environment', async () => {
    vi.stubEnv('SVC_API_KEY', 'svc_env_other');
    const seen = answerList();
    await new Client({ apiKey: API_KEY, baseUrl: BASE_URL }).webhooks.list();
    expect(seen[0]?.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
  });

  it('is not read from the environment in session mode', async () => {
    vi.stubEnv('SVC_API_KEY', API_KEY);
    const seen = answerList();
    await new Client({ session: true, baseUrl: BASE_URL }).webhooks.list();
    expect(seen[0]?.headers.get('authorization')).toBeNull();
  });

  it('missing everywhere is refused at construction, naming the variable', () => {
    vi.stubEnv('SVC_API_KEY', undefined);
    const error = constructionError({ baseUrl: BASE_URL });
    expect(error.issues[0]).toMatchObject({ path: ['apiKey'] });
    expect(error.message).toMatch(/SVC_API_KEY/);
  });

  it('from the environment is checked like a given one, and never echoed', () => {
    vi.stubEnv('SVC_API_KEY', `${API_KEY}\n`);
    const error = constructionError({ baseUrl: BASE_URL });
    expect(error.message).toMatch(/trailing newline/);
    expect(error.message).not.toContain(API_KEY);
  });

  it('is simply missing, not a crash, where there is no process or reading it is forbidden', () => {
    withProcess(undefined, () => {
      expect(constructionError({ baseUrl: BASE_URL }).message).toMatch(/SVC_API_KEY/);
    });
    const denied = {
      get env(): never {
        throw new Error('PermissionDenied: requires env access');
      },
    };
    withProcess(denied, () => {
      expect(constructionError({ baseUrl: BASE_URL }).message).toMatch(/SVC_API_KEY/);
    });
  });
});

describe('listDeliveries', () => {
  function answerDeliveries(seen: Seen[]) {
    server.use(
      http.get(`${WEBHOOKS}/wh_1/deliveries`, async ({ request }) => {
        seen.push(await record(request));
        return HttpResponse.json({ deliveries: [delivery] });
      }),
    );
  }
  const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL });

  it(`asks for ${DEFAULT_DELIVERIES_LIMIT} deliveries when no limit is given`, async () => {
    const seen: Seen[] = [];
    answerDeliveries(seen);
    expect(await client.webhooks.listDeliveries('wh_1')).toEqual({ deliveries: [delivery] });
    await client.webhooks.listDeliveries('wh_1', {});
    await client.webhooks.listDeliveries('wh_1', { limit: 5 });
    expect(DEFAULT_DELIVERIES_LIMIT).toBe(20);
    expect(seen.map((request) => request.url.searchParams.get('limit'))).toEqual(['20', '20', '5']);
  });

  it('still refuses a limit out of range, before sending', async () => {
    await expect(client.webhooks.listDeliveries('wh_1', { limit: 101 })).rejects.toBeInstanceOf(
      ClientValidationError,
    );
  });
});

describe('the log', () => {
  function recordingLogger() {
    const lines: { level: string; line: string }[] = [];
    const logger: Logger = {
      error: (line) => lines.push({ level: 'error', line }),
      warn: (line) => lines.push({ level: 'warn', line }),
      info: (line) => lines.push({ level: 'info', line }),
      debug: (line) => lines.push({ level: 'debug', line }),
    };
    return { lines, logger };
  }

  it('at debug, shows each request and its answer, without the API key', async () => {
    answerList();
    const { lines, logger } = recordingLogger();
    await new Client({ apiKey: API_KEY, baseUrl: BASE_URL, logLevel: 'debug', logger }).webhooks.list();
    expect(lines).toEqual([
      { level: 'debug', line: `[svc-kit/client] listWebhooks: GET ${WEBHOOKS} (attempt 1)` },
      {
        level: 'debug',
        line: expect.stringMatching(/^\[svc-kit\/client\] listWebhooks: 200 in \d+ ms \(request req_list\)$/),
      },
    ]);
    expect(JSON.stringify(lines)).not.toContain(API_KEY);
  });

  it('is quiet by default (warn), and SVC_LOG raises it', async () => {
    answerList();
    const quiet = recordingLogger();
    await new Client({ apiKey: API_KEY, baseUrl: BASE_URL, logger: quiet.logger }).webhooks.list();
    expect(quiet.lines).toEqual([]);

    vi.stubEnv('SVC_LOG', 'debug');
    const loud = recordingLogger();
    await new Client({ apiKey: API_KEY, baseUrl: BASE_URL, logger: loud.logger }).webhooks.list();
    expect(loud.lines.map(({ level }) => level)).toEqual(['debug', 'debug']);
  });

  it('reports a retry at info, with the reason and the wait', async () => {
    let attempts = 0;
    server.use(
      http.get(WEBHOOKS, () => {
        attempts++;
        if (attempts === 1)
          return HttpResponse.json(errorBody('internal_error', 'boom', 'req_1'), { status: 503 });
        return HttpResponse.json({ endpoints: [], events: [], enabled: true });
      }),
    );
    const { lines, logger } = recordingLogger();
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      logLevel: 'info',
      logger,
      initialRetryDelayMs: 1,
    });
    await client.webhooks.list();
    expect(lines).toEqual([
      {
        level: 'info',
        line: expect.stringMatching(
          /^\[svc-kit\/client\] listWebhooks: retrying in \d+ ms \(retry 1 of 2\) after InternalServerError: /,
        ),
      },
    ]);
  });

  it('cannot break a call when the logger throws', async () => {
    answerList();
    const throwing: Logger = {
      error: () => {
        throw new Error('logger down');
      },
      warn: () => {
        throw new Error('logger down');
      },
      info: () => {
        throw new Error('logger down');
      },
      debug: () => {
        throw new Error('logger down');
      },
    };
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, logLevel: 'debug', logger: throwing });
    await expect(client.webhooks.list()).resolves.toMatchObject({ enabled: true });
  });

  it.each([
    ['an unknown level', { logLevel: 'verbose' }, 'logLevel'],
    ['a logger without the four methods', { logger: { log: () => {} } }, 'logger'],
  ])('refuses %s at construction', (_name, extra, field) => {
    const error = constructionError({ apiKey: API_KEY, baseUrl: BASE_URL, ...extra });
    expect(error.issues[0]?.path).toEqual([field]);
  });
});

describe('APIError.hasCode', () => {
  it('tells the code of a refusal', async () => {
    server.use(
      http.get(WEBHOOKS, () => HttpResponse.json(errorBody('forbidden', 'no', 'req_f'), { status: 403 })),
    );
    const error = await new Client({ apiKey: API_KEY, baseUrl: BASE_URL }).webhooks.list().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).hasCode('forbidden')).toBe(true);
    expect((error as APIError).hasCode('not_found')).toBe(false);
  });
});
