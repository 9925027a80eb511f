export const SECRET_ENV = 'SVC_WEBHOOK_SECRET';

export const MAIN_HELP = `svc-webhooks: check and forge signed webhook deliveries of the service.

Usage:
  svc-webhooks verify --body <file> (--headers <file> | --signature <value>) [options]
  svc-webhooks sign --body <file|-> [options]
  svc-webhooks <command> --help
  svc-webhooks --version

Commands:
  verify   Check a captured delivery and explain why it is accepted or refused.
  sign     Print the headers of a correctly signed test delivery for a body.

The signing secret comes from the environment variable ${SECRET_ENV}, or from --secret. Prefer the
environment variable: a secret typed on the command line stays in the shell history and is visible to
other users in the process list. The secret is never printed.

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
