/** The package version, sent as `x-svc-kit-client` so the service can tell client releases apart. */
export const VERSION = '0.1.0';
