import { describe, expect, it } from 'vitest';
import { type OperationId, operations } from '../src/index.js';
import { contact, delivery, endpoint, exposure, integration, tool } from './fixtures.js';

// One valid answer per operation, from the payload tables of spec part 4.
const valid: Record<Exclude<OperationId, 'deleteWebhook'>, unknown> = {
  listWebhooks: { endpoints: [endpoint], events: ['message.received'], enabled: false },
  createWebhook: { endpoint, secret: 'whsec_abc' },
  rotateWebhookSecret: { secret: 'whsec_new', previous_accepted_until: 1_735_776_000_000 },
  setWebhookStatus: { endpoints: [endpoint] },
  listWebhookDeliveries: { deliveries: [delivery] },
  listContacts: { contacts: [contact] },
  requestContact: {
    status: 'pending',
    contact: { fingerprint: 'fp', endpoint: 'https://p', display_name: 'P' },
  },
  updateContact: { contact },
  removeContact: { status: 'removed', fingerprint: 'fp', notified: true },
  approveContact: { status: 'approved', fingerprint: 'fp', preset: 'basic', notified: false },
  rejectContact: { status: 'rejected', fingerprint: 'fp', notified: true },
  notifyAcceptance: { fingerprint: 'fp', notified: false, refusal: 'peer unreachable' },
  listContactTools: { tools: [tool] },
  callContactTool: { ok: true, result: { rows: [1, 2] } },
  blockContact: { status: 'blocked', fingerprint: 'fp' },
  unblockContact: { status: 'forgotten', fingerprint: 'fp' },
  setPetname: null,
  refreshContact: { outcome: 'renewed', why: 'certificate renewed' },
  setTrust: null,
  listIntegrations: { integrations: [integration] },
  createIntegration: {
    integration,
    tools: 4,
    trouble: null,
    authorization_url: 'https://auth.example/start',
  },
  authorizeIntegration: { authorization_url: 'https://auth.example/start' },
  getExposure: exposure,
  setExposure: { version: 4 },
  deleteIntegration: null,
};

describe('answers', () => {
  it.each(Object.entries(valid))('%s: accepts the spec’s shape and refuses an extra field', (id, answer) => {
    const schema = operations[id as OperationId].success.schema;
    if (!schema) throw new Error(`${id} has no answer schema`);
    expect(schema.safeParse(answer).success).toBe(true);
    const tampered = answer === null ? { unexpected: true } : { ...(answer as object), unexpected: true };
    expect(schema.safeParse(tampered).success).toBe(false);
  });

  it('fixed status literals', () => {
    const { removeContact, approveContact, rejectContact, blockContact, unblockContact, requestContact } =
      operations;
    expect(
      removeContact.success.schema.safeParse({ status: 'gone', fingerprint: 'f', notified: true }).success,
    ).toBe(false);
    expect(
      approveContact.success.schema.safeParse({ ...(valid.approveContact as object), status: 'active' })
        .success,
    ).toBe(false);
    expect(
      rejectContact.success.schema.safeParse({ ...(valid.rejectContact as object), status: 'blocked' })
        .success,
    ).toBe(false);
    expect(blockContact.success.schema.safeParse({ status: 'active', fingerprint: 'f' }).success).toBe(false);
    expect(unblockContact.success.schema.safeParse({ status: 'active', fingerprint: 'f' }).success).toBe(
      true,
    );
    expect(unblockContact.success.schema.safeParse({ status: 'blocked', fingerprint: 'f' }).success).toBe(
      false,
    );
    expect(
      requestContact.success.schema.safeParse({ ...(valid.requestContact as object), status: 'active' })
        .success,
    ).toBe(true);
  });

  it('callContactTool: result is required but may be any JSON value, null included', () => {
    const schema = operations.callContactTool.success.schema;
    for (const result of [null, 0, 'text', [1], { a: 1 }, false]) {
      expect(schema.safeParse({ ok: true, result }).success).toBe(true);
    }
    expect(schema.safeParse({ ok: true }).success).toBe(false);
  });

  it('refreshContact: outcome required from the five values, why optional', () => {
    const schema = operations.refreshContact.success.schema;
    for (const outcome of ['unchanged', 'updated', 'renewed', 'unreachable', 'refused']) {
      expect(schema.safeParse({ outcome }).success).toBe(true);
    }
    expect(schema.safeParse({ outcome: 'failed' }).success).toBe(false);
    expect(schema.safeParse({ why: 'x' }).success).toBe(false);
  });

  it('null answers accept only null', () => {
    for (const id of ['setPetname', 'setTrust', 'deleteIntegration'] as const) {
      const schema = operations[id].success.schema;
      expect(schema.safeParse(null).success).toBe(true);
      expect(schema.safeParse({}).success).toBe(false);
      expect(schema.safeParse(undefined).success).toBe(false);
    }
    expect(operations.deleteWebhook.success).toEqual({ status: 204, schema: null });
  });
});
