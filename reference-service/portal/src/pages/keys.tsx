import type { Permission } from '@svc-kit/contract';
import { useEffect, useState } from 'preact/hooks';
import { account, type KeyRow, type MintedKey, type SessionInfo } from '../api/account.js';
import { ShownOnce } from '../ui/copy-button.js';
import { ProblemNote } from '../ui/problem-note.js';
import { useStepUp } from '../ui/step-up.js';
import { Table } from '../ui/table.js';
import { when } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';

/** API keys: a key is never wider than its member, so the picker offers only the member's permissions. */
export function KeysPage({ session }: { session: SessionInfo }) {
  const guard = useStepUp();
  const [keys, setKeys] = useState<KeyRow[] | undefined>(undefined);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Permission[]>([]);
  const [minted, setMinted] = useState<MintedKey | undefined>(undefined);
  const list = useAction();
  const mint = useAction();
  const revoke = useAction();
  const reload = () => list.run(async () => setKeys((await account.listKeys()).keys));
  useEffect(() => {
    void reload();
  }, []);
  const own = session.member.permissions;

  const submit = async (event: Event) => {
    event.preventDefault();
    const key = await mint.run(() => guard(() => account.mintKey({ name: name.trim(), scopes })));
    if (key) {
      setMinted(key);
      setName('');
      setScopes([]);
      void reload();
    }
  };
  const toggle = (scope: Permission, on: boolean) =>
    setScopes((current) => (on ? [...current, scope] : current.filter((s) => s !== scope)));

  return (
    <main id="main">
      <h1>API keys</h1>
      <p>
        Programs use a key as <code>Authorization: Bearer …</code>. A key carries at most your own
        permissions.
      </p>
      <form onSubmit={submit} aria-labelledby="mint-title">
        <h2 id="mint-title">Mint a key</h2>
        <label for="key-name">Name</label>
        <input
          id="key-name"
          required
          maxLength={64}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <fieldset>
          <legend>Scopes (your permissions): what the key may do</legend>
          {own.map((scope) => (
            <div class="scope" key={scope}>
              <label class="inline">
                <input
                  type="checkbox"
                  checked={scopes.includes(scope)}
                  aria-describedby={`scope-${scope.replaceAll(':', '-')}`}
                  onChange={(e) => toggle(scope, e.currentTarget.checked)}
                />
                <code>{scope}</code>
              </label>
              <span id={`scope-${scope.replaceAll(':', '-')}`} class="muted">
                {SCOPE_ALLOWS[scope]}
              </span>
            </div>
          ))}
        </fieldset>
        <button
          type="submit"
          disabled={mint.busy || scopes.length === 0}
          aria-describedby={scopes.length === 0 ? 'mint-why' : undefined}
        >
          Mint key
        </button>
        {scopes.length === 0 && (
          <p id="mint-why" class="muted" data-testid="mint-why">
            Tick at least one scope to mint a key: a key with no scope could do nothing.
          </p>
        )}
        <ProblemNote problem={mint.problem} />
      </form>
      {minted && <ShownOnce title="API key" value={minted.api_key} testId="api-key" />}
      <h2>Keys of this workspace</h2>
      <ProblemNote problem={list.problem} />
      <ProblemNote problem={revoke.problem} />
      <Table columns={['Name', 'Id', 'Scopes', 'Created', 'State']} rows={keys?.length} empty="No keys yet.">
        {keys?.map((key) => (
          <tr key={key.id}>
            <td>{key.name}</td>
            <td>
              <code>{key.id}</code>
            </td>
            <td>{key.scopes.join(', ')}</td>
            <td>{when(key.created_at)}</td>
            <td>
              {key.revoked_at !== null ? (
                `revoked ${when(key.revoked_at)}`
              ) : (
                <button
                  type="button"
                  aria-label={`Revoke key ${key.name}`}
                  disabled={revoke.busy}
                  onClick={async () => {
                    await revoke.run(() => guard(() => account.revokeKey(key.id)));
                    void reload();
                  }}
                >
                  Revoke
                </button>
              )}
            </td>
          </tr>
        ))}
      </Table>
    </main>
  );
}

/**
 * What each permission lets a key do, by the operations that require it (the contract's table of
 * operations and the service's own routes). Typed by the contract's list: a new permission must be
 * described here before the portal builds.
 */
const SCOPE_ALLOWS: Record<Permission, string> = {
  'service:workspace:admin':
    'webhook endpoints, their secrets and delivery logs, the workspace’s delivery switch, API keys, members, test events and svc-webhooks listen',
  'service:contacts:read': 'read an identity’s contacts, their tools and its own contact card',
  'service:contacts:manage':
    'request, approve, reject, update, block, unblock, rename, refresh and remove contacts',
  'service:contacts:trust': 'set how far a contact is trusted',
  'service:messages:send': 'call a contact’s tools on an identity’s behalf',
  'service:identities:read': 'read an identity’s integrations and what each exposes',
  'service:identities:manage': 'create, authorize, expose and remove integrations',
};
