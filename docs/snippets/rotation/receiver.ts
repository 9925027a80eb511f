import { Webhooks } from '@svc-kit/webhooks';

/**
 * SVC_WEBHOOK_SECRET is the endpoint's current secret. During a rotation, SVC_WEBHOOK_SECRET_PREVIOUS holds the
 * one it replaced, until the `previous_accepted_until` time of the rotation's answer; then remove it.
 */
export function createWebhooks(env: Record<string, string | undefined> = process.env) {
  const secrets = [env.SVC_WEBHOOK_SECRET, env.SVC_WEBHOOK_SECRET_PREVIOUS].filter(
    (secret): secret is string => secret !== undefined && secret !== '',
  );
  // A delivery is accepted when any of its signatures matches any of these secrets.
  return new Webhooks({ secret: secrets });
}
