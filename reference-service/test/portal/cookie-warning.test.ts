import { describe, expect, it } from 'vitest';
import { insecureOriginWarning } from '../../src/features/portal-static/cookie-warning.js';

describe('the start-up warning about an origin where browsers drop the session cookie', () => {
  it('warns for plain http on a host that is not loopback, and only then', () => {
    for (const origin of [
      'https://svc.example',
      'http://127.0.0.1:8080',
      'http://127.0.4.5:8080',
      'http://localhost:8080',
      'http://portal.localhost:8080',
      'http://[::1]:8080',
    ])
      expect(insecureOriginWarning(origin), origin).toEqual([]);
    for (const origin of ['http://192.0.2.2:18420', 'http://svc.example', 'http://[2001:db8::1]:8080']) {
      const lines = insecureOriginWarning(origin);
      expect(lines[0], origin).toContain(`WARNING: ${origin} is plain http`);
      expect(lines.join(' ')).toMatch(/https/);
    }
  });
});
