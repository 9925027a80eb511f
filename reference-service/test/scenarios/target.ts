import type { Client } from '@svc-kit/client';

/**
 * What a target can show beyond the API's own answers. A scenario that needs one says so: it asserts the
 * part only where the target declares it, and the part it runs everywhere stays the same. Each flag that
 * is `false` for the mock names something the mock does not model, on purpose.
 */
export interface Capabilities {
  /** Two parties talk over the peer protocol: the other side of a contact change is visible there. */
  peers: boolean;
  /** Upstream MCP servers are dialled: an address that cannot be reached is reported as such. */
  upstreams: boolean;
}

/** An identity of the target, with its own typed client (an API key with every permission). */
export interface Party {
  slug: string;
  fingerprint: string;
  /** A card other parties of the same target accept in requestContact. */
  card: string;
  api: Client;
  /** The raw API key, for hand-built requests. */
  key: string;
}

export interface Target {
  name: string;
  capabilities: Capabilities;
  baseUrl: string;
  /** Two fresh identities that have never met. */
  pair(): Promise<[Party, Party]>;
  /** A client on a stepped-up session of the workspace of `party` (createWebhook needs one). */
  sessionClient(party: Party): Client;
  /** The headers that client sends (cookie, origin), for a session call built by hand. */
  sessionHeaders(party: Party): Record<string, string>;
  /** Gives `party` an active contact whose peer no longer answers; resolves with its fingerprint. */
  unreachableContact(party: Party): Promise<string>;
  /**
   * `from` asks `to` to become a contact. With peers the request travels; without, `from` sends it and the
   * target puts the received request on `to`'s side, as the peer would have.
   */
  deliverRequest(from: Party, to: Party): Promise<void>;
  /** A catalogue entry whose upstream serves the tools `echo` and `add`. */
  catalogueEntry: string;
  /** A catalogue entry whose upstream asks for OAuth: connected without `auth`, it needs authorization. */
  oauthCatalogueEntry: string;
  /** A catalogue entry whose upstream answers 401 to a request without its credential (no OAuth). */
  lockedCatalogueEntry: string;
  /**
   * Receiver addresses that never answer, and webhooks turned on for the party's workspace: `refused`
   * refuses the connection, `silent` accepts it and says nothing past the delivery timeout.
   */
  unansweredReceivers(party: Party): Promise<{ refused: string; silent: string }>;
  /**
   * Turns the party's workspace's `webhooks_enabled` flag on or off. Every target admits receivers on
   * loopback over http (`startReceiver`) and delivers to them within a second of timeout.
   */
  setWebhooksEnabled(party: Party, enabled: boolean): Promise<void>;
  /** An address accepted as a webhook receiver (public-looking, https), on a host of its own per `subdomain`. */
  webhookUrl(path: string, subdomain?: string): string;
  /** Moves the target's clock forward (the wall clock plus an offset), for windows and budgets. */
  advanceClock(ms: number): void;
  /** A fetch of the target's API with the party's key, for what the typed client refuses to send. */
  fetch(party: Party, path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** The credential the locked catalogue entry's upstream asks for. */
export const LOCKED_UPSTREAM_CREDENTIAL = { header: 'X-Api-Key', value: 'scenario-credential' };
