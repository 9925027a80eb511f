// Reads the vector protocol of ../recipes.test.ts on stdin and checks each case with docs/recipes/Verify.java.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

public final class VerifyVectors {
  private static String utf8(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    StringBuilder out = new StringBuilder();
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      String[] fields = line.split("\t", -1);
      List<String> secrets = new ArrayList<>();
      for (int i = 5; i < fields.length; i++) secrets.add(utf8(fields[i]));
      String outcome = "valid";
      try {
        Verify.verifySignature(
            fields[3].equals("-") ? null : utf8(fields[3]),
            Base64.getDecoder().decode(fields[4]),
            secrets,
            Long.parseLong(fields[2]),
            Long.parseLong(fields[1]));
      } catch (Verify.VerificationException refusal) {
        outcome = refusal.reason;
      }
      out.append(fields[0]).append('\t').append(outcome).append('\n');
    }
    System.out.print(out);
  }
}
