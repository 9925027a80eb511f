import { peerEndpointOf } from './peer/own-identity.js';

/**
 * This instance's base URL (its cards, the OAuth callback) and the origin a portal call must come from:
 * configuration or, in the sandbox, the listening address; never what a request says (`Host`,
 * `X-Forwarded-*`), because what it feeds is signed or trusted.
 */
export class PublicAddress {
  #baseUrl: string | undefined;
  #origin: string | undefined;

  constructor(configured: { publicUrl?: string | undefined; publicOrigin?: string | undefined } = {}) {
    if (configured.publicUrl !== undefined) this.#baseUrl = normaliseBaseUrl(configured.publicUrl);
    if (configured.publicOrigin !== undefined) this.#origin = new URL(configured.publicOrigin).origin;
  }

  /** Sandbox default: once the server listens, its own address stands for whatever was not configured. */
  settle(listenAddress: string): void {
    this.#baseUrl ??= normaliseBaseUrl(listenAddress);
  }

  get baseUrl(): string {
    // Requests are served only after `settle`; reaching this unsettled is a wiring mistake, not input.
    if (this.#baseUrl === undefined) throw new Error('the public URL is used before the server listens');
    return this.#baseUrl;
  }

  /** The one origin a state-changing session call may come from. */
  get origin(): string {
    // Read on every call: parsed once, when first read after `settle`.
    this.#origin ??= new URL(this.baseUrl).origin;
    return this.#origin;
  }

  /** The peer protocol's base URL in this instance's cards. */
  get peerEndpoint(): string {
    return peerEndpointOf(this.baseUrl);
  }
}

function normaliseBaseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}
