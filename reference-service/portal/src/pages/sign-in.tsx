import { useState } from 'preact/hooks';
import { account } from '../api/account.js';
import { NewPasswordField } from '../ui/new-password.js';
import { ProblemNote } from '../ui/problem-note.js';
import { useAction } from '../ui/use-action.js';
import { WrongOrigin } from '../ui/wrong-origin.js';

/** Log-in and sign-up share one form shape: email and password (sign-up also names the workspace). */
export function SignInPage({
  mode,
  inviteToken,
  serviceOrigin,
  onSignedIn,
}: {
  mode: 'login' | 'signup' | 'invite';
  inviteToken?: string;
  /** Where the service is (GET /v1/session/state); another address than this page's is said at once. */
  serviceOrigin?: string | undefined;
  onSignedIn: () => Promise<void>;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [workspace, setWorkspace] = useState('');
  const { busy, problem, run } = useAction();
  const signup = mode === 'signup';
  const invite = mode === 'invite';
  const submit = async (event: Event) => {
    event.preventDefault();
    await run(async () => {
      if (mode === 'invite') {
        await account.acceptInvite({ token: inviteToken ?? '', password });
      } else if (signup) {
        await account.signUp({
          email,
          password,
          ...(workspace.trim() ? { workspace_name: workspace.trim() } : {}),
        });
      } else {
        await account.logIn({ email, password });
      }
      // Inside the action: a session the browser did not keep is a problem shown on this form.
      await onSignedIn();
    });
  };
  return (
    <main id="main" class="narrow">
      <h1>{invite ? 'Join the workspace' : signup ? 'Create your sandbox account' : 'Log in'}</h1>
      <WrongOrigin origin={serviceOrigin} />
      {invite && <p>You were invited to a workspace. Choose your password to join it.</p>}
      {signup && (
        <p>
          Sign-up creates your own sandbox workspace with webhook delivery on and two identities to try
          contacts between. You will set up an authenticator app next.
        </p>
      )}
      <form onSubmit={submit}>
        {!invite && (
          <>
            <label for="email">Email</label>
            <input
              id="email"
              type="email"
              autoComplete="username"
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          </>
        )}
        {signup || invite ? (
          <NewPasswordField
            id="password"
            label="Password"
            email={email}
            value={password}
            onInput={setPassword}
          />
        ) : (
          <>
            <label for="password">Password</label>
            <input
              id="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </>
        )}
        {signup && (
          <>
            <label for="workspace-name">Workspace name (optional)</label>
            <input
              id="workspace-name"
              value={workspace}
              onInput={(e) => setWorkspace(e.currentTarget.value)}
            />
          </>
        )}
        <ProblemNote problem={problem} />
        <button type="submit" disabled={busy}>
          {invite ? 'Join' : signup ? 'Create account' : 'Log in'}
        </button>
      </form>
      <p>
        {signup ? (
          <a href="#/login">I already have an account: log in</a>
        ) : (
          <a href="#/signup">No account yet? Sign up</a>
        )}
      </p>
    </main>
  );
}
