import { describe, expect, it } from 'vitest';
import { isOperationId, type Operation, operationList, operations } from '../src/index.js';

type Row = [
  id: string,
  method: Operation['method'],
  path: string,
  permission: string,
  action: string,
  flags: string,
  success: number,
];

const ws = '/v1/workspace/webhooks';
const c = '/v1/identities/{slug}/contacts';
const cf = `${c}/{fingerprint}`;
const i = '/v1/identities/{slug}/integrations';
const admin = 'service:workspace:admin';
const cRead = 'service:contacts:read';
const cManage = 'service:contacts:manage';
const iRead = 'service:identities:read';
const iManage = 'service:identities:manage';

// Written from the spec's tables in part 4 (flags: s = suspended, i = idempotent, u = step-up).
const expected: Row[] = [
  ['listWebhooks', 'GET', ws, admin, 'webhook:read', '', 200],
  ['createWebhook', 'POST', ws, admin, 'webhook:create', 'su', 201],
  ['rotateWebhookSecret', 'POST', `${ws}/{id}/secret`, admin, 'webhook:manage', 's', 200],
  ['setWebhookStatus', 'PATCH', `${ws}/{id}`, admin, 'webhook:manage', 's', 200],
  ['deleteWebhook', 'DELETE', `${ws}/{id}`, admin, 'webhook:delete', '', 204],
  ['listWebhookDeliveries', 'GET', `${ws}/{id}/deliveries`, admin, 'webhook:read', '', 200],
  ['listContacts', 'GET', c, cRead, 'contact:read', '', 200],
  ['requestContact', 'POST', c, cManage, 'contact:write', 's', 201],
  ['updateContact', 'PATCH', cf, cManage, 'contact:write', 's', 200],
  ['removeContact', 'DELETE', cf, cManage, 'contact:write', 's', 200],
  ['approveContact', 'POST', `${cf}/approve`, cManage, 'contact:write', 'si', 200],
  ['rejectContact', 'POST', `${cf}/reject`, cManage, 'contact:write', 'si', 200],
  ['notifyAcceptance', 'POST', `${cf}/tell-accepted`, cManage, 'contact:write', 'si', 200],
  ['listContactTools', 'GET', `${cf}/tools`, cRead, 'contact:read', '', 200],
  ['callContactTool', 'POST', `${cf}/call`, 'service:messages:send', 'message:send', 's', 200],
  ['blockContact', 'POST', `${cf}/block`, cManage, 'contact:write', 'si', 200],
  ['unblockContact', 'POST', `${cf}/unblock`, cManage, 'contact:write', 's', 200],
  ['setPetname', 'PATCH', `${cf}/petname`, cManage, 'contact:write', 's', 200],
  ['refreshContact', 'POST', `${cf}/refresh`, cManage, 'contact:write', 's', 200],
  ['setTrust', 'PATCH', `${cf}/trust`, 'service:contacts:trust', 'contact:trust', 's', 200],
  ['listIntegrations', 'GET', i, iRead, 'identity:read', '', 200],
  ['createIntegration', 'POST', i, iManage, 'integration:write', 's', 201],
  ['authorizeIntegration', 'POST', `${i}/{name}/authorize`, iManage, 'integration:write', 's', 200],
  ['getExposure', 'GET', `${i}/{name}/exposure`, iRead, 'identity:read', '', 200],
  ['setExposure', 'POST', `${i}/{name}/exposure`, iManage, 'integration:write', 's', 200],
  ['deleteIntegration', 'DELETE', `${i}/{name}`, iManage, 'integration:write', 's', 200],
];

// Operations that cannot answer without the peer's own answer (not a spec rule: our choice, see error-codes.md).
const needsPeerAnswer = new Set(['requestContact', 'listContactTools', 'callContactTool']);

// Part 8: the operations that call a contact's peer, and so can answer 429.
const outbound = new Set([
  'requestContact',
  'removeContact',
  'approveContact',
  'rejectContact',
  'notifyAcceptance',
  'listContactTools',
  'callContactTool',
  'refreshContact',
]);

