import { account } from '../api/account.js';
import { ProblemNote } from '../ui/problem-note.js';
import { useAction } from '../ui/use-action.js';

/**
 * An invite link opened while signed in: an account belongs to one workspace, so the invite is for
 * another account. Logging out here keeps the link, which then opens the invite's own form.
 */
export function InviteWhileSignedIn({ email, onLoggedOut }: { email: string; onLoggedOut: () => void }) {
  const { busy, problem, run } = useAction();
  const leave = () =>
    run(async () => {
      await account.logOut();
      onLoggedOut();
    });
  return (
    <main id="main" class="narrow">
      <h1>Join another workspace?</h1>
      <p>
        This link invites someone into a workspace. You are signed in as <strong>{email}</strong>, and an
        account belongs to one workspace: to accept it, log out and join with the address the invite was sent
        to.
      </p>
      <div class="actions">
        <button type="button" onClick={leave} disabled={busy}>
          Log out and accept the invite
        </button>{' '}
        <a href="#/webhooks">Stay signed in</a>
      </div>
      <ProblemNote problem={problem} />
    </main>
  );
}
