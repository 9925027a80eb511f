// Verifying an X-Service-Signature by hand in Java 17+, JDK only.
// Checked against every case of test-vectors/ by docs/test/recipes/recipes.test.ts.
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public final class Verify {
  private static final int MAX_HEADER_LENGTH = 4096;
  private static final int MAX_PARTS = 16;
  private static final int MAX_TIMESTAMP_DIGITS = 15;
  private static final Pattern DIGITS = Pattern.compile("[0-9]+");
  private static final Pattern HEX_SIGNATURE = Pattern.compile("[0-9a-fA-F]{64}");
  private static final Pattern EDGE_SPACES = Pattern.compile("^[ \\t]+|[ \\t]+$");

  /** {@code reason} is one of the SDK's reason codes, e.g. "no_matching_signature". */
  public static final class VerificationException extends Exception {
    public final String reason;

    VerificationException(String reason) {
      super(reason);
      this.reason = reason;
    }
  }

  private record Parsed(String timestamp, List<byte[]> signatures) {}

  private static String trim(String text) {
    return EDGE_SPACES.matcher(text).replaceAll("");
  }

  /** Splits "t=...,v1=...[,v1=...]"; unknown keys (v0, v2) are skipped. */
  private static Parsed parseHeader(String header) throws VerificationException {
    if (header == null || trim(header).isEmpty()) throw new VerificationException("missing_header");
    String[] parts = header.split(",", -1); // -1 keeps a trailing empty part
    if (header.length() > MAX_HEADER_LENGTH || parts.length > MAX_PARTS) {
      throw new VerificationException("malformed_header");
    }

    String timestamp = null;
    List<byte[]> signatures = new ArrayList<>();
    for (String raw : parts) {
      String part = trim(raw);
      int equals = part.indexOf('=');
      if (equals == -1) throw new VerificationException("malformed_header"); // includes an empty part
      String key = part.substring(0, equals);
      String value = part.substring(equals + 1);
      if (key.equals("t")) {
        boolean valid = timestamp == null
            && DIGITS.matcher(value).matches()
            && value.length() <= MAX_TIMESTAMP_DIGITS;
        if (!valid) throw new VerificationException("malformed_header");
        timestamp = value; // kept as text: the HMAC covers it exactly as received
      } else if (key.equals("v1") && HEX_SIGNATURE.matcher(value).matches()) {
        signatures.add(HexFormat.of().parseHex(value));
      }
    }
    if (timestamp == null || signatures.isEmpty()) throw new VerificationException("malformed_header");
    return new Parsed(timestamp, signatures);
  }

  /**
   * Throws unless {@code header} carries a valid signature of {@code body} (the raw request bytes) under
   * one of {@code secrets}, made within {@code toleranceSeconds} of {@code nowSeconds}, either way.
   * During a rotation, pass both secrets: List.of(newSecret, oldSecret).
   */
  public static void verifySignature(
      String header, byte[] body, List<String> secrets, long toleranceSeconds, long nowSeconds)
      throws VerificationException, GeneralSecurityException {
    if (toleranceSeconds <= 0) throw new VerificationException("invalid_options");
    if (secrets.isEmpty() || secrets.contains("")) throw new VerificationException("invalid_secret");
    Parsed parsed = parseHeader(header);

    // HMAC-SHA256 over "<t as received>.<raw body>", one per secret.
    boolean matches = false;
    for (String secret : secrets) {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      mac.update((parsed.timestamp() + ".").getBytes(StandardCharsets.US_ASCII));
      byte[] expected = mac.doFinal(body);
      for (byte[] candidate : parsed.signatures()) {
        // Constant-time comparison: the time taken says nothing about how many bytes matched.
        if (MessageDigest.isEqual(expected, candidate)) matches = true;
      }
    }
    if (!matches) throw new VerificationException("no_matching_signature");

    // Whole seconds: the receiver's clock (System.currentTimeMillis() / 1000) is truncated first.
    long age = nowSeconds - Long.parseLong(parsed.timestamp());
    if (age > toleranceSeconds) throw new VerificationException("timestamp_too_old");
    if (-age > toleranceSeconds) throw new VerificationException("timestamp_too_new");
  }
}
