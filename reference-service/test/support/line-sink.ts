import { Writable } from 'node:stream';

/** A stream for a test's logger that keeps every line written to it, so that tests can read the logs. */
export function lineSink(): { sink: Writable; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { sink, lines };
}
