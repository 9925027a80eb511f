// Sends every case to every cell and compares each answer with the one expected.
import { cases } from './deliveries.mjs';

/** `/webhooks` goes to the README's quickstart, every other route to the matrix's routes beside it. */
async function send(cell, request) {
  const headers = request.parse ? { ...request.headers, 'x-matrix-parse': '1' } : request.headers;
  const base = request.route === '/webhooks' ? cell.quickstart : cell.base;
  const response = await fetch(`${base}${request.route}`, { method: 'POST', body: request.body, headers });
  const text = await response.text();
  let reason;
  try {
    reason = JSON.parse(text)?.error?.reason;
  } catch {
    reason = `not JSON: ${text.slice(0, 60)}`;
  }
  return { status: response.status, reason };
}

function matches(actual, expected) {
  return (
    actual.status === expected.status && (expected.reason === undefined || actual.reason === expected.reason)
  );
}

/** For one cell: `{ case name: { ok, failures } }`, each failure naming the route and what came back. */
export async function runCell(cell) {
  const results = {};
  for (const { name, requests } of cases()) {
    const failures = [];
    for (const request of requests) {
      const actual = await send(cell, request).catch((error) => ({
        status: 0,
        reason: String(error.cause ?? error),
      }));
      if (!matches(actual, request.expected)) {
        failures.push(
          `${request.route}${request.parse ? ' (parsed)' : ''}: ${actual.status} ${actual.reason ?? ''}, expected ${request.expected.status} ${request.expected.reason ?? ''}`.trim(),
        );
      }
    }
    results[name] = { ok: failures.length === 0, failures };
  }
  return results;
}

export const CASE_NAMES = cases().map(({ name }) => name);

/** The rows of a runtime that did not start: each of its cells fails every case, saying why. */
export function rowsOfDown(runtime, frameworks, error) {
  const why = `did not start: ${String(error.message).split('\n')[0]}`;
  return frameworks.map((framework) => ({
    cell: { runtime, framework, version: '(did not start)' },
    results: Object.fromEntries(CASE_NAMES.map((name) => [name, { ok: false, failures: [why] }])),
  }));
}

/** One text table: a row per cell, a column per case. */
export function formatTable(rows) {
  const header = ['runtime', 'framework', 'version', ...CASE_NAMES];
  const body = rows.map(({ cell, results }) => [
    cell.runtime,
    cell.framework,
    cell.version,
    ...CASE_NAMES.map((name) => (results[name].ok ? 'pass' : 'FAIL')),
  ]);
  const widths = header.map((_, column) => Math.max(...[header, ...body].map((row) => row[column].length)));
  const line = (row) => `| ${row.map((value, column) => value.padEnd(widths[column])).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...body.map(line),
  ].join('\n');
}
