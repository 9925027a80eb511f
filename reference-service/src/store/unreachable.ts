/**
 * Why a PostgreSQL database named by DATABASE_URL could not be used at all: the connection string does not
 * read as one, the server did not answer, or it refused this connection (SQLSTATE classes 08 connection,
 * 28 authorization, 3D unknown database; 57P03 still starting). A setting or a server to fix: the start
 * prints it as one line, without a stack.
 */
export class DatabaseUnreachableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DatabaseUnreachableError';
  }
}

const SETTING_OR_NETWORK_CODES = new Set([
  // pg's URL parser, on a malformed DATABASE_URL (it redacts the string in the error).
  'ERR_INVALID_URL',
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** The failure as a DatabaseUnreachableError when it is one (see above); `undefined` for any other. */
export function asUnreachable(
  error: unknown,
  connectionString: string,
): DatabaseUnreachableError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (!SETTING_OR_NETWORK_CODES.has(code) && !/^(08|28|3D)/.test(code) && code !== '57P03') return undefined;
  const reason = error instanceof Error && error.message !== '' ? error.message : code;
  return new DatabaseUnreachableError(
    `the PostgreSQL database in DATABASE_URL (${whereOf(connectionString)}) cannot be used: ${reason}`,
    { cause: error },
  );
}

/** Host, port and database of a connection string: never its user or password. */
function whereOf(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    const host = url.hostname === '' ? 'the local socket' : `${url.hostname}:${url.port || '5432'}`;
    return `${host}, database ${decodeURIComponent(url.pathname.slice(1)) || 'of the same name as the user'}`;
  } catch {
    return 'an unreadable connection string';
  }
}
