import { describe, expect, it } from 'vitest';
import {
  PASSWORD_MIN_LENGTH,
  PASSWORD_RULES,
  passwordProblem,
} from '../../src/features/accounts/password-policy.js';

// One policy for the service's refusals and the portal's rules as stated beside the field.
describe('the password policy', () => {
  it('refuses in the order the stated rules list them', () => {
    expect(PASSWORD_RULES[0]).toContain(String(PASSWORD_MIN_LENGTH));
    expect(passwordProblem('short', 'ann@x.example')).toMatch(/at least 12/);
    expect(passwordProblem('abababababab', 'ann@x.example')).toMatch(/too few different/);
    expect(passwordProblem('my name is ann@x.example', 'ann@x.example')).toMatch(/e-mail/);
    expect(passwordProblem('a long pass phrase', 'ann@x.example')).toBeUndefined();
  });

  it('has nothing to compare before the address is known (the invite form)', () => {
    expect(passwordProblem('a long pass phrase', '')).toBeUndefined();
  });
});
