# Reads the vector protocol of ../recipes.test.ts on stdin and checks each case with docs/recipes/verify.rb.
require "base64"
require_relative File.join(ARGV.fetch(0), "verify")

def utf8(base64)
  Base64.strict_decode64(base64).force_encoding(Encoding::UTF_8)
end

$stdin.each_line do |line|
  name, now, tolerance, header, body, *secrets = line.chomp.split("\t", -1)
  begin
    WebhookSignature.verify(
      header: header == "-" ? nil : utf8(header),
      body: Base64.strict_decode64(body),
      secrets: secrets.map { |secret| utf8(secret) },
      tolerance_seconds: Integer(tolerance, 10),
      now_seconds: Integer(now, 10),
    )
    puts "#{name}\tvalid"
  rescue WebhookSignature::VerificationError => e
    puts "#{name}\t#{e.reason}"
  end
end
