import { request } from 'node:http';
import { connect, type Socket } from 'node:net';

/**
 * One request on a connection of its own from a given local address (loopback has all of 127.0.0.0/8:
 * another client than the attacker's); answers the status.
 */
export function requestFrom(
  url: string,
  from: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, localAddress: from, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface SlowClientsOptions {
  /** Connections to open. */
  connections: number;
  /** Request line target, e.g. `/v1/sessions`. */
  path: string;
  /** The body length the headers announce (never sent in full). */
  contentLength: number;
  /** One more byte of the body every this many milliseconds. */
  byteEveryMs: number;
  /** Local addresses to connect from, used in turn (loopback has all of 127.0.0.0/8); default the kernel's. */
  from?: readonly string[];
  /** Open a new connection this long after one is closed (an attacker who keeps trying); default never. */
  reconnectAfterMs?: number;
}

export interface SlowClients {
  /** Connections open now. */
  open(): number;
  /** Connections open now that have been open for at least `ms` (held, not just being closed). */
  heldFor(ms: number): number;
  /** Connections opened so far (reconnections included). */
  opened(): number;
  /** Connections the server closed after answering `408` (its request deadline). */
  timedOut(): number;
  /** Connections the server closed without a word (a cap), or that never connected. */
  cutOff(): number;
  /** Resolves once every first connection has connected or failed. */
  connected: Promise<void>;
  stop(): void;
}

/**
 * A slow-request attack: connections that send complete request headers announcing a large body, then one
 * byte of it every few seconds, so that each request is always in progress and never done.
 */
export function startSlowClients(url: string, options: SlowClientsOptions): SlowClients {
  const target = new URL(url);
  const port = Number(target.port);
  /** Each open connection, with the moment it connected (undefined until then). */
  const sockets = new Map<Socket, number | undefined>();
  let opened = 0;
  let timedOut = 0;
  let cutOff = 0;
  let stopped = false;
  const head =
    `POST ${options.path} HTTP/1.1\r\nHost: ${target.host}\r\ncontent-type: application/json\r\n` +
    `content-length: ${options.contentLength}\r\n\r\n{`;

  const openOne = (index: number): Promise<void> =>
    new Promise((settled) => {
      if (stopped) return settled();
      opened++;
      const from = options.from?.[index % options.from.length];
      const socket = connect({ host: target.hostname, port, ...(from ? { localAddress: from } : {}) });
      sockets.set(socket, undefined);
      let answer = '';
      let trickle: NodeJS.Timeout | undefined;
      socket.on('connect', () => {
        sockets.set(socket, performance.now());
        socket.write(head);
        trickle = setInterval(() => socket.write(' '), options.byteEveryMs);
        settled();
      });
      socket.on('data', (chunk) => {
        answer += chunk.toString('latin1');
      });
      socket.on('error', () => settled());
      socket.on('close', () => {
        clearInterval(trickle);
        sockets.delete(socket);
        if (answer.startsWith('HTTP/1.1 408')) timedOut++;
        else cutOff++;
        settled();
        if (!stopped && options.reconnectAfterMs !== undefined) {
          setTimeout(() => void openOne(index), options.reconnectAfterMs).unref();
        }
      });
    });

  const connected = Promise.all(Array.from({ length: options.connections }, (_, i) => openOne(i))).then(
    () => undefined,
  );
  return {
    open: () => sockets.size,
    heldFor: (ms) => {
      const before = performance.now() - ms;
      return [...sockets.values()].filter((at) => at !== undefined && at <= before).length;
    },
    opened: () => opened,
    timedOut: () => timedOut,
    cutOff: () => cutOff,
    connected,
    stop() {
      stopped = true;
      for (const socket of sockets.keys()) socket.destroy();
    },
  };
}
