import { PGlite } from '@electric-sql/pglite';

const mb = (n) => (n / 1048576).toFixed(0);
const show = (label) => {
  const m = process.memoryUsage();
  console.log(
    label,
    'rss',
    mb(m.rss),
    'heap',
    mb(m.heapUsed),
    'ext',
    mb(m.external),
    'ab',
    mb(m.arrayBuffers),
  );
};
show('before');
const dir = process.argv[2];
const pg = await PGlite.create(dir);
show('after create');
console.log(
  Object.keys(pg).slice(0, 30),
  Object.getOwnPropertyNames(Object.getPrototypeOf(pg)).slice(0, 60).join(','),
);
const mod = pg.mod ?? pg.Module;
console.log('mod?', !!mod, mod && mod.HEAPU8 && mb(mod.HEAPU8.length));
await pg.query('select 1');
show('after query');
globalThis.gc?.();
show('after gc');
