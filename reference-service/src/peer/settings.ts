/** How this instance talks to peers (read by config.ts; a test may pass its own). */
export interface PeerSettings {
  /** Sandbox opt-in (SVC_ALLOW_LOCALHOST_PEERS=1): peers on http(s)://localhost and 127.0.0.1. */
  allowLocalhost: boolean;
  /** Timeout of one outbound peer call. */
  timeoutMs: number;
}

export const DEFAULT_PEER_TIMEOUT_MS = 5000;

/** The settings when none are given: no sandbox opt-in. */
export const DEFAULT_PEER_SETTINGS: PeerSettings = {
  allowLocalhost: false,
  timeoutMs: DEFAULT_PEER_TIMEOUT_MS,
};
