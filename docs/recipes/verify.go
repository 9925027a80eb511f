// Verifying an X-Service-Signature by hand in Go, standard library only.
// Checked against every case of test-vectors/ by docs/test/recipes/recipes.test.ts.
package webhookverify

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

const (
	maxHeaderLength    = 4096
	maxParts           = 16
	maxTimestampDigits = 15
)

// VerificationError carries one of the SDK's reason codes, e.g. "no_matching_signature".
type VerificationError struct{ Reason string }

func (e *VerificationError) Error() string { return e.Reason }

func fail(reason string) error { return &VerificationError{Reason: reason} }

func isDigits(text string) bool {
	for _, c := range []byte(text) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return text != ""
}

// parseHeader splits "t=...,v1=...[,v1=...]"; unknown keys (v0, v2) are skipped.
func parseHeader(header string) (string, [][]byte, error) {
	if strings.Trim(header, " \t") == "" {
		return "", nil, fail("missing_header")
	}
	parts := strings.Split(header, ",")
	if len(header) > maxHeaderLength || len(parts) > maxParts {
		return "", nil, fail("malformed_header")
	}

	timestamp := ""
	var signatures [][]byte
	for _, raw := range parts {
		key, value, found := strings.Cut(strings.Trim(raw, " \t"), "=")
		if !found { // no "=", or an empty part
			return "", nil, fail("malformed_header")
		}
		switch key {
		case "t":
			if timestamp != "" || !isDigits(value) || len(value) > maxTimestampDigits {
				return "", nil, fail("malformed_header")
			}
			timestamp = value // kept as text: the HMAC covers it exactly as received
		case "v1":
			// An ill-formed v1 could never match, so it is skipped.
			if decoded, err := hex.DecodeString(value); err == nil && len(decoded) == sha256.Size {
				signatures = append(signatures, decoded)
			}
		}
	}
	if timestamp == "" || len(signatures) == 0 {
		return "", nil, fail("malformed_header")
	}
	return timestamp, signatures, nil
}

// VerifySignature returns a *VerificationError unless header carries a valid signature of body (the raw
// request bytes) under one of secrets, made within tolerance of now, either way. An absent header is "".
// During a rotation, pass both secrets: []string{newSecret, oldSecret}.
func VerifySignature(header string, body []byte, secrets []string, tolerance time.Duration, now time.Time) error {
	toleranceSeconds := int64(tolerance / time.Second)
	if toleranceSeconds <= 0 {
		return fail("invalid_options")
	}
	if len(secrets) == 0 {
		return fail("invalid_secret")
	}
	for _, secret := range secrets {
		if secret == "" {
			return fail("invalid_secret")
		}
	}
	timestamp, signatures, err := parseHeader(header)
	if err != nil {
		return err
	}

	// HMAC-SHA256 over "<t as received>.<raw body>", one per secret.
	matches := false
	for _, secret := range secrets {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(timestamp + "."))
		mac.Write(body)
		expected := mac.Sum(nil)
		for _, candidate := range signatures {
			// Constant-time comparison: the time taken says nothing about how many bytes matched.
			if hmac.Equal(expected, candidate) {
				matches = true
			}
		}
	}
	if !matches {
		return fail("no_matching_signature")
	}

	// Whole seconds: the receiver's clock is truncated before comparing.
	signedAt, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return fail("malformed_header")
	}
	age := now.Unix() - signedAt
	if age > toleranceSeconds {
		return fail("timestamp_too_old")
	}
	if -age > toleranceSeconds {
		return fail("timestamp_too_new")
	}
	return nil
}
