/** ANSI colours when the output is a terminal and NO_COLOR is unset (https://no-color.org). */
export interface Paint {
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  dim(text: string): string;
}

const wrap = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;
const plain = (text: string) => text;

export function paint(colour: boolean): Paint {
  return colour
    ? { green: wrap(32, 39), yellow: wrap(33, 39), red: wrap(31, 39), dim: wrap(2, 22) }
    : { green: plain, yellow: plain, red: plain, dim: plain };
}

/** Local wall-clock time of day, to the second, for a line per delivery. */
export function clockTime(at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
}
