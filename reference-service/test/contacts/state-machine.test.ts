import { describe, expect, it } from 'vitest';
import * as rules from '../../src/features/contacts/rules.js';
import type { ContactRow } from '../../src/store/queries/contacts.js';

// The pure rules alone, with no database and no peer: the same functions the local operations and the
// inbound peer verbs apply (the HTTP tests of this folder cover them end to end).

const NOW = 1_800_000_000_000;

function row(status: ContactRow['status'], blocked: ContactRow['blocked_kind'] = null): ContactRow {
  return {
    identity_id: 'idn_a',
    fingerprint: 'sha256:b',
    workspace_id: 'wsp_a',
    display_name: 'b',
    endpoint: 'https://b.example/peer/v1',
    public_key: 'key',
    card: 'card',
    card_expires_at: NOW + 1000,
    status,
    blocked_kind: blocked,
    preset: 'basic',
    permissions: ['messages:receive'],
    trust_flag: 'messages_only',
    petname: '',
    request_note: null,
    last_seen_at: NOW - 1000,
    acceptance_unheard_since: null,
    created_at: NOW - 5000,
    updated_at: NOW - 5000,
  };
}

function transition<A>(outcome: rules.Outcome<string, A>): rules.Transition<A> {
  if (rules.isRefusal(outcome)) throw new Error(`refused: ${outcome.refused}`);
  return outcome;
}

describe('the contact state machine (spec 3.2)', () => {
  it('approves only a waiting request, with the preset’s switches, and notes an unheard acceptance', () => {
    const approved = transition(
      rules.approve(row('pending_in'), { preset: 'close', notified: false, now: NOW }),
    );
    expect(approved.state).toMatchObject({
      status: 'active',
      preset: 'close',
      permissions: ['messages:receive', 'tools:list', 'tools:call'],
      acceptance_unheard_since: NOW,
    });
    expect(approved.events).toEqual(['contact.approved']);
    for (const status of ['active', 'pending_out', 'blocked'] as const) {
      expect(rules.approve(row(status), { preset: 'basic', notified: true, now: NOW })).toMatchObject({
        refused: 'not_found',
      });
    }
    expect(rules.approve(null, { preset: 'basic', notified: true, now: NOW })).toMatchObject({
      refused: 'not_found',
    });
  });

  it('pins a rejected party as declined, and unblocking it forgets it; a blocked contact comes back', () => {
    const rejected = transition(rules.reject(row('pending_in'), { now: NOW }));
    expect(rejected.state).toMatchObject({ status: 'blocked', blocked_kind: 'declined' });
    expect(rejected.events).toEqual(['contact.rejected']);
    const forgotten = transition(rules.unblock(rejected.state, { now: NOW }));
    expect(forgotten).toMatchObject({ state: null, answer: 'forgotten', events: ['contact.unblocked'] });

    const blocked = transition(rules.block(row('active'), { now: NOW }));
    expect(blocked.state).toMatchObject({ status: 'blocked', blocked_kind: 'contact' });
    const back = transition(rules.unblock(blocked.state, { now: NOW }));
    expect(back).toMatchObject({ state: { status: 'active', blocked_kind: null }, answer: 'active' });
    expect(rules.unblock(row('active'), { now: NOW })).toMatchObject({ refused: 'not_found' });
  });

  it('leaves a blocked row as it is when blocked again (the same object: nothing to write)', () => {
    const before = row('blocked', 'contact');
    const again = transition(rules.block(before, { now: NOW }));
    expect(again.state).toBe(before);
    expect(again.events).toEqual([]);
  });

  it('refuses a request to a party the identity blocked, as a policy refusal (403)', () => {
    expect(rules.mayRequest(row('blocked', 'declined'))).toMatchObject({ refused: 'forbidden' });
    expect(rules.mayRequest(row('pending_out'))).toBeUndefined();
    expect(rules.mayRequest(null)).toBeUndefined();
  });

  it('on the receiving side: a stranger’s request waits, a crossed request makes both contacts', () => {
    const fresh = row('pending_in');
    const waiting = transition(rules.requestReceived(null, { fresh, note: 'hi', now: NOW }));
    expect(waiting).toMatchObject({
      state: { status: 'pending_in', request_note: 'hi' },
      events: ['contact.requested'],
      answer: { status: 'pending' },
    });
    const crossed = transition(
      rules.requestReceived(row('pending_out'), { fresh, note: undefined, now: NOW }),
    );
    expect(crossed).toMatchObject({ state: { status: 'active' }, answer: { status: 'active' } });
    expect(crossed.events).toEqual(['contact.approved']);
  });

  it('on the receiving side: a declined party is told so, a silently blocked one is not', () => {
    const fresh = row('pending_in');
    expect(
      rules.requestReceived(row('blocked', 'declined'), { fresh, note: undefined, now: NOW }),
    ).toMatchObject({
      refused: 'declined',
    });
    const silent = row('blocked', 'contact');
    const answered = transition(rules.requestReceived(silent, { fresh, note: undefined, now: NOW }));
    expect(answered).toMatchObject({ answer: { status: 'pending' }, events: [] });
    expect(answered.state).toBe(silent);
    expect(rules.acceptReceived(row('pending_in'), { now: NOW })).toMatchObject({ refused: 'not_requested' });
  });

  it('on the receiving side: a removal unpins both sides but keeps a declined party pinned', () => {
    expect(rules.removeReceived(row('blocked', 'contact'))).toMatchObject({
      state: null,
      events: ['contact.removed'],
    });
    const declined = row('blocked', 'declined');
    expect(rules.removeReceived(declined).state).toBe(declined);
    expect(rules.rejectReceived(row('pending_out'))).toMatchObject({
      state: null,
      events: ['contact.rejected'],
    });
  });
});
