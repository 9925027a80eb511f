import { type ComponentChildren, createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { account } from '../api/account.js';
import { needsStepUp, type Problem, toProblem } from '../api/problem.js';
import { ProblemNote } from './problem-note.js';
import { sentence } from './sentence.js';

type Guard = <T>(action: () => Promise<T>) => Promise<T>;

const StepUpContext = createContext<Guard>((action) => action());

/**
 * `guard(action)`: runs the action; when the service answers `step_up_required`, asks for a fresh MFA code
 * (or a recovery code) in a modal dialog, steps the session up, and runs the action once more.
 */
export function useStepUp(): Guard {
  return useContext(StepUpContext);
}

interface Pending {
  resolve: (ok: boolean) => void;
  reason: string;
}

export function StepUpProvider({
  children,
  onSteppedUp,
  sandboxOwner = false,
}: {
  children: ComponentChildren;
  onSteppedUp: () => void;
  /** The sandbox's seeded owner: the dialog says where its code comes from. */
  sandboxOwner?: boolean;
}) {
  const [pending, setPending] = useState<Pending | undefined>(undefined);
  const guard: Guard = async (action) => {
    try {
      return await action();
    } catch (error) {
      if (!needsStepUp(error)) throw error;
      const ok = await new Promise<boolean>((resolve) =>
        setPending({ resolve, reason: toProblem(error).message }),
      );
      if (!ok) throw error;
      onSteppedUp();
      return action();
    }
  };
  return (
    <StepUpContext.Provider value={guard}>
      {children}
      {pending && (
        <StepUpDialog
          reason={pending.reason}
          sandboxOwner={sandboxOwner}
          done={(ok) => {
            setPending(undefined);
            pending.resolve(ok);
          }}
        />
      )}
    </StepUpContext.Provider>
  );
}

function StepUpDialog({
  reason,
  sandboxOwner,
  done,
}: {
  reason: string;
  sandboxOwner: boolean;
  done: (ok: boolean) => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [code, setCode] = useState('');
  const [useRecovery, setUseRecovery] = useState(false);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      await account.stepUp(useRecovery ? { recovery_code: code.trim() } : { code: code.trim() });
      dialog.current?.close();
      done(true);
    } catch (error) {
      setProblem(toProblem(error));
      setCode('');
    } finally {
      setBusy(false);
    }
  };
  return (
    <dialog
      ref={dialog}
      aria-labelledby="step-up-title"
      onCancel={(event) => {
        event.preventDefault();
        dialog.current?.close();
        done(false);
      }}
    >
      <form onSubmit={submit}>
        <h2 id="step-up-title">Confirm it is you</h2>
        {/* The service's refusal says what is needed and for how long, once; the page adds no copy of it. */}
        <p data-testid="step-up-reason">{sentence(reason)}</p>
        <label for="step-up-code">{useRecovery ? 'Recovery code' : 'Code from your authenticator app'}</label>
        <input
          id="step-up-code"
          name="code"
          autoComplete="one-time-code"
          inputMode={useRecovery ? 'text' : 'numeric'}
          required
          value={code}
          onInput={(event) => setCode(event.currentTarget.value)}
        />
        {sandboxOwner && !useRecovery && (
          <p class="muted" data-testid="sandbox-totp">
            You are the sandbox's seeded owner: on the machine that runs the service,{' '}
            <code>{'npm run sandbox -- totp'}</code> in the repository prints the current code.
          </p>
        )}
        <label class="inline">
          <input
            type="checkbox"
            checked={useRecovery}
            onChange={(event) => setUseRecovery(event.currentTarget.checked)}
          />
          Use a recovery code instead
        </label>
        <ProblemNote problem={problem} />
        <div class="actions">
          <button type="submit" disabled={busy}>
            Confirm
          </button>
          <button
            type="button"
            onClick={() => {
              dialog.current?.close();
              done(false);
            }}
          >
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
