# Verifying an X-Service-Signature by hand in Python 3, standard library only.
# Checked against every case of test-vectors/ by docs/test/recipes/recipes.test.ts.
import hashlib
import hmac
import re
import time

MAX_HEADER_LENGTH = 4096
MAX_PARTS = 16
MAX_TIMESTAMP_DIGITS = 15
HEX_SIGNATURE = re.compile(r"[0-9a-fA-F]{64}")
DIGITS = re.compile(r"[0-9]+")


class VerificationError(Exception):
    """reason is one of the SDK's reason codes, e.g. 'no_matching_signature'."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


def _parse_header(header):
    """Splits `t=...,v1=...[,v1=...]`; unknown keys (v0, v2) are skipped."""
    if header is None or header.strip(" \t") == "":
        raise VerificationError("missing_header")
    parts = header.split(",")
    if len(header) > MAX_HEADER_LENGTH or len(parts) > MAX_PARTS:
        raise VerificationError("malformed_header")

    timestamp = None
    signatures = []
    for raw in parts:
        key, equals, value = raw.strip(" \t").partition("=")
        if not equals:  # no "=", including an empty part
            raise VerificationError("malformed_header")
        if key == "t":
            if timestamp is not None or not DIGITS.fullmatch(value):
                raise VerificationError("malformed_header")
            if len(value) > MAX_TIMESTAMP_DIGITS:
                raise VerificationError("malformed_header")
            timestamp = value  # kept as text: the HMAC covers it exactly as received
        elif key == "v1" and HEX_SIGNATURE.fullmatch(value):
            signatures.append(bytes.fromhex(value))
        # any other key, or an ill-formed v1 (it could never match), is skipped
    if timestamp is None or not signatures:
        raise VerificationError("malformed_header")
    return timestamp, signatures


def verify_signature(header, body, secrets, tolerance_seconds=300, now_seconds=None):
    """Raises VerificationError unless `header` carries a valid signature of `body` (the raw request
    bytes) under one of `secrets`, made within `tolerance_seconds` of now, either way.
    During a rotation, pass both secrets: [new_secret, old_secret]."""
    if tolerance_seconds <= 0:
        raise VerificationError("invalid_options")
    if not secrets or any(secret == "" for secret in secrets):
        raise VerificationError("invalid_secret")
    timestamp, signatures = _parse_header(header)

    # HMAC-SHA256 over b"<t as received>.<raw body>", one per secret.
    message = timestamp.encode("ascii") + b"." + body
    expected = [hmac.new(secret.encode("utf-8"), message, hashlib.sha256).digest() for secret in secrets]
    # Constant-time comparison: the time taken says nothing about how many bytes matched.
    if not any(hmac.compare_digest(mac, candidate) for mac in expected for candidate in signatures):
        raise VerificationError("no_matching_signature")

    # Whole seconds: the receiver's clock is truncated before comparing.
    now = int(time.time()) if now_seconds is None else now_seconds
    age = now - int(timestamp)
    if age > tolerance_seconds:
        raise VerificationError("timestamp_too_old")
    if -age > tolerance_seconds:
        raise VerificationError("timestamp_too_new")
