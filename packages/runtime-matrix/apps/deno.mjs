// Deno: Deno.serve with the fetch handler, on a port the system picks.
import { createWebApp } from './web.mjs';

const server = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen() {} }, createWebApp());
console.log(
  JSON.stringify({ ready: { 'Deno.serve': server.addr.port }, runtime: `deno ${Deno.version.deno}` }),
);
