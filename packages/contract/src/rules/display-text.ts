import * as z from 'zod/mini';

/**
 * Characters a name shown to a person may not hold: controls (line breaks included), invisible format
 * characters (zero-width spaces and joiners, bidi overrides and isolates, the BOM), line and paragraph
 * separators, private-use code points and lone surrogates, and the letters that draw nothing (the Hangul
 * fillers, the braille blank, the combining grapheme joiner, the Khmer inherent vowels). Each lets two
 * names look alike, or a name look like something it is not (`\u202Eexe.gnp` reads as `png.exe`), or
 * breaks the line it is shown on.
 */
export const HIDDEN_IN_NAME =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\u115F\u1160\u2800\u3164\uFFA0]|\u034F|\u17B4|\u17B5/u;

export const DISPLAY_TEXT_MESSAGE =
  'must not contain control, invisible formatting (zero-width, bidi), separator, private-use or unpaired surrogate characters';

/** Whether a name a person will read is shown as it is (no character of `HIDDEN_IN_NAME`). */
export function isDisplayText(text: string): boolean {
  return !HIDDEN_IN_NAME.test(text);
}

/** A name shown to a person: at most `max` UTF-16 units, refused (not cleaned) when it holds a hidden character. */
export function displayText(max: number) {
  return z.string().check(z.maxLength(max), z.refine(isDisplayText, DISPLAY_TEXT_MESSAGE));
}
