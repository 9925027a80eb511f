// `npm run bench -w @svc-kit/webhooks`: one process, one run, every contender on 1 KiB and 64 KiB bodies.
// A benchmark, not a test: it prints numbers and exits 0 whatever they are (non-zero only if a contender
// refuses the valid delivery).
import os from 'node:os';
import { Bench } from 'tinybench';
import { contenders } from './contenders.mjs';
import { delivery, eventBody } from './deliveries.mjs';
import { printTable, printTargets } from './report.mjs';

const SIZES = [1024, 64 * 1024];
/** Timed milliseconds per contender per round. */
const TIME_MS = Number(process.env.BENCH_TIME_MS ?? 150);
// The contenders run in many short rounds, each in a rotated order, so that every contender gets its share
// of quiet moments on a shared machine, and neither a burst of load elsewhere nor the position in the list
// (JIT state, CPU clock) favours one of them. Each contender's figure is its least disturbed round: noise
// from outside only ever adds time, so the fastest round median is the closest to the code's own cost.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
// Calls per timed sample, so that one sample lasts about a millisecond: far above the timer's resolution,
// and long enough that garbage collection is spread over samples instead of landing as rare outliers.
// Every figure printed is per call.
const BATCH = { 1024: 256, [64 * 1024]: 16 };

// standardwebhooks reads the real clock, so deliveries are signed "now"; every other contender is given a
// fixed clock 1.5 s later, well inside the 300 s tolerance for the whole run.
const t = Math.floor(Date.now() / 1000);
const nowMs = t * 1000 + 1500;

const cpu = os.cpus();
console.log(
  `Node ${process.version}, ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${os.platform()}/${os.arch()}; ` +
    `${ROUNDS} rounds × ${TIME_MS} ms per contender and size`,
);

/** @param {number[]} values */
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
};

/**
 * @param {() => unknown} once one verification
 * @param {number} batch
 */
async function timed(once, batch) {
  const first = once(); // accepts the delivery once before being timed (throws otherwise)
  if (first instanceof Promise) {
    await first;
    return async () => {
      for (let i = 0; i < batch; i++) await once();
    };
  }
  return () => {
    for (let i = 0; i < batch; i++) once();
  };
}

/** @type {Map<number, import('./report.mjs').Row[]>} */
const results = new Map();
for (const size of SIZES) {
  const d = delivery(eventBody(size), t);
  const batch = BATCH[size] ?? 1;
  const list = contenders(nowMs);
  const fns = new Map();
  for (const contender of list) fns.set(contender.id, await timed(contender.make(d), batch));

  /** @type {Map<string, { medians: number[], means: number[] }>} per-call ns, one entry per round */
  const rounds = new Map(list.map((c) => [c.id, { medians: [], means: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({ time: TIME_MS, warmupTime: 50, throws: true });
    const offset = (round * 3) % list.length;
    for (const contender of [...list.slice(offset), ...list.slice(0, offset)]) {
      bench.add(contender.id, fns.get(contender.id));
    }
    await bench.run();
    for (const contender of list) {
      const result = bench.getTask(contender.id)?.result;
      if (!result || !('latency' in result)) throw new Error(`${contender.id} produced no result`);
      rounds.get(contender.id)?.medians.push((result.latency.p50 * 1e6) / batch);
      rounds.get(contender.id)?.means.push((result.latency.mean * 1e6) / batch);
    }
  }

  const rows = list.map((contender) => {
    const { medians, means } = rounds.get(contender.id) ?? { medians: [], means: [] };
    const bestNs = Math.min(...medians);
    return {
      id: contender.id,
      label: contender.label,
      hz: 1e9 / bestNs,
      bestNs,
      medianNs: median(medians),
      meanNs: means.reduce((a, b) => a + b, 0) / means.length,
    };
  });
  results.set(size, rows);
  printTable(`${size / 1024} KiB body`, rows);
}
console.log(
  '\nPer call. best ns: the fastest round’s median sample; ops/s = 1e9 / best ns; ratios divide ops/s (higher is' +
    '\nfaster). median ns: the median of the round medians; mean ns: the average of the round means, garbage' +
    '\ncollection and any disturbance included. A wide gap between best and median means a noisy machine.',
);
printTargets(results);
