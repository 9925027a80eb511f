// Runs the built CLI as users do (`node dist/cli/main.js`), against files in a temporary folder.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sign } from '@svc-kit/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const SECRET = 'whsec_cli-secret-never-printed';
const OLD_SECRET = 'whsec_cli-old-secret-also-hidden';

const EVENT = {
  id: 'evt_cli_1',
  type: 'message.received',
  created_at: 1_700_000_000_000,
  identity: 'acme-support',
  data: { thread_id: 'thr_7', contact: `sha256:${'cd'.repeat(32)}` },
};
const BODY = JSON.stringify(EVENT);
const NOW = 1_700_000_100;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], options: { env?: Record<string, string>; input?: string } = {}): Run {
  const result = spawnSync(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...options.env },
    input: options.input ?? '',
    encoding: 'utf8',
  });
  const run = { status: result.status, stdout: result.stdout, stderr: result.stderr };
  // Whatever the command, no secret may reach the terminal.
  for (const secret of [SECRET, OLD_SECRET]) {
    expect(run.stdout + run.stderr).not.toContain(secret);
  }
  return run;
}

let dir: string;
const file = (name: string, content: string | Uint8Array) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const withSecret = { env: { SVC_WEBHOOK_SECRET: SECRET } };

function signatureAt(t: number, body = BODY, secrets: string | string[] = SECRET): string {
  return sign(body, { secret: secrets, timestamp: t });
}

