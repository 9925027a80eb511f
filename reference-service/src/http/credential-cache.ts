// The cache lives in store/ (it is read by the context every layer shares, below http/); this name is kept
// for http/principal.ts until that file imports store/credential-cache.ts itself.
export type { CredentialCache } from '../store/credential-cache.js';
