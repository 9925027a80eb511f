import type { Client } from '@svc-kit/client';

/** Approves every pending request an identity has received, as colleagues. Returns their fingerprints. */
export async function approvePendingRequests(client: Client, slug: string): Promise<string[]> {
  const { contacts } = await client.contacts.list(slug, { status: 'pending_in' });
  for (const contact of contacts) {
    await client.contacts.approve(slug, contact.fingerprint, { preset: 'colleague' });
  }
  return contacts.map((contact) => contact.fingerprint);
}
