import { APIError, ServiceError } from '@svc-kit/client';

/** A refusal or failure as the portal shows it: in words, with the request id to quote. */
export interface Problem {
  status: number | undefined;
  code: string | undefined;
  message: string;
  requestId: string | undefined;
  /** Seconds to wait before trying again (429), when the service said. */
  retryAfter: number | undefined;
}

/** The error body every route answers refusals with (reference-service/src/http/error-body.ts). */
interface ErrorBody {
  error?: { code?: unknown; message?: unknown; request_id?: unknown; retry_after?: unknown };
}

export class PortalError extends Error {
  readonly problem: Problem;
  constructor(problem: Problem) {
    super(problem.message);
    this.problem = problem;
  }
}

/** Reads an error body leniently; anything else still becomes a readable problem. */
export function problemFromBody(status: number, headers: Headers, body: unknown): Problem {
  const fields = (body as ErrorBody | null)?.error;
  const retryHeader = Number(headers.get('retry-after'));
  return {
    status,
    code: typeof fields?.code === 'string' ? fields.code : undefined,
    message: typeof fields?.message === 'string' ? fields.message : `the service answered ${status}`,
    requestId:
      typeof fields?.request_id === 'string' ? fields.request_id : (headers.get('x-request-id') ?? undefined),
    retryAfter:
      typeof fields?.retry_after === 'number'
        ? fields.retry_after
        : Number.isFinite(retryHeader) && retryHeader > 0
          ? retryHeader
          : undefined,
  };
}

/** Whatever was thrown, as a problem to show. */
export function toProblem(error: unknown): Problem {
  if (error instanceof PortalError) return error.problem;
  if (error instanceof APIError) {
    const body = problemFromBody(error.status, error.headers, error.body);
    return { ...body, code: error.code ?? body.code, requestId: error.requestId ?? body.requestId };
  }
  const message =
    error instanceof ServiceError || error instanceof Error
      ? error.message
      : String(error ?? 'unknown error');
  return { status: undefined, code: undefined, message, requestId: undefined, retryAfter: undefined };
}

export function needsStepUp(error: unknown): boolean {
  return toProblem(error).code === 'step_up_required';
}
