import { ConfigError } from '../config.js';

/** How this instance talks to peers; read from the environment unless a caller (a test) passes them. */
export interface PeerSettings {
  /** Sandbox opt-in (SVC_ALLOW_LOCALHOST_PEERS=1): peers on http(s)://localhost and 127.0.0.1. */
  allowLocalhost: boolean;
  /** Timeout of one outbound peer call. */
  timeoutMs: number;
}

export const DEFAULT_PEER_TIMEOUT_MS = 5000;

export function peerSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): PeerSettings {
  const allowLocalhost = env.SVC_ALLOW_LOCALHOST_PEERS === '1';
  if (allowLocalhost && env.NODE_ENV === 'production') {
    throw new ConfigError(
      'SVC_ALLOW_LOCALHOST_PEERS=1 is a sandbox setting and is refused with NODE_ENV=production',
    );
  }
  return { allowLocalhost, timeoutMs: DEFAULT_PEER_TIMEOUT_MS };
}
