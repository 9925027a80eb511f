/**
 * A variable of the process environment, or `undefined` where there is none: browsers and edge runtimes
 * have no `process`, and Deno throws when the program was not given the right to read the environment.
 */
export function readEnvironment(name: string): string | undefined {
  try {
    const value = (globalThis as { process?: { env?: Record<string, unknown> } }).process?.env?.[name];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
