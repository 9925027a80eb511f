import { useState } from 'preact/hooks';
import { type Problem, toProblem } from '../api/problem.js';

/**
 * Runs an action for a button or form: tracks "busy" and keeps the last problem to show. Nothing fails
 * silently: every rejection becomes a problem on the page.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const run = async <T>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setProblem(undefined);
    try {
      return await action();
    } catch (error) {
      setProblem(toProblem(error));
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, problem, setProblem, run };
}
