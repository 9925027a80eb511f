/**
 * `crash-loss` (issue 40, item 7): a real service process killed with SIGKILL during a burst to a receiver
 * that holds each request a second, then started again (the run `test/delivery/crash.test.ts` asserts).
 * Rows abandoned beside the requests open at the kill, rows never sent before the kill that the restarted
 * process delivered, and deliveries made twice.
 */
import { DEFAULT_CAPS } from '../../src/delivery/worker.js';
import { groupBy, runCrashBurst, startSlowReceiver } from '../../test/support/crash-burst.js';
import type { ServiceProcess } from '../../test/support/service-process.js';
import type { BenchBackend } from '../support/backends.js';
import { type Row, verdict } from '../support/table.js';

export async function runCrashLossBench(backend: BenchBackend): Promise<Row[]> {
  // The service's entry point, bundled beside the bench (bench/tsup.config.ts).
  const entry = { main: new URL('./service-main.js', import.meta.url).pathname, remove: async () => {} };
  const receiver = await startSlowReceiver();
  const processes: ServiceProcess[] = [];
  let database: { drop(): Promise<void> } | undefined;
  try {
    const burst = await runCrashBurst({
      backend,
      entry,
      receiver,
      processes,
      onDatabase: (db) => (database = db),
    });
    const abandoned = burst.rows.filter((row) => row.status === 'abandoned');
    const perDelivery = groupBy(receiver.arrivals, (arrival) => arrival.deliveryId);
    const twice = [...perDelivery.values()].filter((list) => list.length > 1).length;
    const laterIds = new Set(burst.later);
    const backlog = receiver.arrivals.filter(
      (arrival) => arrival.run === 'restarted' && !laterIds.has(arrival.eventId),
    ).length;
    const settled = burst.rows.every((row) => row.status === 'delivered' || row.status === 'abandoned');
    const ok =
      twice === 0 &&
      settled &&
      abandoned.length <= DEFAULT_CAPS.workspace &&
      burst.cutOff.every((id) => abandoned.some((row) => row.id === id));
    return [
      [
        `${backend}: kill -9 mid-burst, rows abandoned / requests open at the kill`,
        `${abandoned.length} / ${burst.cutOff.length}`,
        `≤ in flight (≤ ${DEFAULT_CAPS.workspace}), every open one`,
        verdict(ok),
      ],
      [
        `${backend}: rows never sent before the kill, delivered after the restart`,
        `${backlog} (of ${burst.rows.length} rows)`,
        '> 0, each once',
        verdict(backlog > 0 && twice === 0),
      ],
      [`${backend}: deliveries made twice`, String(twice), '0', verdict(twice === 0)],
    ];
  } finally {
    for (const running of processes) if (running.child.exitCode === null) running.child.kill('SIGKILL');
    await database?.drop();
    await receiver.close();
  }
}
