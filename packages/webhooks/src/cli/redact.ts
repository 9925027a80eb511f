/**
 * Removes any secret from text about to be printed. The CLI never formats a secret on purpose; this guards
 * against one coming back inside an error message or a captured header.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so a secret that contains another is removed whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length > 0) out = out.replaceAll(secret, '[secret]');
  }
  return out;
}
