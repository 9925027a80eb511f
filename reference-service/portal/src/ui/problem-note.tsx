import type { Problem } from '../api/problem.js';
import { sentence } from './sentence.js';

/** A refusal in words, with its request id (what to quote when asking for help). */
export function ProblemNote({ problem }: { problem: Problem | undefined }) {
  if (problem === undefined) return null;
  return (
    <div class="problem" role="alert">
      <p>
        <strong>{headline(problem)}</strong> {sentence(problem.message)}
      </p>
      {problem.retryAfter !== undefined && (
        <p class="retry">
          Try again in {problem.retryAfter} s (after{' '}
          {new Date(Date.now() + problem.retryAfter * 1000).toLocaleTimeString()}).
        </p>
      )}
      {problem.requestId !== undefined && (
        <p class="request-id">
          Request id: <code>{problem.requestId}</code>
        </p>
      )}
    </div>
  );
}

function headline(problem: Problem): string {
  switch (problem.code) {
    case 'step_up_required':
      return 'A fresh MFA code is needed.';
    case 'forbidden':
      return 'Not allowed.';
    case 'cross_site':
      return 'Refused as a cross-site request.';
    case 'rate_limited':
      return 'Too many attempts.';
    case 'not_found':
      return 'Not found.';
    case 'unauthenticated':
      return 'Not signed in.';
    case 'invalid_request':
      return 'The service refused the input.';
    default:
      return problem.status === undefined
        ? 'Something went wrong.'
        : `Refused (${problem.status}${problem.code ? ` ${problem.code}` : ''}).`;
  }
}
