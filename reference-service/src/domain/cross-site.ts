// The rule lives in the contract, shared with the mock; the service imports it from here as before.
export { isCrossSiteLogin, isCrossSiteStateChange, type SiteHeaders } from '@svc-kit/contract';
