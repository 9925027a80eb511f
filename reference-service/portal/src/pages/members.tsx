import type { Permission } from '@svc-kit/contract';
import { useEffect, useState } from 'preact/hooks';
import { account, type MemberRow, type SessionInfo } from '../api/account.js';
import { ShownOnce } from '../ui/copy-button.js';
import { ProblemNote } from '../ui/problem-note.js';
import { useStepUp } from '../ui/step-up.js';
import { Table } from '../ui/table.js';
import { when } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';

/** Members of the workspace: invite with at most your own permissions, remove (their keys go with them). */
export function MembersPage({ session }: { session: SessionInfo }) {
  const guard = useStepUp();
  const [members, setMembers] = useState<MemberRow[] | undefined>(undefined);
  const [email, setEmail] = useState('');
  const [permissions, setPermissions] = useState<Permission[]>([]);
  const [link, setLink] = useState<string | undefined>(undefined);
  const load = useAction();
  const act = useAction();
  const reload = () => load.run(async () => setMembers((await account.listMembers()).members));
  useEffect(() => {
    void reload();
  }, []);

  const invite = async (event: Event) => {
    event.preventDefault();
    const answer = await act.run(() => guard(() => account.invite({ email: email.trim(), permissions })));
    if (answer) {
      setLink(`${location.origin}/#/invite/${encodeURIComponent(answer.invite_token)}`);
      setEmail('');
      setPermissions([]);
      void reload();
    }
  };
  const remove = async (member: MemberRow) => {
    if (!confirm(`Remove ${member.email}? Their API keys are revoked and their sessions end.`)) return;
    if (
      (await act.run(async () => (await guard(() => account.removeMember(member.id))) ?? true)) !== undefined
    ) {
      void reload();
    }
  };

  return (
    <main id="main">
      <h1>Members</h1>
      <form class="card" onSubmit={invite} aria-labelledby="invite-title">
        <h2 id="invite-title">Invite a member</h2>
        <label for="invite-email">Email</label>
        <input
          id="invite-email"
          type="email"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <fieldset>
          <legend>Permissions (at most yours)</legend>
          {session.member.permissions.map((permission) => (
            <label class="inline" key={permission}>
              <input
                type="checkbox"
                checked={permissions.includes(permission)}
                onChange={(e) => {
                  const on = e.currentTarget.checked;
                  setPermissions((current) =>
                    on ? [...current, permission] : current.filter((p) => p !== permission),
                  );
                }}
              />
              <code>{permission}</code>
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={act.busy || permissions.length === 0}>
          Invite
        </button>
      </form>
      <ProblemNote problem={act.problem} />
      {link && (
        <div>
          <ShownOnce title="Invite link" value={link} testId="invite-link" />
          <p class="muted">Send it to the person; it works once, for 7 days.</p>
        </div>
      )}
      <h2>Members of {session.workspace.name}</h2>
      <ProblemNote problem={load.problem} />
      <Table
        columns={['Email', 'Permissions', 'MFA', 'Since', 'Actions']}
        rows={members?.length}
        empty="No members."
      >
        {members?.map((member) => (
          <tr key={member.id}>
            <td>
              {member.email}
              {member.owner && ' (owner)'}
              {member.invited && ' (invited, not joined yet)'}
            </td>
            <td>{member.permissions.join(', ')}</td>
            <td>{member.mfa_enrolled ? 'on' : 'off'}</td>
            <td>{when(member.created_at)}</td>
            <td>
              {!member.owner && member.id !== session.member.id && (
                <button type="button" aria-label={`Remove ${member.email}`} onClick={() => remove(member)}>
                  Remove
                </button>
              )}
            </td>
          </tr>
        ))}
      </Table>
    </main>
  );
}
