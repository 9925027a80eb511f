import { describe, expectTypeOf, it } from 'vitest';
import type {
  BodyOf,
  Contact,
  DeliveryStatus,
  ErrorStatusOf,
  EventType,
  PathParamsOf,
  QueryOf,
  ResponseOf,
  SuccessStatusOf,
  WebhookEndpoint,
} from '../src/index.js';

describe('operation types', () => {
  it('BodyOf is the caller’s input: defaults optional, enumerations literal', () => {
    expectTypeOf<Pick<BodyOf<'createWebhook'>, 'url' | 'events'>>().toEqualTypeOf<{
      url: string;
      events?: EventType[] | undefined;
    }>();
    expectTypeOf<BodyOf<'approveContact'>>().toEqualTypeOf<
      | {
          preset?: 'basic' | 'colleague' | 'close' | 'muted' | undefined;
        }
      | undefined
    >();
    expectTypeOf<BodyOf<'setTrust'>>().toEqualTypeOf<{ trust: 'messages_only' | 'may_instruct' }>();
    expectTypeOf<BodyOf<'deleteWebhook'>>().toEqualTypeOf<undefined>();
  });

  it('ResponseOf is the parsed answer: undefined for 204, null for a null body', () => {
    expectTypeOf<ResponseOf<'createWebhook'>>().toEqualTypeOf<{
      endpoint: WebhookEndpoint;
      secret: string;
    }>();
    expectTypeOf<ResponseOf<'listContacts'>>().toEqualTypeOf<{ contacts: Contact[] }>();
    expectTypeOf<ResponseOf<'deleteWebhook'>>().toEqualTypeOf<undefined>();
    expectTypeOf<ResponseOf<'setPetname'>>().toEqualTypeOf<null>();
    expectTypeOf<ResponseOf<'unblockContact'>>().toEqualTypeOf<{
      status: 'active' | 'forgotten';
      fingerprint: string;
    }>();
  });

  it('path parameters, query and statuses', () => {
    expectTypeOf<PathParamsOf<'setTrust'>>().toEqualTypeOf<{ slug: string; fingerprint: string }>();
    expectTypeOf<PathParamsOf<'listWebhooks'>>().toEqualTypeOf<undefined>();
    expectTypeOf<QueryOf<'listWebhookDeliveries'>>().toEqualTypeOf<{
      limit: string | number;
      status?: DeliveryStatus | undefined;
      event_type?: EventType | undefined;
      event_id?: string | undefined;
    }>();
    expectTypeOf<SuccessStatusOf<'requestContact'>>().toEqualTypeOf<201>();
    expectTypeOf<ErrorStatusOf<'blockContact'>>().toEqualTypeOf<400 | 401 | 403 | 404 | 422 | 503>();
  });
});
