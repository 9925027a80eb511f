import { PASSWORD_RULES, passwordProblem } from '../../../src/features/accounts/password-policy.js';

/**
 * A field for a new password with the service's rules stated under it before anything is typed, checked
 * as the person types (the browser holds the form back with the same words the service would answer).
 */
export function NewPasswordField({
  id,
  label,
  email,
  value,
  onInput,
}: {
  id: string;
  label: string;
  /** The account's e-mail, which the password must not contain; '' while not known yet. */
  email: string;
  value: string;
  onInput: (value: string) => void;
}) {
  const problem = value === '' ? undefined : passwordProblem(value, email.trim().toLowerCase());
  return (
    <>
      <label for={id}>{label}</label>
      <input
        id={id}
        type="password"
        autoComplete="new-password"
        required
        aria-describedby={`${id}-rules ${id}-check`}
        value={value}
        onInput={(e) => {
          const next = e.currentTarget.value;
          e.currentTarget.setCustomValidity(
            next === '' ? '' : (passwordProblem(next, email.trim().toLowerCase()) ?? ''),
          );
          onInput(next);
        }}
      />
      <div id={`${id}-rules`} class="rules">
        A password needs:
        <ul>
          {PASSWORD_RULES.map((rule) => (
            <li key={rule}>{rule}</li>
          ))}
        </ul>
      </div>
      <p id={`${id}-check`} class={problem ? 'check-bad' : 'check-ok'}>
        {value === '' ? '' : (problem ?? 'The password meets the rules.')}
      </p>
    </>
  );
}
