import { createSocket } from 'node:dgram';
import { isIPv4 } from 'node:net';
import { performance } from 'node:perf_hooks';

/** How the server answers one name: its A records (AAAA are always none), after `delayMs`. */
export interface DnsAnswer {
  a: readonly string[];
  delayMs?: number;
}

export interface DnsQuery {
  name: string;
  /** 1 is A, 28 is AAAA. */
  type: number;
  /** `performance.now()` when the query arrived. */
  at: number;
}

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, as SVC_DNS_SERVERS takes it. */
  readonly address: string;
  readonly queries: readonly DnsQuery[];
  close(): Promise<void>;
}

const A = 1;
const FLAGS_ANSWER = 0x8180; // a response, recursion desired and available, NOERROR
const NXDOMAIN = 3;

/**
 * A DNS server over UDP on loopback, as small as the tests need: `answer` names what a name resolves to
 * (`undefined`: NXDOMAIN), and a delay keeps the answer back as a slow or unreachable authoritative server
 * would. Only A records are ever answered; AAAA gets an empty NOERROR, a name with no IPv6 address.
 */
export async function startDnsServer(
  answer: (name: string) => DnsAnswer | undefined,
): Promise<TestDnsServer> {
  const socket = createSocket('udp4');
  const queries: DnsQuery[] = [];
  const pending = new Set<NodeJS.Timeout>();
  socket.on('message', (message, from) => {
    const question = parseQuestion(message);
    if (!question) return;
    queries.push({ name: question.name, type: question.type, at: performance.now() });
    const found = answer(question.name.toLowerCase());
    const reply = replyTo(message, question, found);
    const send = () => socket.send(reply, from.port, from.address);
    if (!found?.delayMs) return send();
    const timer = setTimeout(() => {
      pending.delete(timer);
      send();
    }, found.delayMs);
    pending.add(timer);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    queries,
    async close() {
      for (const timer of pending) clearTimeout(timer);
      await new Promise<void>((resolve) => socket.close(resolve));
    },
  };
}

function parseQuestion(message: Buffer): { name: string; type: number; end: number } | undefined {
  if (message.length < 12 || message.readUInt16BE(4) !== 1) return undefined;
  const labels: string[] = [];
  let offset = 12;
  while (offset < message.length) {
    const length = message[offset]!;
    if (length === 0) break;
    labels.push(message.toString('latin1', offset + 1, offset + 1 + length));
    offset += 1 + length;
  }
  const end = offset + 5; // the root label, QTYPE and QCLASS
  if (end > message.length) return undefined;
  return { name: labels.join('.'), type: message.readUInt16BE(offset + 1), end };
}

/** The query's id and question, echoed byte for byte, with the answer records (none for AAAA). */
function replyTo(message: Buffer, question: { type: number; end: number }, found: DnsAnswer | undefined) {
  const addresses = found && question.type === A ? found.a.filter((a) => isIPv4(a)) : [];
  const header = Buffer.alloc(12);
  message.copy(header, 0, 0, 2);
  header.writeUInt16BE(FLAGS_ANSWER | (found ? 0 : NXDOMAIN), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((address) => {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    record.writeUInt16BE(A, 2);
    record.writeUInt16BE(1, 4); // class IN
    record.writeUInt32BE(60, 6); // TTL
    record.writeUInt16BE(4, 10);
    Buffer.from(address.split('.').map(Number)).copy(record, 12);
    return record;
  });
  return Buffer.concat([header, message.subarray(12, question.end), ...records]);
}
