// The key and fingerprint shapes are the contract's (the service checks the same); re-exported because
// the mock's users had them from here first.
export { API_KEY_PATTERN, FINGERPRINT_PATTERN } from '@svc-kit/contract';
export { sandboxFingerprint } from './cards/fingerprint.js';
export {
  createSandboxCard,
  parseSandboxCard,
  SANDBOX_CARD_PREFIX,
  type SandboxCard,
  type SandboxCardInput,
} from './cards/sandbox-card.js';
export type { WebhookReceiver } from './delivery/dial.js';
export type { RecordedEvent, SentDelivery } from './delivery/queue.js';
export type { InjectedFailure, InjectionTarget, InjectOptions } from './faults/injection.js';
export { SANDBOX_API_KEY, SANDBOX_SESSION, SESSION_COOKIE } from './http/credentials.js';
export type { Latency } from './http/latency.js';
export type { SandboxPeer } from './peers/peer.js';
export { ID_PREFIXES } from './random/ids.js';
export { createSandbox, type Sandbox, type SandboxOptions } from './sandbox/create-sandbox.js';
export type { DeliveryOptions, EmitOptions, SandboxDeliveries } from './sandbox/deliveries.js';
export type { JsonValue, ToolResult } from './state/model.js';
export type {
  SandboxData,
  SeedApiKey,
  SeedCatalogueEntry,
  SeedContact,
  SeedDelivery,
  SeedIdentity,
  SeedIntegration,
  SeedSession,
  SeedTool,
  SeedWebhook,
} from './state/seed-types.js';
export type { SandboxStateView, WebhookSecrets } from './state/views.js';
