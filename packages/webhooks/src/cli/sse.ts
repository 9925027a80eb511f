/** One server-sent event: its `event` name (default "message") and its `data` lines joined. */
export interface SseMessage {
  event: string;
  data: string;
}

/**
 * Reads server-sent events from a byte stream, as the HTML standard frames them: lines end in LF, CR or
 * CRLF; a blank line ends a message; lines starting with ":" are comments (heartbeats). A message the
 * stream ends in the middle of is dropped.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  onBytes: () => void = () => {},
): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];

  /** Takes the complete lines out of the buffer; at the end of the stream a lone CR ends a line too. */
  function* lines(final: boolean): Generator<string> {
    for (;;) {
      const end = buffer.search(/\r\n|\r|\n/);
      if (end < 0) return;
      // A CR at the very end may be the first half of a CRLF still on its way.
      if (!final && end === buffer.length - 1 && buffer[end] === '\r') return;
      yield buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
    }
  }

  function* messages(final: boolean): Generator<SseMessage> {
    for (const line of lines(final)) {
      if (line === '') {
        if (data.length > 0) yield { event: event || 'message', data: data.join('\n') };
        event = '';
        data = [];
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
    }
  }

  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      onBytes();
      buffer += decoder.decode(value, { stream: true });
      yield* messages(false);
    }
    buffer += decoder.decode();
    yield* messages(true);
  } finally {
    reader.releaseLock();
  }
}
