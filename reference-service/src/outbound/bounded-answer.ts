/** An answer from outside went past its byte cap: the rest was never read and its connection was dropped. */
export class AnswerTooLargeError extends Error {
  override name = 'AnswerTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`the answer is over ${maxBytes} bytes`);
  }
}

/** Statuses whose answers have no body (a Response cannot be built with one). */
const NO_BODY = new Set([204, 205, 304]);

/**
 * The answer, read at most `maxBytes` into its body: a declared length over the cap is refused before a byte
 * is read, a body that streams past it fails with AnswerTooLargeError (undici then drops the connection).
 * `onOver` is told either way: a library's reader (an SSE stream's) may swallow the stream's error and wait
 * on.
 */
export function boundedAnswer(
  response: Response,
  maxBytes: number,
  onOver: (error: AnswerTooLargeError) => void,
): Response {
  const body = response.body;
  if (body === null || NO_BODY.has(response.status)) return response;
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > maxBytes) {
    const error = new AnswerTooLargeError(maxBytes);
    body.cancel(error).catch(() => {});
    onOver(error);
    throw error;
  }
  let size = 0;
  const counted = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        size += chunk.byteLength;
        if (size <= maxBytes) return controller.enqueue(chunk);
        const error = new AnswerTooLargeError(maxBytes);
        onOver(error);
        controller.error(error);
      },
    }),
  );
  return new Response(counted, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
