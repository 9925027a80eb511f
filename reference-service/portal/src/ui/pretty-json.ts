/** A stored body, indented to read (the bytes sent and signed are the compact form); not JSON: as it is. */
export function prettyJson(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
