import pg from 'pg';

/**
 * LISTEN needs a connection of its own that stays open (a pooled one would be handed to other queries).
 * A dropped connection is re-opened after a pause; meanwhile the listener's polling covers the gap.
 */
export async function listenOnOwnConnection(
  connectionString: string,
  channel: string,
  onNotify: (payload: string) => void,
  lost: (error: Error) => void,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const reconnectLater = (): void => {
    if (stopped) return;
    retry = setTimeout(() => void connect().catch(reconnectLater), 1000);
    retry.unref();
  };
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString });
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload ?? '');
    });
    next.on('error', (error) => {
      if (stopped || client !== next) return;
      lost(error);
      client = undefined;
      next.end().catch(() => {});
      reconnectLater();
    });
    await next.connect();
    // The channel name is one of ours, never input; quoting keeps it an identifier all the same.
    await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    if (stopped) {
      await next.end();
      return;
    }
    client = next;
    // A notification sent while reconnecting was missed: wake the listener once to catch up.
    onNotify('');
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const current = client;
    client = undefined;
    await current?.end();
  };
}
