import type { Reach } from '../domain/local-targets.js';

/** How this instance talks to peers (read by config.ts; a test may pass its own). */
export interface PeerSettings {
  /** Peers on http(s)://localhost and 127.0.0.1: a local sandbox, or SVC_ALLOW_LOCALHOST_PEERS=1. */
  allowLocalhost: boolean;
  /** Who may reach this instance, for the refusal of a peer on localhost; unset: the rule in general. */
  reach?: Reach | undefined;
  /** Timeout of one outbound peer call. */
  timeoutMs: number;
}

/** The settings when none are given: no sandbox opt-in. */
export const DEFAULT_PEER_SETTINGS: PeerSettings = {
  allowLocalhost: false,
  timeoutMs: 5000,
};
