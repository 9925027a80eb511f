/** A mistake in how the CLI was called (exit code 2), as opposed to a refused delivery (exit code 1). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