// Ours: the reads a budget of the workspace bounds (a filter through the log's window), and so can answer 429.
const budgeted = new Set(['listWebhookDeliveries']);

describe('the operation table', () => {
  it('has exactly the spec’s operations, keyed by their operationId', () => {
    expect(Object.keys(operations)).toEqual(expected.map(([id]) => id));
    for (const [key, op] of Object.entries(operations)) expect(op.operationId).toBe(key);
    expect(operationList).toHaveLength(expected.length);
  });

  it.each(expected)('%s: %s %s', (id, method, path, permission, action, flags, success) => {
    expect(isOperationId(id)).toBe(true);
    const op: Operation = operations[id as keyof typeof operations];
    expect({
      method: op.method,
      path: op.path,
      permission: op.permission,
      action: op.action,
      flags: op.flags,
      success: op.success.status,
    }).toEqual({
      method,
      path,
      permission,
      action,
      flags: { suspended: flags.includes('s'), idempotent: flags.includes('i'), stepUp: flags.includes('u') },
      success,
    });
  });

  it.each(operationList.map((op) => [op.operationId, op] as const))(
    '%s: path parameters match the path template',
    (_id, op) => {
      const inTemplate = [...op.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(op.pathParams ? Object.keys(op.pathParams.shape) : []).toEqual(inTemplate);
    },
  );

  it.each(operationList.map((op) => [op.operationId, op] as const))(
    '%s: refusal statuses follow the spec',
    (id, op) => {
      const statuses = new Set<number>(op.errors);
      // 400 everywhere: a query parameter or a body the operation does not take is refused too.
      for (const always of [400, 401, 403, 404]) expect(statuses.has(always)).toBe(true);
      expect(statuses.has(422)).toBe(op.flags.idempotent);
      expect(statuses.has(429)).toBe(outbound.has(id) || budgeted.has(id));
      // Our choice (error-codes page): 503 where a peer's answer is needed, or an idempotent first call may still run.
      expect(statuses.has(503)).toBe(op.flags.idempotent || needsPeerAnswer.has(id));
      // Our choice (error-codes page): 502 where the answer is an upstream server's (authorizeIntegration).
      expect(statuses.has(502)).toBe(id === 'authorizeIntegration');
      expect([...statuses].every((status) => [400, 401, 403, 404, 422, 429, 502, 503].includes(status))).toBe(
        true,
      );
      expect([...op.errors]).toEqual([...op.errors].sort((a, b) => a - b));
    },
  );

  it('has a body-less success exactly for deleteWebhook, and a null body for the three null answers', () => {
    const noBody = operationList.filter((op) => op.success.schema === null).map((op) => op.operationId);
    expect(noBody).toEqual(['deleteWebhook']);
    const nullBody = operationList
      .filter((op) => op.success.schema?.safeParse(null).success)
      .map((op) => op.operationId);
    expect(nullBody).toEqual(['setPetname', 'setTrust', 'deleteIntegration']);
  });

  it('takes a body exactly where the spec describes a request payload', () => {
    const withBody = operationList.filter((op) => op.body !== null).map((op) => op.operationId);
    expect(withBody).toEqual([
      'createWebhook',
      'setWebhookStatus',
      'requestContact',
      'updateContact',
      'approveContact',
      'callContactTool',
      'setPetname',
      'refreshContact',
      'setTrust',
      'createIntegration',
      'authorizeIntegration',
      'setExposure',
    ]);
  });

  it('refuses path parameters that are empty, missing or unknown', () => {
    const params = operations.setTrust.pathParams;
    expect(params.safeParse({ slug: 'ops', fingerprint: 'fp_1' }).success).toBe(true);
    expect(params.safeParse({ slug: '', fingerprint: 'fp_1' }).success).toBe(false);
    expect(params.safeParse({ slug: 'ops' }).success).toBe(false);
    expect(params.safeParse({ slug: 'ops', fingerprint: 'fp_1', extra: 'x' }).success).toBe(false);
  });
});
