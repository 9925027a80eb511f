import { chmodSync, unlinkSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import type { ServiceContext } from '../../context.js';
import { AdminUsageError, runAdminCommand } from './admin.js';

/**
 * PGlite lets one process open its data dir, so while the server runs, the admin CLI cannot open the store
 * itself. The server then answers admin commands on a Unix socket inside the data dir (mode 0600: only
 * the owner of the data dir may use it). Never a TCP port: nothing on the network can reach it.
 */
function adminSocketPath(dataDir: string): string {
  return join(dataDir, 'admin.sock');
}

export async function startAdminSocket(ctx: ServiceContext, dataDir: string): Promise<Server> {
  const path = adminSocketPath(dataDir);
  try {
    // A socket file left by a crashed server; we hold the data-dir lock, so it is not anyone's.
    unlinkSync(path);
  } catch {
    // None left behind.
  }
  const server = createServer(async (req, res) => {
    try {
      const { command, args } = JSON.parse(await text(req)) as { command: string; args: string[] };
      const answer = await runAdminCommand(ctx, String(command), Array.isArray(args) ? args.map(String) : []);
      res.writeHead(200, { 'content-type': 'text/plain' }).end(answer);
    } catch (error) {
      const usage = error instanceof AdminUsageError;
      res
        .writeHead(usage ? 400 : 500, { 'content-type': 'text/plain' })
        .end(usage ? error.message : 'the admin command failed; see the server log');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return server;
}

/** Sends one command to a running server; `undefined` when no server listens on the socket. */
export function sendAdminCommand(
  dataDir: string,
  command: string,
  args: string[],
): Promise<{ ok: boolean; text: string } | undefined> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        socketPath: adminSocketPath(dataDir),
        method: 'POST',
        path: '/admin',
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        text(res).then((body) => resolve({ ok: res.statusCode === 200, text: body }), reject);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') resolve(undefined);
      else reject(error);
    });
    req.end(JSON.stringify({ command, args }));
  });
}
