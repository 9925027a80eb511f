import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends bytes as they are (no HTTP client would send most of what the hostile tests send) and reads the
 * one answer: the status line, the headers, and `content-length` bytes of body (or up to the close).
 */
export function rawRequest(baseUrl: string, bytes: string | Buffer, timeoutMs = 10_000): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms: ${Buffer.concat(chunks).toString()}`));
    }, timeoutMs);
    const tryParse = (final: boolean) => {
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) {
        if (final) fail(new Error(`no answer head: ${JSON.stringify(text)}`));
        return;
      }
      const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const rest = Buffer.concat(chunks).subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
      const length = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
      if (length !== undefined && rest.length < length && !final) return;
      const body = (length === undefined ? rest : rest.subarray(0, length)).toString('utf8');
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    };
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('close', () => tryParse(true));
    socket.on('error', (error) => {
      if (chunks.length > 0) tryParse(true);
      else fail(error);
    });
    socket.write(bytes);
  });
}
