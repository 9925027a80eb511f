import { API_KEY_ENV, BASE_URL_ENV, DEFAULT_BASE_URL } from './service-api';

export const SECRET_ENV = 'SVC_WEBHOOK_SECRET';

export const MAIN_HELP = `svc-webhooks: check and forge signed webhook deliveries of the service.

Usage:
  svc-webhooks verify --body <file> (--headers <file> | --signature <value>) [options]
  svc-webhooks sign --body <file|-> [options]
  svc-webhooks listen --forward-to <url> [--events a,b] [options]
  svc-webhooks trigger <event-type> [--identity <slug>] [--endpoint <id>] [options]
  svc-webhooks events [options]
  svc-webhooks <command> --help
  svc-webhooks help | version

Commands:
  verify   Check a captured delivery and explain why it is accepted or refused.
  sign     Print the headers of a correctly signed test delivery for a body.
  listen   Receive a workspace's deliveries over a stream and forward them to a local app.
  trigger  Emit a catalogued test event through the sandbox (shows up in listen).
  events   List the event types an endpoint may filter on.

listen, trigger and events talk to the service: ${BASE_URL_ENV} or --base-url (default
${DEFAULT_BASE_URL}), and an API key with service:workspace:admin from ${API_KEY_ENV} or --api-key.

The signing secret comes from the environment variable ${SECRET_ENV}, or from --secret. Prefer the
environment variable: a secret typed on the command line stays in the shell history and is visible to
other users in the process list. The secret is never printed.

Through npx --no, write help and version as words: npx reads a flag that comes straight after the
command's name (--help, --version) as its own.

Exit codes: 0 accepted (verify) or printed (sign), 1 delivery refused, 2 usage error, 3 internal error.
`;

export const VERIFY_HELP = `svc-webhooks verify: check a captured delivery and explain the outcome.

Usage:
  svc-webhooks verify --body <file> --headers <file> [options]
  svc-webhooks verify --body <file> --signature <value> [--event-id <id>] [--event-type <type>] [options]

Options:
  --body <file>         The raw body exactly as received ("-" reads standard input).
  --headers <file>      The request headers: raw HTTP ("Name: value" lines, as in a request log or
                        curl -v) or a JSON object of header names to values.
  --signature <value>   The X-Service-Signature value, instead of --headers.
  --event-id <id>       The X-Service-Event-Id value (with --signature; optional).
  --event-type <type>   The X-Service-Event-Type value (with --signature; optional).
  --secret <secret>     The endpoint signing secret; repeat it to accept either of two during a rotation
                        (new first). Default: the environment variable ${SECRET_ENV}, which is safer (it
                        keeps the secret out of shell history and the process list).
  --tolerance <s>       How far the signature time may be from now, in seconds (default 300).
  --now <unix s>        Check as if the current time were this Unix second, e.g. the time the delivery
                        was captured, to separate a signature problem from a timestamp one.
  -h, --help            Show this help.

Exit codes: 0 accepted, 1 refused (the reason and the fix are printed), 2 usage error.
`;

export const SIGN_HELP = `svc-webhooks sign: print the headers of a signed test delivery.

Usage:
  svc-webhooks sign --body <file|-> [--timestamp <unix s>] [--format headers|json|curl] [--url <url>]

Options:
  --body <file|->       The body to sign, byte for byte ("-" reads standard input).
  --secret <secret>     The signing secret; repeat it to sign with two (as during a rotation: new first).
                        Default: the environment variable ${SECRET_ENV}, which is safer (it keeps the
                        secret out of shell history and the process list).
  --timestamp <unix s>  The signature time, in Unix seconds (default: now).
  --event-id <id>       Override X-Service-Event-Id (default: the body's "id").
  --event-type <type>   Override X-Service-Event-Type (default: the body's "type").
  --delivery-id <id>    Set X-Service-Delivery (default: a fresh id).
  --format <format>     headers (default): raw HTTP header lines, readable by "verify --headers";
                        json: one JSON object; curl: a ready curl command that posts the body file.
  --url <url>           Target of the curl command (default http://localhost:3000/webhooks).
  -h, --help            Show this help.
`;

const CONNECTION_OPTIONS = `  --base-url <url>      The service (default: the environment variable ${BASE_URL_ENV}, else
                        ${DEFAULT_BASE_URL}).
  --api-key <key>       An API key holding service:workspace:admin. Default: the environment variable
                        ${API_KEY_ENV}, which is safer (it keeps the key out of shell history).
  -h, --help            Show this help.`;

export const LISTEN_HELP = `svc-webhooks listen: forward a workspace's deliveries to a local app.

Usage:
  svc-webhooks listen --forward-to <url> [--events a,b] [options]
  svc-webhooks listen --print-secret [options]

While it runs, the workspace has a listener endpoint: events are signed and logged as for any endpoint,
then sent over a stream to this command, which POSTs the exact body and headers to --forward-to and
reports the local answer back (that is what the delivery log shows). Ctrl-C closes the listener.

Options:
  --forward-to <url>    Where your app receives deliveries, e.g. http://localhost:3000/webhooks.
  --events <a,b>        Only these event types (default: every event; see "svc-webhooks events").
  --print-secret        Print the listeners' signing secret and exit. It is the same for every listen
                        session of the workspace, so your app keeps verifying across runs.
${CONNECTION_OPTIONS}

Exit codes: 0 stopped with Ctrl-C, 1 refused by the service (key, permission, listener closed), 2 usage.
`;

export const TRIGGER_HELP = `svc-webhooks trigger: emit a catalogued test event in the sandbox.

Usage:
  svc-webhooks trigger <event-type> [--identity <slug>] [--endpoint <id>] [options]

Prints the event id. Every endpoint whose filter matches gets a delivery (a running "listen" too).

Options:
  --identity <slug>     The identity the event is about (default: the workspace's first).
  --endpoint <id>       Only this endpoint (whk_...) gets it, if it is active and its filter matches.
${CONNECTION_OPTIONS}
`;

export const EVENTS_HELP = `svc-webhooks events: list the event types an endpoint may filter on.

Usage:
  svc-webhooks events [options]

Options:
${CONNECTION_OPTIONS}
`;
