// The service's Node flags are part of how it is measured: the benchmark starts its targets with the flags
// `npm start` gives the service, and runs itself (the delivery worker, the event burst) with them too.
import { expect, it } from 'vitest';
import { SERVICE_NODE_FLAGS } from '../bench/support/target-process.js';

const { scripts } = (await import('../package.json', { with: { type: 'json' } })).default as {
  scripts: Record<string, string>;
};

it('starts the service and the benchmark with the same Node flags', () => {
  const flags = SERVICE_NODE_FLAGS.join(' ');
  expect(scripts.start).toMatch(new RegExp(`(^|&& )(\\S+=\\S+ )*node ${flags} dist/main\\.js$`));
  expect(scripts.bench).toMatch(new RegExp(`&& node ${flags} node_modules/\\.cache/svc-bench/index\\.js$`));
});
