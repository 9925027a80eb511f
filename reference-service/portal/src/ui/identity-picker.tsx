import type { SessionInfo } from '../api/account.js';
import { go } from './router.js';

/** Contacts and integrations belong to an identity: the page shows one, picked here (kept in the URL). */
export function IdentityPicker({
  session,
  page,
  slug,
}: {
  session: SessionInfo;
  page: string;
  slug: string;
}) {
  return (
    <p>
      <label class="inline" for="identity-picker">
        Identity
      </label>
      <select
        id="identity-picker"
        value={slug}
        onChange={(e) => go(`${page}/${encodeURIComponent(e.currentTarget.value)}`)}
      >
        {session.identities.map((identity) => (
          <option key={identity.slug} value={identity.slug}>
            {identity.slug}
          </option>
        ))}
      </select>
    </p>
  );
}
