import * as z from 'zod/mini';
import { freeFormObject } from './common.js';

/** Transports createIntegration accepts. A stored integration may report another one. */
export const INTEGRATION_TRANSPORTS = ['streamable-http', 'sse'] as const;
export const integrationTransportSchema = z.enum(INTEGRATION_TRANSPORTS);
export type IntegrationTransport = z.output<typeof integrationTransportSchema>;

export const EXPOSURE_MODES = ['passthrough', 'mapped', 'agent'] as const;
export const exposureModeSchema = z.enum(EXPOSURE_MODES);
export type ExposureMode = z.output<typeof exposureModeSchema>;

/** An upstream tool server connected to an identity. */
export const integrationSchema = z.strictObject({
  id: z.string(),
  slug: z.string(),
  transport: z.string(),
  /** The upstream address. */
  endpoint: z.string(),
  /** Health of the integration; the service's values are not enumerated by the spec. */
  status: z.string(),
  permission: z.string(),
});
export type Integration = z.output<typeof integrationSchema>;

/** An entry written to an exposure: `tool` and `mode`, plus any further fields. */
export const exposureEntrySchema = z.looseObject({
  tool: z.string(),
  mode: exposureModeSchema,
});
export type ExposureEntry = z.output<typeof exposureEntrySchema>;

/** Which tools of an integration contacts may reach. Catalog items and entries are free-form. */
export const exposureSchema = z.strictObject({
  catalog: z.array(freeFormObject),
  entries: z.array(freeFormObject),
  version: z.int().check(z.nonnegative()),
  stale: z.array(z.string()),
});
export type Exposure = z.output<typeof exposureSchema>;
