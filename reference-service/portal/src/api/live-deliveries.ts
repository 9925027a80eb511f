import { APIError } from '@svc-kit/client';
import type { QueryOf, WebhookDelivery } from '@svc-kit/contract';
import { useEffect, useRef, useState } from 'preact/hooks';
import { type Problem, toProblem } from './problem.js';
import { api } from './service.js';

/** The log's optional filters (the contract's members of listWebhookDeliveries' query). */
export type DeliveryFilter = Omit<QueryOf<'listWebhookDeliveries'>, 'limit'>;

/** How often the open log asks again. An unchanged log costs a 304 with no body. */
export const POLL_MS = 1500;

/**
 * An endpoint's delivery log, kept live by polling listWebhookDeliveries with `If-None-Match` (the
 * choice and its reasons are on docs/guide/open-choices.md). Polling pauses while the tab is hidden.
 */
/** How many attempts the log page asks for: the newest ones (the operation has no paging). */
export const LOG_LIMIT = 50;

export function useLiveDeliveries(endpointId: string, filter: DeliveryFilter = {}, limit = LOG_LIMIT) {
  const [deliveries, setDeliveries] = useState<WebhookDelivery[] | undefined>(undefined);
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const [checkedAt, setCheckedAt] = useState<number | undefined>(undefined);
  const etag = useRef<string | undefined>(undefined);

  const { status, event_type, event_id } = filter;
  useEffect(() => {
    // Another filter is another answer: its tag must not be sent for it.
    etag.current = undefined;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const controller = new AbortController();
    const poll = async () => {
      if (!document.hidden) {
        try {
          const headers: Record<string, string> = etag.current ? { 'if-none-match': etag.current } : {};
          const { data, response } = await api.webhooks
            .listDeliveries(endpointId, { limit, ...filter }, { headers, signal: controller.signal })
            .withResponse();
          etag.current = response.headers.get('etag') ?? undefined;
          setDeliveries(data.deliveries);
          setProblem(undefined);
        } catch (error) {
          if (stopped) return;
          // 304: the log did not change since the copy on screen.
          if (error instanceof APIError && error.status === 304) setProblem(undefined);
          else setProblem(toProblem(error));
        }
        setCheckedAt(Date.now());
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      controller.abort();
      clearTimeout(timer);
    };
  }, [endpointId, limit, status, event_type, event_id]);

  return { deliveries, problem, checkedAt };
}
