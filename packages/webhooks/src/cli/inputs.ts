import { readFile } from 'node:fs/promises';
import { SECRET_ENV } from './help';
import { UsageError } from './usage-error';

/** Where the CLI reads from: injected so that `run` stays a plain function. */
export interface CliEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: AsyncIterable<Uint8Array | string>;
}

async function readAll(stream: AsyncIterable<Uint8Array | string>): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** The file's exact bytes (never decoded: the signature covers bytes), or standard input for "-". */
export async function readBodyFile(path: string, environment: CliEnvironment): Promise<Uint8Array> {
  if (path === '-') return readAll(environment.stdin);
  try {
    return await readFile(path);
  } catch (error) {
    throw new UsageError(`Cannot read the body file ${path}: ${describeFsError(error)}.`);
  }
}

export async function readTextFile(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read the ${what} file ${path}: ${describeFsError(error)}.`);
  }
}

function describeFsError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'it is a folder';
  if (code === 'EACCES') return 'permission denied';
  return typeof code === 'string' ? code : 'unreadable';
}

/** The secrets from repeated --secret flags, else from the environment variable. */
export function resolveCliSecrets(
  flags: readonly string[] | undefined,
  environment: CliEnvironment,
): string[] {
  if (flags !== undefined && flags.length > 0) {
    if (flags.some((secret) => secret.length === 0)) throw new UsageError('--secret is empty.');
    return [...flags];
  }
  const fromEnv = environment.env[SECRET_ENV];
  if (fromEnv !== undefined && fromEnv.length > 0) return [fromEnv];
  throw new UsageError(
    `No signing secret: set the environment variable ${SECRET_ENV} (preferred) or pass --secret.`,
  );
}

/** A whole number from a flag, in the range given; anything else is a usage error naming the flag. */
export function parseWholeNumber(value: string | undefined, flag: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value)) || Number(value) < min) {
    throw new UsageError(
      `${flag} must be a whole number${min > 0 ? ` of at least ${min}` : ''} (got "${value}").`,
    );
  }
  return Number(value);
}

/** Unix seconds hold 10 digits until the year 2286; 12 or more almost always means milliseconds. */
const LARGEST_LIKELY_SECONDS = 99_999_999_999;

/** A Unix time in seconds from a flag; a value in milliseconds is refused with that hint. */
export function secondsFlag(value: string | undefined, flag: string): number | undefined {
  const seconds = parseWholeNumber(value, flag, 0);
  if (seconds !== undefined && seconds > LARGEST_LIKELY_SECONDS) {
    throw new UsageError(`${flag} takes Unix seconds; ${value} looks like milliseconds (divide by 1000).`);
  }
  return seconds;
}
