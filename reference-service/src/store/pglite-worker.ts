import { Worker } from 'node:worker_threads';
import { EmbeddedDatabaseError } from './pglite-init.js';
import { type Answer, decodeAnswer } from './pglite-wire.js';

const THREAD_YOUNG_GENERATION_MB = 4;

type Reply = {
  id: number;
  bytes?: Uint8Array;
  memory?: Record<string, number>;
  error?: { message: string };
};

export type ThreadMessage = { bytes: Uint8Array } | { close: true } | { memory: true };

/** One running database thread (src/store/pglite-thread.js) and the requests waiting on it. */
export interface EmbeddedThread {
  send(message: ThreadMessage): Promise<Answer>;
  memory(): Promise<Record<string, number>>;
  /** Fails every request waiting and every later one with `error`. */
  stop(error: Error): void;
  terminate(): Promise<number>;
  /** How many requests wait on the thread (the one running included). */
  readonly waiting: number;
}

/**
 * Starts the database thread on `dataDir` (in memory when undefined), resolving once it is ready. The
 * thread keeps the process alive only while a request is waiting for it.
 */
export async function startEmbeddedThread(
  dataDir: string | undefined,
  options: {
    threadHeapLimitMb?: number | undefined;
    snapshot?: Uint8Array | undefined;
    /** Each notification the database sent, with the answer that carried it. */
    onNotify(channel: string, payload: string): void;
    /** The thread failed or ended without being asked to: it serves nothing more. */
    onLost(error: EmbeddedDatabaseError): void;
  },
): Promise<EmbeddedThread> {
  const thread = new Worker(new URL('./pglite-thread.js', import.meta.url), {
    workerData: { dataDir, snapshot: options.snapshot },
    resourceLimits: {
      // The thread only hands bytes over: a small young generation is plenty, and what a larger one
      // grows to after a burst stays resident.
      maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB,
      ...(options.threadHeapLimitMb === undefined
        ? {}
        : { maxOldGenerationSizeMb: options.threadHeapLimitMb }),
    },
  });
  const pending = new Map<number, { resolve: (reply: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let stopped: Error | undefined;

  const settle = (id: number) => {
    const waiter = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) thread.unref();
    return waiter;
  };
  const stop = (error: Error) => {
    stopped ??= error;
    for (const id of [...pending.keys()]) settle(id)?.reject(stopped);
  };

  await new Promise<void>((resolve, reject) => {
    const onFirst = (message: { ready?: boolean; failed?: { message: string } }) => {
      thread.off('error', reject);
      if (message.failed) reject(new EmbeddedDatabaseError(message.failed.message));
      else resolve();
    };
    thread.once('message', onFirst);
    thread.once('error', reject);
  });

  thread.on('message', (reply: Reply) => {
    const waiter = settle(reply.id);
    if (reply.error) {
      waiter?.reject(new EmbeddedDatabaseError(`the embedded database failed: ${reply.error.message}`));
      return;
    }
    if (reply.memory) {
      waiter?.resolve(reply.memory);
      return;
    }
    let answer: Answer;
    try {
      answer = decodeAnswer(reply.bytes ?? new Uint8Array(0));
    } catch (error) {
      waiter?.reject(error as Error);
      return;
    }
    waiter?.resolve(answer);
    for (const { channel, payload } of answer.notified) {
      queueMicrotask(() => options.onNotify(channel, payload));
    }
  });
  const lost = (error: EmbeddedDatabaseError) => {
    if (stopped === undefined) options.onLost(error);
    stop(error);
  };
  thread.on('error', (error) =>
    lost(new EmbeddedDatabaseError(`the embedded database stopped: ${error.message}`)),
  );
  thread.on('exit', () => lost(new EmbeddedDatabaseError('the embedded database is closed')));
  thread.unref();

  /** Resolves with the reply's decoded answer, or its memory figures for a `memory` request. */
  function request<T>(message: ThreadMessage): Promise<T> {
    if (stopped) return Promise.reject(stopped);
    const id = nextId++;
    if (pending.size === 0) thread.ref();
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (reply: unknown) => void, reject });
      thread.postMessage({ id, ...message }, 'bytes' in message ? [message.bytes.buffer as ArrayBuffer] : []);
    });
  }

  return {
    send: (message) => request<Answer>(message),
    memory: () => request<Record<string, number>>({ memory: true }),
    stop,
    terminate: () => thread.terminate(),
    get waiting() {
      return pending.size;
    },
  };
}
