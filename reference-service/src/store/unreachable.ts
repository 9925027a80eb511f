/**
 * Why a PostgreSQL database named by DATABASE_URL could not be used at all: the connection string does not
 * read as one, the server did not answer, or it refused this connection (SQLSTATE classes 08, 28, 3D; 57P03
 * still starting). A setting or a server to fix: the start prints it as one line, without a stack.
 */
export class DatabaseUnreachableError extends Error {
  override name = 'DatabaseUnreachableError';
}

/**
 * The reason told from the code alone. The server's own text names the role (`password authentication failed
 * for user "…"`, `database "…" does not exist` when the database defaults to the user's name), and a network
 * error names the host as pg read it, which is the user when a password holds an unescaped `/`.
 */
const REASONS: Readonly<Record<string, string>> = {
  // pg's URL parser, on a malformed DATABASE_URL.
  ERR_INVALID_URL: 'it does not read as a URL',
  ECONNREFUSED: 'nothing accepted the connection',
  ECONNRESET: 'the connection was reset',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved for now',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  '28P01': 'the password was refused',
  '28000': 'the server refused this login (its roles or pg_hba.conf)',
  '3D000': 'the database does not exist',
  '57P03': 'the server is starting up or shutting down',
};

const CLASS_REASONS: Readonly<Record<string, string>> = {
  '08': 'the server refused the connection',
  '28': 'the server refused this login',
  '3D': 'the database cannot be used',
};

/** The failure as a DatabaseUnreachableError when it is one (see above); `undefined` for any other. */
export function asUnreachable(
  error: unknown,
  connectionString: string,
): DatabaseUnreachableError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  const reason = REASONS[code] ?? CLASS_REASONS[code.slice(0, 2)];
  if (reason === undefined) return undefined;
  return new DatabaseUnreachableError(
    `the PostgreSQL database in DATABASE_URL (${whereOf(connectionString)}) cannot be used: ${reason} (${code})`,
    { cause: error },
  );
}

/**
 * Host, port and database of a connection string, never its user or password. An `@` after the host means the
 * URL was not read as written (an unescaped `/`, `?` or `#` in the password ends the authority early, and the
 * user reads as the host): then nothing of it is repeated.
 */
function whereOf(connectionString: string): string {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return 'an unreadable connection string';
  }
  if (`${url.pathname}${url.search}${url.hash}`.includes('@')) {
    return "a connection string read ambiguously: percent-encode any '/', '?', '#' or '@' in its user or password";
  }
  const host = url.hostname === '' ? 'the local socket' : `${url.hostname}:${url.port || '5432'}`;
  const database = decodedOrRaw(url.pathname.slice(1)).replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping them keeps the refusal one line.
    /[\u0000-\u001f\u007f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${host}, database ${database || 'named after the user'}`;
}

function decodedOrRaw(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
