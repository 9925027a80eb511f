import type { Behaviours } from './behaviour.js';
import { contactBehaviours } from './contacts.js';
import { integrationBehaviours } from './integrations.js';
import { webhookBehaviours } from './webhooks.js';

/** The sandbox's model of every operation, keyed like the contract's `operations` table. */
export const behaviours: Behaviours = {
  ...webhookBehaviours,
  ...contactBehaviours,
  ...integrationBehaviours,
};
