const REDACTED = '[redacted]';

/** Returns a function that replaces every occurrence of `secret` in a text. */
export function redactor(secret: string | undefined): (text: string) => string {
  if (secret === undefined || secret === '') return (text) => text;
  return (text) => text.split(secret).join(REDACTED);
}
