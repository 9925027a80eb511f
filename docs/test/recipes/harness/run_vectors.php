<?php
// Reads the vector protocol of ../recipes.test.ts on stdin and checks each case with docs/recipes/verify.php.
require $argv[1] . '/verify.php';

while (($line = fgets(STDIN)) !== false) {
    $fields = explode("\t", rtrim($line, "\n"));
    [$name, $now, $tolerance, $header, $body] = $fields;
    $secrets = array_map('base64_decode', array_slice($fields, 5));
    try {
        verify_signature(
            $header === '-' ? null : base64_decode($header, true),
            base64_decode($body, true),
            $secrets,
            (int) $tolerance,
            (int) $now,
        );
        echo "$name\tvalid\n";
    } catch (WebhookVerificationError $error) {
        echo "$name\t{$error->reason}\n";
    }
}
