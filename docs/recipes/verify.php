<?php
// Verifying an X-Service-Signature by hand in PHP, no extension beyond the defaults.
// Checked against every case of test-vectors/ by docs/test/recipes/recipes.test.ts.

const MAX_HEADER_LENGTH = 4096;
const MAX_PARTS = 16;
const MAX_TIMESTAMP_DIGITS = 15;

/** $reason is one of the SDK's reason codes, e.g. 'no_matching_signature'. */
final class WebhookVerificationError extends RuntimeException
{
    public function __construct(public readonly string $reason)
    {
        parent::__construct($reason);
    }
}

/**
 * Splits "t=...,v1=...[,v1=...]"; unknown keys (v0, v2) are skipped.
 * @return array{0: string, 1: list<string>} the timestamp as received, the v1 values as hex
 */
function parse_signature_header(?string $header): array
{
    if ($header === null || trim($header, " \t") === '') {
        throw new WebhookVerificationError('missing_header');
    }
    $parts = explode(',', $header);
    if (strlen($header) > MAX_HEADER_LENGTH || count($parts) > MAX_PARTS) {
        throw new WebhookVerificationError('malformed_header');
    }

    $timestamp = null;
    $signatures = [];
    foreach ($parts as $raw) {
        $part = trim($raw, " \t");
        $equals = strpos($part, '=');
        if ($equals === false) { // no "=", or an empty part
            throw new WebhookVerificationError('malformed_header');
        }
        $key = substr($part, 0, $equals);
        $value = substr($part, $equals + 1);
        if ($key === 't') {
            $valid = $timestamp === null
                && preg_match('/\A[0-9]+\z/', $value) === 1
                && strlen($value) <= MAX_TIMESTAMP_DIGITS;
            if (!$valid) {
                throw new WebhookVerificationError('malformed_header');
            }
            $timestamp = $value; // kept as text: the HMAC covers it exactly as received
        } elseif ($key === 'v1' && preg_match('/\A[0-9a-fA-F]{64}\z/', $value) === 1) {
            $signatures[] = strtolower($value);
        }
    }
    if ($timestamp === null || $signatures === []) {
        throw new WebhookVerificationError('malformed_header');
    }
    return [$timestamp, $signatures];
}

/**
 * Throws WebhookVerificationError unless $header carries a valid signature of $body (the raw request
 * bytes, e.g. file_get_contents('php://input')) under one of $secrets, made within $toleranceSeconds
 * of now, either way. During a rotation, pass both secrets: [$newSecret, $oldSecret].
 */
function verify_signature(
    ?string $header,
    string $body,
    array $secrets,
    int $toleranceSeconds = 300,
    ?int $nowSeconds = null,
): void {
    if ($toleranceSeconds <= 0) {
        throw new WebhookVerificationError('invalid_options');
    }
    if ($secrets === [] || in_array('', $secrets, true)) {
        throw new WebhookVerificationError('invalid_secret');
    }
    [$timestamp, $signatures] = parse_signature_header($header);

    // HMAC-SHA256 over "<t as received>.<raw body>", one per secret.
    $matches = false;
    foreach ($secrets as $secret) {
        $expected = hash_hmac('sha256', $timestamp . '.' . $body, $secret);
        foreach ($signatures as $candidate) {
            // Constant-time comparison: the time taken says nothing about how many bytes matched.
            $matches = hash_equals($expected, $candidate) || $matches;
        }
    }
    if (!$matches) {
        throw new WebhookVerificationError('no_matching_signature');
    }

    // Whole seconds: the receiver's clock is truncated before comparing.
    $age = ($nowSeconds ?? time()) - (int) $timestamp;
    if ($age > $toleranceSeconds) {
        throw new WebhookVerificationError('timestamp_too_old');
    }
    if (-$age > $toleranceSeconds) {
        throw new WebhookVerificationError('timestamp_too_new');
    }
}
