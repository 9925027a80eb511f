# Verifying an X-Service-Signature by hand in Ruby, standard library only.
# Checked against every case of test-vectors/ by docs/test/recipes/recipes.test.ts.
require "openssl"

module WebhookSignature
  MAX_HEADER_LENGTH = 4096
  MAX_PARTS = 16
  MAX_TIMESTAMP_DIGITS = 15

  # reason is one of the SDK's reason codes, e.g. "no_matching_signature".
  class VerificationError < StandardError
    attr_reader :reason

    def initialize(reason)
      super(reason)
      @reason = reason
    end
  end

  def self.trim(text)
    text.gsub(/\A[ \t]+|[ \t]+\z/, "")
  end

  # Splits "t=...,v1=...[,v1=...]"; unknown keys (v0, v2) are skipped.
  def self.parse_header(header)
    raise VerificationError, "missing_header" if header.nil? || trim(header).empty?

    parts = header.split(",", -1)
    if header.length > MAX_HEADER_LENGTH || parts.length > MAX_PARTS
      raise VerificationError, "malformed_header"
    end

    timestamp = nil
    signatures = []
    parts.each do |raw|
      key, equals, value = trim(raw).partition("=")
      raise VerificationError, "malformed_header" if equals.empty? # no "=", or an empty part

      if key == "t"
        valid = timestamp.nil? && value.match?(/\A[0-9]+\z/) && value.length <= MAX_TIMESTAMP_DIGITS
        raise VerificationError, "malformed_header" unless valid

        timestamp = value # kept as text: the HMAC covers it exactly as received
      elsif key == "v1" && value.match?(/\A[0-9a-fA-F]{64}\z/)
        signatures << [value].pack("H*")
      end
    end
    raise VerificationError, "malformed_header" if timestamp.nil? || signatures.empty?

    [timestamp, signatures]
  end

  # Raises VerificationError unless header carries a valid signature of body (the raw request bytes)
  # under one of secrets, made within tolerance_seconds of now, either way.
  # During a rotation, pass both secrets: [new_secret, old_secret].
  def self.verify(header:, body:, secrets:, tolerance_seconds: 300, now_seconds: Time.now.to_i)
    raise VerificationError, "invalid_options" unless tolerance_seconds.positive?
    raise VerificationError, "invalid_secret" if secrets.empty? || secrets.any?(&:empty?)

    timestamp, signatures = parse_header(header)

    # HMAC-SHA256 over "<t as received>.<raw body>", one per secret.
    message = "#{timestamp}.".b + body.b
    expected = secrets.map { |secret| OpenSSL::HMAC.digest("SHA256", secret.b, message) }
    # Constant-time comparison: the time taken says nothing about how many bytes matched.
    matches = expected.product(signatures).any? do |mac, candidate|
      OpenSSL.fixed_length_secure_compare(mac, candidate)
    end
    raise VerificationError, "no_matching_signature" unless matches

    # Whole seconds: the receiver's clock is truncated before comparing.
    age = now_seconds - Integer(timestamp, 10)
    raise VerificationError, "timestamp_too_old" if age > tolerance_seconds
    raise VerificationError, "timestamp_too_new" if -age > tolerance_seconds
  end
end
