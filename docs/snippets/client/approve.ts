import { type Client, NotFoundError, PermissionDeniedError, RateLimitError } from '@svc-kit/client';

export type ApproveOutcome =
  | 'approved'
  | 'no-such-request'
  | 'workspace-blocked'
  | { retryInSeconds: number };

export async function approveRequest(
  client: Client,
  slug: string,
  fingerprint: string,
): Promise<ApproveOutcome> {
  try {
    // approve is idempotent: the client sends an Idempotency-Key, so its own retries cannot approve twice.
    // maxRetries: 0 because a person is waiting; let them decide when to try again.
    await client.contacts.approve(slug, fingerprint, { preset: 'colleague' }, { maxRetries: 0 });
    return 'approved';
  } catch (error) {
    if (error instanceof NotFoundError) return 'no-such-request';
    if (error instanceof RateLimitError) return { retryInSeconds: error.retryAfter ?? 1 };
    if (
      error instanceof PermissionDeniedError &&
      (error.code === 'workspace_suspended' || error.code === 'workspace_deletion_hold')
    ) {
      return 'workspace-blocked';
    }
    throw error; // anything else is a bug or an outage: let it reach your error reporting
  }
}
