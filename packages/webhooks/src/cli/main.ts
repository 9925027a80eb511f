#!/usr/bin/env node
import { run } from './run';

process.exitCode = await run(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  colour: process.stdout.isTTY === true && !process.env.NO_COLOR,
  onInterrupt(handler) {
    // SIGHUP: the terminal was closed; the listener is closed as on Ctrl-C.
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    for (const signal of signals) process.on(signal, handler);
    return () => {
      for (const signal of signals) process.off(signal, handler);
    };
  },
});
