// Turns tinybench results into the printed table and the target check.

/**
 * Targets set for the sync verifySignature, measured on the body as a raw-body middleware hands it over (a
 * Buffer) against the hand-written baseline given the same Buffer.
 */
export const TARGETS = [
  { size: 1024, against: 'raw-received', atLeast: 1.0 },
  { size: 65536, against: 'raw-received', atLeast: 1.3 },
  { size: 1024, against: 'stripe-buffer', atLeast: 1.3 },
];
export const TARGET_SUBJECT = 'ours-sync-buffer';

/**
 * @typedef {{ id: string, label: string, hz: number, bestNs: number, medianNs: number, meanNs: number }} Row
 */

const fmt = (/** @type {number} */ n, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/**
 * @param {string} title
 * @param {Row[]} rows
 */
export function printTable(title, rows) {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const raw = byId.get('raw-received');
  const rawString = byId.get('raw-string');
  const stripe = byId.get('stripe-buffer');
  const head = [
    'contender',
    'ops/s',
    'best ns',
    'median ns',
    'mean ns',
    '× raw baseline',
    '× raw (string given)',
    '× stripe (Buffer)',
  ];
  const body = rows.map((row) => [
    row.label,
    fmt(row.hz),
    fmt(row.bestNs),
    fmt(row.medianNs),
    fmt(row.meanNs),
    raw ? `${fmt(row.hz / raw.hz, 2)}×` : '-',
    rawString ? `${fmt(row.hz / rawString.hz, 2)}×` : '-',
    stripe ? `${fmt(row.hz / stripe.hz, 2)}×` : '-',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((cells) => String(cells[i]).length)));
  const line = (/** @type {string[]} */ cells) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  console.log(`\n${title}`);
  console.log(line(head));
  console.log(
    `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
  );
  for (const cells of body) console.log(line(cells));
}

/**
 * @param {Map<number, Row[]>} resultsBySize
 * @returns {boolean} true when every target is met
 */
export function printTargets(resultsBySize) {
  console.log(`\nTargets for ${TARGET_SUBJECT} (information only; the exit code does not depend on them)`);
  let all = true;
  for (const target of TARGETS) {
    const rows = resultsBySize.get(target.size) ?? [];
    const subject = rows.find((row) => row.id === TARGET_SUBJECT);
    const anchor = rows.find((row) => row.id === target.against);
    if (!subject || !anchor) continue;
    const ratio = subject.hz / anchor.hz;
    const pass = ratio >= target.atLeast;
    all &&= pass;
    console.log(
      `  ${pass ? 'PASS' : 'MISS'}  ${target.size / 1024} KiB: ${fmt(ratio, 2)}× ${target.against} (target ≥ ${fmt(target.atLeast, 1)}×)`,
    );
  }
  const ceiling = (/** @type {string} */ anchorId) =>
    [...resultsBySize]
      .map(([size, rows]) => {
        const floor = rows.find((row) => row.id === 'hmac-floor');
        const anchor = rows.find((row) => row.id === anchorId);
        return floor && anchor ? `${size / 1024} KiB ${fmt(floor.hz / anchor.hz, 2)}×` : '';
      })
      .join(', ');
  console.log(
    `  Ceiling (the HMAC floor; no verifier can exceed it) over raw-received: ${ceiling('raw-received')}`,
  );
  console.log(`  Ceiling over raw-string (a string decoded before the timed call): ${ceiling('raw-string')}`);
  return all;
}
