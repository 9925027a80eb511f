import { useState } from 'preact/hooks';
import { account, type SessionInfo } from '../api/account.js';
import { ShownOnce } from '../ui/copy-button.js';
import { NewPasswordField } from '../ui/new-password.js';
import { ProblemNote } from '../ui/problem-note.js';
import { useStepUp } from '../ui/step-up.js';
import { useAction } from '../ui/use-action.js';

/** The person's own credentials: the password, and the MFA recovery codes. */
export function AccountPage({ session }: { session: SessionInfo }) {
  return (
    <main id="main" class="narrow">
      <h1>Your account</h1>
      <p>
        Signed in as <strong>{session.member.email}</strong>.
      </p>
      <PasswordForm email={session.member.email} />
      {session.member.mfa_enrolled && <RecoveryCodes />}
    </main>
  );
}

function PasswordForm({ email }: { email: string }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState('');
  const { busy, problem, run } = useAction();
  const guard = useStepUp();
  const submit = async (event: Event) => {
    event.preventDefault();
    setDone('');
    // With MFA, the password alone does not change the password: the service asks a fresh step-up.
    const body = { current_password: current, new_password: next };
    const answer = await run(() => guard(() => account.changePassword(body)));
    if (answer) {
      setCurrent('');
      setNext('');
      const others = answer.sessions_ended;
      setDone(
        `Password changed. ${others === 1 ? '1 other session was' : `${others} other sessions were`} signed out; this one stays.`,
      );
    }
  };
  return (
    <form onSubmit={submit} aria-labelledby="password-title">
      <h2 id="password-title">Change password</h2>
      {/* For password managers: which account the new password belongs to. */}
      <input type="hidden" autoComplete="username" value={email} />
      <label for="current-password">Current password</label>
      <input
        id="current-password"
        type="password"
        autoComplete="current-password"
        required
        value={current}
        onInput={(e) => setCurrent(e.currentTarget.value)}
      />
      <NewPasswordField id="new-password" label="New password" email={email} value={next} onInput={setNext} />
      <ProblemNote problem={problem} />
      <p role="status">{done}</p>
      <button type="submit" disabled={busy}>
        Change password
      </button>
    </form>
  );
}

function RecoveryCodes() {
  const guard = useStepUp();
  const [codes, setCodes] = useState<string[] | undefined>(undefined);
  const { busy, problem, run } = useAction();
  const regenerate = async () => {
    const answer = await run(() => guard(() => account.regenerateRecoveryCodes()));
    if (answer) setCodes(answer.recovery_codes);
  };
  return (
    <section aria-labelledby="recovery-title">
      <h2 id="recovery-title">Recovery codes</h2>
      <p>
        New codes replace all the old ones at once, used or not. Making them asks for a fresh MFA code (or one
        of the old recovery codes).
      </p>
      <button type="button" onClick={regenerate} disabled={busy}>
        Make new recovery codes
      </button>
      <ProblemNote problem={problem} />
      {codes && <ShownOnce title="Recovery codes" value={codes.join('\n')} testId="recovery-codes" />}
    </section>
  );
}
