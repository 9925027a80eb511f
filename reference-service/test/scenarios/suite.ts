import { afterAll, beforeAll, describe } from 'vitest';
import { contactScenarios } from './contacts.js';
import { deliveryScenarios } from './deliveries.js';
import { integrationScenarios } from './integrations.js';
import { openApiScenarios } from './openapi.js';
import { parityScenarios } from './parity.js';
import type { Target } from './target.js';
import { webhookScenarios } from './webhooks.js';

/**
 * The scenario suite, written once against `Target` and the typed client, run by one test file per target
 * (the mock, the service on PGlite, the service on PostgreSQL). A difference between them fails a test.
 */
export function runScenarios(start: () => Promise<Target>): void {
  let target: Target | undefined;
  const current = (): Target => {
    if (!target) throw new Error('the target did not start');
    return target;
  };
  beforeAll(async () => {
    target = await start();
  });
  afterAll(async () => {
    await target?.close();
  });
  describe('webhooks', () => webhookScenarios(current));
  describe('deliveries', () => deliveryScenarios(current));
  describe('contacts', () => contactScenarios(current));
  describe('integrations', () => integrationScenarios(current));
  describe('OpenAPI document', () => openApiScenarios(current));
  describe('parity of the mock and the service', () => parityScenarios(current));
}
