import { useEffect, useState } from 'preact/hooks';
import { type EventAttempts, webhookExtras } from '../api/webhook-extras.js';
import { AttemptCells } from '../ui/attempt-cells.js';
import { prettyJson } from '../ui/pretty-json.js';
import { ProblemNote } from '../ui/problem-note.js';
import { Table } from '../ui/table.js';
import { when } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';

const COLUMNS = ['Endpoint', 'Status', 'HTTP', 'Latency', 'When'];

/**
 * One event (`#/events/<id>`, a URL to share): its body as sent, and each endpoint's attempt of it, with a
 * link to that endpoint's own page. An event of another workspace, or one retention removed, is the
 * service's "not found", said in its words.
 */
export function EventPage({ eventId }: { eventId: string }) {
  const [found, setFound] = useState<EventAttempts | undefined>(undefined);
  const load = useAction();
  useEffect(() => {
    setFound(undefined);
    void load.run(async () => setFound(await webhookExtras.event(eventId)));
  }, [eventId]);

  return (
    <main id="main">
      <p>
        <a href="#/webhooks">← Webhook endpoints</a>
      </p>
      <h1>
        Event <code class="break">{eventId}</code>
      </h1>
      <ProblemNote problem={load.problem} />
      {found && (
        <>
          <dl class="facts" data-testid="event-facts">
            <dt>Type</dt>
            <dd>
              <code>{found.event.type}</code>
            </dd>
            <dt>Created</dt>
            <dd>{when(found.event.created_at)}</dd>
          </dl>
          <h2 id="attempts-title">Attempts, one per endpoint</h2>
          <Table
            columns={COLUMNS}
            rows={found.attempts.length}
            empty="No delivery record of this event is left: records older than the retention window are removed (the event a day later), and so are the unsent ones of a workspace whose webhooks were turned off."
            labelledBy="attempts-title"
            testId="event-attempts"
          >
            {found.attempts.map(({ delivery: d, endpoint }) => (
              <tr key={d.id} data-endpoint={endpoint.id} data-status={d.status}>
                <td>
                  <a href={`#/webhooks/${encodeURIComponent(endpoint.id)}`}>
                    <code class="break">{endpoint.url}</code>
                  </a>
                  {endpoint.removed && <span class="muted"> (removed)</span>}
                </td>
                <AttemptCells delivery={d} />
                <td>{when(d.created_at)}</td>
              </tr>
            ))}
          </Table>
          <h2 id="body-title">Body</h2>
          <p class="muted">
            Indented to read; the receivers got these fields as compact JSON, signed as they were sent.
          </p>
          <pre data-testid="event-body">{prettyJson(found.event.body)}</pre>
        </>
      )}
    </main>
  );
}
