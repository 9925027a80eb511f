import { base32Decode, totpAt } from '../../../src/domain/totp.js';

const STEP_MS = 30_000;

/**
 * The authenticator app of the test: codes computed from the secret read off the page. The service takes
 * each time step once, and accepts the next step too (clock drift), so a code is the first unused step
 * from now; only a third code inside one step waits.
 */
export function authenticator(secret: string) {
  let lastStep = -1;
  return {
    async next(): Promise<string> {
      const current = Math.floor(Date.now() / STEP_MS);
      let step = Math.max(current, lastStep + 1);
      if (step > current + 1) {
        await new Promise((resolve) => setTimeout(resolve, (step - 1) * STEP_MS - Date.now() + 100));
        step = Math.max(Math.floor(Date.now() / STEP_MS), lastStep + 1);
      }
      lastStep = step;
      return totpAt(base32Decode(secret), (step * STEP_MS) / 1000);
    },
  };
}
