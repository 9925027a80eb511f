import type { ClaimedDelivery } from '../store/queries/deliveries-claim.js';
import type { SecretBox } from '../store/secret-box.js';

/** A claimed row, with its endpoint's secrets decrypted, ready to be dialled. */
export interface Ready {
  row: ClaimedDelivery;
  claimedAt: number;
  secret: string;
  previousSecret: string | null;
}

/** Whether the endpoint's previous secret still signs at `at`. */
function rotatingAt(row: ClaimedDelivery, at: number): boolean {
  return row.rotating_until !== null && row.rotating_until > at;
}

/** Decrypts each endpoint's secrets once per claimed batch, kept only as long as the rows that use them. */
export function withSecrets(
  secretBox: SecretBox,
  rows: readonly ClaimedDelivery[],
  claimedAt: number,
): Ready[] {
  const opened = new Map<string, Pick<Ready, 'secret' | 'previousSecret'>>();
  return rows.map((row) => {
    let secrets = opened.get(row.endpoint_id);
    if (secrets === undefined) {
      secrets = {
        secret: secretBox.open(row.secret_enc!, row.endpoint_id),
        previousSecret:
          row.previous_secret_enc !== null && rotatingAt(row, claimedAt)
            ? secretBox.open(row.previous_secret_enc, row.endpoint_id)
            : null,
      };
      opened.set(row.endpoint_id, secrets);
    }
    return { row, claimedAt, ...secrets };
  });
}

/** The new secret first, then the old one until the rotation's end (spec 6.3), checked again at send. */
export function secretsAt({ row, secret, previousSecret }: Ready, at: number): string[] {
  return previousSecret !== null && rotatingAt(row, at) ? [secret, previousSecret] : [secret];
}
