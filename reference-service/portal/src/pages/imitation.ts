/**
 * A name as a person reads it: compatibility forms folded (full-width, ligatures), case ignored, and
 * everything but letters and digits dropped, so `Sandbox_Bob`, `sandbox bob` and `ｓａｎｄｂｏｘ-bob` are one.
 */
export function foldName(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * The workspace's own identity whose name a contact's card name reads as, when the contact is not that
 * identity (another key): a stranger passing for one of ours. `undefined` when the name imitates none.
 */
export function imitatedIdentity(
  contact: { display_name: string; fingerprint: string },
  own: readonly { slug: string; fingerprint: string }[],
): string | undefined {
  const folded = foldName(contact.display_name);
  if (folded === '') return undefined;
  const twin = own.find((identity) => foldName(identity.slug) === folded);
  return twin && twin.fingerprint !== contact.fingerprint ? twin.slug : undefined;
}
