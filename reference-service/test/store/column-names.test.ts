import { describe, expect, it } from 'vitest';
import { columnNames } from '../../src/store/db.js';

// insertRow and updateIntegration name columns after a row's members: a member that came from outside
// must never become statement text, whatever the types said.
describe('columnNames', () => {
  it('passes the members of a row as they are, in order', () => {
    expect(columnNames({ id: 'x', workspace_id: 'w', created_at: 1 })).toEqual([
      'id',
      'workspace_id',
      'created_at',
    ]);
  });

  it.each(['id) VALUES (1); DROP TABLE members; --', 'Id', 'a b', '1a', '"id"', ''])('refuses %j', (key) => {
    expect(() => columnNames({ id: 'x', [key]: 1 })).toThrow(/not a column name/);
  });
});
