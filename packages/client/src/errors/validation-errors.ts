import { ServiceError } from './service-error.js';

/** One problem found by a schema: where (`path`) and what (`message`, zod's `code`). */
export interface ValidationIssue {
  code: string;
  path: readonly PropertyKey[];
  message: string;
}

/** What was refused: a path parameter, the query, the body, or an option. */
export type ValidationTarget = 'params' | 'query' | 'body' | 'options';

/**
 * The arguments of a call (or of the constructor) were refused by the client before anything was sent:
 * they do not match the contract. Nothing reached the network, so no request id exists.
 */
export class ClientValidationError extends ServiceError {
  static override readonly kind: string = 'ClientValidationError';
  /** The operation called; `undefined` for the constructor's options. */
  readonly operationId: string | undefined;
  readonly target: ValidationTarget;
  readonly issues: readonly ValidationIssue[];

  constructor(init: {
    operationId: string | undefined;
    target: ValidationTarget;
    issues: readonly ValidationIssue[];
  }) {
    const where = init.operationId === undefined ? 'Client' : init.operationId;
    super(`${where}: invalid ${init.target}: ${describeIssues(init.issues)}`);
    this.operationId = init.operationId;
    this.target = init.target;
    this.issues = init.issues;
  }
}

/**
 * A success answer could not be read: it is not JSON, it is empty where a body is due, or (with
 * `validateResponses: true`) it does not match the operation's success schema.
 */
export class ResponseValidationError extends ServiceError {
  static override readonly kind: string = 'ResponseValidationError';
  readonly operationId: string;
  readonly status: number;
  readonly requestId: string | undefined;
  readonly issues: readonly ValidationIssue[];
  /** The answer as received: parsed JSON, or its text when it is not JSON. */
  readonly body: unknown;

  constructor(init: {
    operationId: string;
    status: number;
    requestId: string | undefined;
    problem: string;
    issues: readonly ValidationIssue[];
    body: unknown;
  }) {
    const details = init.issues.length > 0 ? `: ${describeIssues(init.issues)}` : '';
    super(`${init.operationId}: unexpected ${init.status} answer, ${init.problem}${details}`);
    this.operationId = init.operationId;
    this.status = init.status;
    this.requestId = init.requestId;
    this.issues = init.issues;
    this.body = init.body;
  }
}

const SHOWN_ISSUES = 5;

function describeIssues(issues: readonly ValidationIssue[]): string {
  const shown = issues.slice(0, SHOWN_ISSUES).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    return `${where}: ${issue.message}`;
  });
  const more = issues.length > SHOWN_ISSUES ? `; and ${issues.length - SHOWN_ISSUES} more` : '';
  return `${shown.join('; ')}${more}`;
}
