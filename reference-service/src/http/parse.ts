import { describeIssues } from '@svc-kit/contract';
import type { z } from 'zod';
import { ServiceError } from '../domain/errors.js';

/** Validates a body of the service's own routes (those outside the contract); a miss is a 400. */
export function parse<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new ServiceError('invalid_request', `invalid ${where}: ${describeIssues(result.error.issues)}`);
  return result.data;
}
