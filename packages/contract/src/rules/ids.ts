/**
 * Prefixes of the record ids the API answers, shared by the reference service and the mock: an id pasted
 * in the wrong place is then obvious, and a test that checks a prefix passes on both. Ids are
 * `<prefix>_<24 lowercase hex digits>`, whoever mints them (the service's delivery ids included).
 */
export const ID_PREFIXES = {
  webhookEndpoint: 'whk',
  webhookDelivery: 'dlv',
  event: 'evt',
  integration: 'int',
  request: 'req',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
