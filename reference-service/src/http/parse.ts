import { describeIssues } from '@svc-kit/contract';
import { z } from 'zod';
import { ServiceError } from '../domain/errors.js';

/** Validates input against a schema (the contract's, or a route's own); a miss is a 400 naming `where`. */
export function parse<S extends z.core.$ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = z.safeParse(schema, value);
  if (!result.success)
    throw new ServiceError('invalid_request', `invalid ${where}: ${describeIssues(result.error.issues)}`);
  return result.data;
}
