/**
 * The service writes its messages in lower case, to follow a colon or a headline in a log line. Shown
 * after a headline's full stop, a message is a sentence of its own: a capital first, a full stop last.
 */
export function sentence(text: string): string {
  const words = text.trim();
  const capitalised = words.charAt(0).toUpperCase() + words.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}
