/** How an example authenticates: an API key, the portal's stepped-up session, or nothing at all. */
export type ExampleAuth = 'apiKey' | 'session' | 'none';

/** A call as a person would make it: path parameters, query, body, credentials. */
export interface ExampleRequest {
  auth: ExampleAuth;
  params?: Readonly<Record<string, string>>;
  /** As a typed caller passes it: an integer parameter is a number (the URL carries its digits). */
  query?: Readonly<Record<string, string | number>>;
  body?: unknown;
}

/** An answer: its status and its JSON body (`undefined` for a 204 without body). */
export interface ExampleAnswer {
  status: number;
  body?: unknown;
}

export interface RefusalExample {
  /** Why this call is refused, in a few words. */
  summary: string;
  request: ExampleRequest;
  answer: ExampleAnswer;
}

/** The examples of one operation: a call that succeeds and the usual ways it is refused. */
export interface OperationExample {
  request: ExampleRequest;
  answer: ExampleAnswer;
  refusals: readonly RefusalExample[];
}
