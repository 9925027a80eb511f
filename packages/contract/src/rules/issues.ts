/** One problem a schema found: where, and what. zod's issues have this shape. */
export interface ValidationIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * The one plain-text form of validation problems, for the service's and the mock's 400 messages alike:
 * `events[2]: not an event the service sends; limit: expected an integer from 1 to 100`, one clause per
 * problem, paths in JavaScript notation, on one line.
 */
export function describeIssues(issues: readonly ValidationIssue[]): string {
  return issues
    .map((issue) => {
      const path = issue.path
        .map((part, index) =>
          typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
        )
        .join('');
      return path === '' ? issue.message : `${path}: ${issue.message}`;
    })
    .join('; ');
}