beforeAll(() => {
  if (!existsSync(MAIN))
    throw new Error(`${MAIN} is missing: run "npm run build -w @svc-kit/webhooks" first.`);
  dir = mkdtempSync(join(tmpdir(), 'svc-webhooks-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('svc-webhooks verify', () => {
  it('accepts a genuine delivery and says which secret matched and how old the signature is', () => {
    const body = file('body.json', BODY);
    const headers = file(
      'headers.txt',
      `POST /webhooks HTTP/1.1\r\nHost: receiver.example\r\nX-Service-Signature: ${signatureAt(NOW - 12)}\r\n` +
        `X-Service-Event-Id: ${EVENT.id}\r\nX-Service-Event-Type: ${EVENT.type}\r\n\r\n${BODY}`,
    );
    const run = cli(['verify', '--body', body, '--headers', headers, '--now', String(NOW)], withSecret);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('ACCEPTED');
    expect(run.stdout).toContain(`${EVENT.id} (${EVENT.type}) for identity ${EVENT.identity}`);
    expect(run.stdout).toContain('v1 value #1 of 1 matches the secret (from SVC_WEBHOOK_SECRET)');
    expect(run.stdout).toContain('signed 12 seconds ago');
  });

  it('names the secret that matched during a rotation', () => {
    const body = file('rotation.json', BODY);
    const signature = signatureAt(NOW, BODY, [SECRET, OLD_SECRET]);
    const run = cli([
      'verify',
      '--body',
      body,
      '--signature',
      signature,
      '--secret',
      'whsec_unrelated',
      '--secret',
      OLD_SECRET,
      '--now',
      String(NOW),
    ]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('v1 value #2 of 2 matches secret #2 of 2 (from --secret)');
  });

  it('reads headers as JSON, and as copied from curl -v', () => {
    const body = file('formats.json', BODY);
    const json = file('headers.json', JSON.stringify({ 'X-Service-Signature': signatureAt(NOW) }));
    const curl = file(
      'curl.txt',
      `> POST /webhooks HTTP/1.1\n> x-service-signature: ${signatureAt(NOW)}\n>\n`,
    );
    for (const headers of [json, curl]) {
      const run = cli(['verify', '--body', body, '--headers', headers, '--now', String(NOW)], withSecret);
      expect(run.stdout).toContain('ACCEPTED');
      expect(run.status).toBe(0);
    }
  });

  it('reads the body from standard input with --body -', () => {
    const run = cli(['verify', '--body', '-', '--signature', signatureAt(NOW), '--now', String(NOW)], {
      ...withSecret,
      input: BODY,
    });
    expect(run.status).toBe(0);
  });

  it('explains a wrong secret', () => {
    const body = file('wrong.json', BODY);
    const run = cli(
      ['verify', '--body', body, '--signature', signatureAt(NOW, BODY, 'whsec_other'), '--now', String(NOW)],
      withSecret,
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('REFUSED (no_matching_signature)');
    expect(run.stdout).toContain('no v1 value matches the secret');
    expect(run.stdout).toMatch(/fix: +Use this endpoint's current signing secret/);
  });

  it('spots a body that gained a final newline when it was saved', () => {
    const body = file('newline.json', `${BODY}\n`);
    const run = cli(
      ['verify', '--body', body, '--signature', signatureAt(NOW), '--now', String(NOW)],
      withSecret,
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('verifies once its final newline is removed');
  });

  it('spots a body that was pretty-printed after capture', () => {
    const body = file('pretty.json', JSON.stringify(EVENT, null, 2));
    const run = cli(
      ['verify', '--body', body, '--signature', signatureAt(NOW), '--now', String(NOW)],
      withSecret,
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('verifies in compact form');
  });

  it('explains an old signature, says the signature itself is genuine, and suggests --now', () => {
    const body = file('old.json', BODY);
    const run = cli(
      ['verify', '--body', body, '--signature', signatureAt(NOW - 301), '--now', String(NOW)],
      withSecret,
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('REFUSED (timestamp_too_old)');
    expect(run.stdout).toContain('signed 301 seconds ago (tolerance 300 s either way)');
    expect(run.stdout).toContain('v1 value #1 of 1 matches the secret');
    expect(run.stdout).toContain('Pass --now');
  });

  it('explains a signature from the future', () => {
    const body = file('future.json', BODY);
    const run = cli(
      ['verify', '--body', body, '--signature', signatureAt(NOW + 400), '--now', String(NOW)],
      withSecret,
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('REFUSED (timestamp_too_new)');
    expect(run.stdout).toContain('dated 400 seconds ahead');
  });

  it('honours --tolerance', () => {
    const body = file('tolerance.json', BODY);
    const args = ['verify', '--body', body, '--signature', signatureAt(NOW - 301), '--now', String(NOW)];
    expect(cli([...args, '--tolerance', '600'], withSecret).status).toBe(0);
    expect(cli([...args, '--tolerance', '300'], withSecret).status).toBe(1);
  });

  it('lists the headers it found when the signature header is missing', () => {
    const body = file('missing.json', BODY);
    const headers = file('no-signature.txt', 'Content-Type: application/json\nUser-Agent: proxy/1.0\n');
    const run = cli(['verify', '--body', body, '--headers', headers, '--now', String(NOW)], withSecret);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('REFUSED (missing_header)');
    expect(run.stdout).toContain('headers:   content-type, user-agent');
  });

  it('explains a malformed signature header', () => {
    const body = file('malformed.json', BODY);
    const run = cli(['verify', '--body', body, '--signature', 'v1=abc'], withSecret);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('REFUSED (malformed_header)');
  });

  it('explains event headers that disagree with the signed body', () => {
    const body = file('mismatch.json', BODY);
    const run = cli(
      [
        'verify',
        '--body',
        body,
        '--signature',
        signatureAt(NOW),
        '--event-id',
        'evt_other',
        '--now',
        String(NOW),
      ],
      withSecret,
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('REFUSED (header_mismatch)');
    expect(run.stdout).toContain('evt_other');
  });

  it('explains a genuine body that is not an event', () => {
    const text = JSON.stringify({ hello: 'world' });
    const body = file('not-event.json', text);
    const run = cli(
      ['verify', '--body', body, '--signature', signatureAt(NOW, text), '--now', String(NOW)],
      withSecret,
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('REFUSED (invalid_payload)');
    expect(run.stdout).toContain('v1 value #1 of 1 matches the secret');
  });
});

describe('svc-webhooks sign', () => {
  it('signs, and verify accepts what it printed (headers and json formats)', () => {
    const body = file('sign.json', BODY);
    for (const format of ['headers', 'json']) {
      const signed = cli(
        ['sign', '--body', body, '--timestamp', String(NOW), '--format', format],
        withSecret,
      );
      expect(signed.status).toBe(0);
      expect(signed.stdout).toContain(`t=${NOW},v1=`);
      const headers = file(`signed.${format}`, signed.stdout);
      const run = cli(['verify', '--body', body, '--headers', headers, '--now', String(NOW)], withSecret);
      expect(run.stdout).toContain('ACCEPTED');
      expect(run.status).toBe(0);
    }
  });

  it('signs with two secrets, new first, like a rotation', () => {
    const body = file('sign-two.json', BODY);
    const signed = cli([
      'sign',
      '--body',
      body,
      '--secret',
      SECRET,
      '--secret',
      OLD_SECRET,
      '--timestamp',
      String(NOW),
    ]);
    expect(signed.status).toBe(0);
    expect(signed.stdout).toContain(`X-Service-Signature: ${signatureAt(NOW, BODY, [SECRET, OLD_SECRET])}\n`);
  });

  it('prints a curl command whose arguments post the body file with the signed headers', () => {
    const body = file("it's a body.json", BODY);
    const signed = cli(
      [
        'sign',
        '--body',
        body,
        '--timestamp',
        String(NOW),
        '--format',
        'curl',
        '--url',
        'http://127.0.0.1:9/hook',
      ],
      withSecret,
    );
    expect(signed.status).toBe(0);
    // The shell parses the command; a stand-in `curl` prints the words it receives, one per line.
    const words = spawnSync('sh', ['-c', `curl() { printf '%s\\n' "$@"; }\n${signed.stdout}`], {
      encoding: 'utf8',
    })
      .stdout.trimEnd()
      .split('\n');
    expect(words.slice(0, 3)).toEqual(['-X', 'POST', 'http://127.0.0.1:9/hook']);
    expect(words.slice(-2)).toEqual(['--data-binary', `@${body}`]);
    expect(words).toContain('Content-Type: application/json');
    expect(words).toContain(`X-Service-Signature: ${signatureAt(NOW)}`);
    expect(words).toContain(`X-Service-Event-Id: ${EVENT.id}`);
    expect(words).toContain(`X-Service-Event-Type: ${EVENT.type}`);
  });

  it('asks for --event-id and --event-type when the body has none', () => {
    const body = file('plain.txt', 'not json');
    const refused = cli(['sign', '--body', body], withSecret);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('pass --event-id and --event-type');
    const signed = cli(
      ['sign', '--body', body, '--event-id', 'evt_x', '--event-type', 'message.received'],
      withSecret,
    );
    expect(signed.status).toBe(0);
    expect(signed.stdout).toContain('X-Service-Event-Id: evt_x');
  });
});

describe('svc-webhooks usage', () => {
  it('prints help, mentioning the environment variable for the secret', () => {
    for (const args of [['--help'], ['verify', '--help'], ['sign', '-h']]) {
      const run = cli(args);
      expect(run.status).toBe(0);
      expect(run.stdout).toContain('SVC_WEBHOOK_SECRET');
      expect(run.stdout).toMatch(/shell history/);
    }
  });

  it('prints the installed version with --version, -v and version, and exits 0', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const args of [['--version'], ['-v'], ['version']]) {
      const run = cli(args);
      expect(run.status).toBe(0);
      expect(run.stdout).toBe(`${version}\n`);
    }
    expect(cli(['--help']).stdout).toContain('svc-webhooks help | version');
  });

  it('points a usage error at `help`, the spelling that also works through `npx --no`', () => {
    // `npx --no svc-webhooks --help` prints npm's own help: npx takes a flag right after the name.
    const run = cli(['check']);
    expect(run.stderr).toContain('Run "svc-webhooks help" for usage.');
    expect(cli(['help']).stdout).toContain('Through npx --no, write help and version as words');
  });

  it.each([
    ['no command', [], /Usage/],
    ['an unknown command', ['check'], /Unknown command "check"/],
    ['an unknown option', ['verify', '--bdy', 'x'], /Unknown option '--bdy'/],
    ['no secret anywhere', ['verify', '--body', 'x', '--signature', 't=1,v1=00'], /SVC_WEBHOOK_SECRET/],
    ['no --body', ['verify', '--secret', SECRET, '--signature', 't=1,v1=00'], /--body <file> is required/],
    ['no headers', ['verify', '--secret', SECRET, '--body', 'x'], /--headers <file>, or --signature/],
    [
      'both --headers and --signature',
      ['verify', '--secret', SECRET, '--body', 'x', '--headers', 'y', '--signature', 'z'],
      /either --headers or --signature/,
    ],
    [
      'a bad --tolerance',
      ['verify', '--secret', SECRET, '--tolerance', '0', '--body', 'x'],
      /--tolerance must be/,
    ],
    [
      'milliseconds for --now',
      ['verify', '--secret', SECRET, '--body', 'x', '--now', '1700000000000'],
      /looks like milliseconds/,
    ],
    [
      'a bad --format',
      ['sign', '--secret', SECRET, '--body', 'x', '--format', 'xml'],
      /--format must be one of/,
    ],
    [
      'a missing body file',
      ['verify', '--secret', SECRET, '--body', '/nonexistent/body.json', '--signature', 't=1,v1=00'],
      /Cannot read the body file .*no such file/,
    ],
    ['an empty --secret', ['sign', '--secret', '', '--body', 'x'], /--secret is empty/],
  ])('exits 2 on %s', (_name, args, message) => {
    const run = cli(args as string[]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('never echoes a secret, even one given with --secret=value in a failing call', () => {
    const run = cli(['verify', `--secret=${SECRET}`, '--secret', OLD_SECRET, '--unknown']);
    expect(run.status).toBe(2);
  });
});

describe('svc-webhooks listen, trigger and events without a service', () => {
  const KEY = 'svc_0123456789abcdef_feedfacefeedfacefeedface';

  it.each([
    [
      'listen without a key',
      ['listen', '--forward-to', 'http://localhost:3000/webhooks'],
      {},
      /No API key: set SVC_API_KEY/,
    ],
    ['listen without --forward-to', ['listen'], { SVC_API_KEY: KEY }, /--forward-to is required/],
    [
      'listen with a non-URL target',
      ['listen', '--forward-to', 'localhost:3000'],
      { SVC_API_KEY: KEY },
      /--forward-to must be an http or https URL/,
    ],
    ['trigger without a type', ['trigger'], { SVC_API_KEY: KEY }, /Name the event type/],
    [
      'trigger with --endpoint and no value',
      ['trigger', 'message.received', '--endpoint'],
      { SVC_API_KEY: KEY },
      /--endpoint <value>' argument missing/,
    ],
    [
      'trigger with an empty --endpoint',
      ['trigger', 'message.received', '--endpoint='],
      { SVC_API_KEY: KEY },
      /--endpoint is empty/,
    ],
    [
      'trigger with a URL for --endpoint',
      ['trigger', 'message.received', '--endpoint', 'https://hooks.example.com/x'],
      { SVC_API_KEY: KEY },
      /--endpoint takes an endpoint id, which starts with whk_/,
    ],
    [
      'events with a bad base URL',
      ['events', '--base-url', 'ftp://x'],
      { SVC_API_KEY: KEY },
      /--base-url must be an http or https URL/,
    ],
  ])('exits 2 on %s', (_name, args, env, message) => {
    const run = cli(args as string[], { env: env as Record<string, string> });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toContain(KEY);
  });

  it('says it cannot reach the service, without echoing the key', () => {
    const run = cli(['trigger', 'message.received', '--base-url', 'http://127.0.0.1:1', '--api-key', KEY]);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/cannot reach the service at http:\/\/127\.0\.0\.1:1 \(/);
    expect(run.stdout + run.stderr).not.toContain(KEY);
  });

  it('lists the commands in the help', () => {
    const run = cli(['--help']);
    for (const command of ['listen', 'trigger', 'events'])
      expect(run.stdout).toContain(`svc-webhooks ${command}`);
  });

  it('names --endpoint in the help of trigger', () => {
    const run = cli(['trigger', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('[--endpoint <id>]');
    expect(run.stdout).toMatch(/--endpoint <id>\s+Only this endpoint/);
  });
});
