import { useState } from 'preact/hooks';
import { account, type MfaSetup } from '../api/account.js';
import { CopyButton } from '../ui/copy-button.js';
import { ProblemNote } from '../ui/problem-note.js';
import { useStepUp } from '../ui/step-up.js';
import { useAction } from '../ui/use-action.js';

/**
 * TOTP enrolment: the QR (rendered by the service, shown as an image), the secret as text, a first code.
 * Enrolled, the same steps put a new authenticator in place of the old one, after a step-up (a recovery
 * code does when the old device is lost).
 */
export function MfaPage({ enrolled, onEnrolled }: { enrolled: boolean; onEnrolled: () => void }) {
  const [setup, setSetup] = useState<MfaSetup | undefined>(undefined);
  const guard = useStepUp();
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState<string[] | undefined>(undefined);
  const { busy, problem, run } = useAction();

  if (recovery) {
    const text = recovery.join('\n');
    return (
      <main id="main" class="narrow">
        <h1>MFA is on</h1>
        <section aria-label="Recovery codes" class="shown-once">
          <h2>Your recovery codes</h2>
          <p>
            Shown this once. Each works once in place of an authenticator code, if you lose the device. Keep
            them somewhere safe.
          </p>
          <pre>
            <code data-testid="recovery-codes">{text}</code>
          </pre>
          <CopyButton text={text} label="Copy recovery codes" />
        </section>
        <p>
          <a href="#/webhooks">Continue to webhook endpoints</a>
        </p>
      </main>
    );
  }
  const start = () => run(async () => setSetup(await guard(() => account.startMfa())));
  if (enrolled && !setup) {
    return (
      <main id="main" class="narrow">
        <h1>MFA</h1>
        <p>MFA is enrolled for your account. Sensitive actions ask for a fresh code every 15 minutes.</p>
        <h2>A new authenticator</h2>
        <p>
          Lost the device, or moving to another? Confirm it is you (with a recovery code if the old device is
          gone), then scan a new code. The old authenticator and the old recovery codes stop working once the
          new one is confirmed.
        </p>
        <button type="button" onClick={start} disabled={busy}>
          Set up a new authenticator
        </button>
        <ProblemNote problem={problem} />
      </main>
    );
  }
  const confirm = async (event: Event) => {
    event.preventDefault();
    await run(async () => {
      const answer = await account.confirmMfa(code.trim());
      setRecovery(answer.recovery_codes);
      onEnrolled();
    });
  };
  return (
    <main id="main" class="narrow">
      <h1>{enrolled ? 'Set up a new authenticator' : 'Set up MFA'}</h1>
      <p>
        Minting keys, creating endpoints and inviting members need a code from an authenticator app (TOTP, as
        in Google Authenticator, 1Password or Aegis).
      </p>
      {!setup ? (
        <button type="button" onClick={start} disabled={busy}>
          Start MFA setup
        </button>
      ) : (
        <form onSubmit={confirm}>
          <img
            class="qr"
            src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qr_svg)}`}
            alt="QR code of the authenticator secret"
          />
          <p>
            Scan the code, or type this secret into the app:{' '}
            <code data-testid="totp-secret">{setup.secret}</code>{' '}
            <CopyButton text={setup.secret} label="Copy secret" />
          </p>
          <label for="mfa-code">First code from the app</label>
          <input
            id="mfa-code"
            inputMode="numeric"
            autoComplete="one-time-code"
            required
            value={code}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy}>
            Confirm
          </button>
        </form>
      )}
      <ProblemNote problem={problem} />
    </main>
  );
}
