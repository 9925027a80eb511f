import {
  INTEGRATION_SLUG_LENGTH,
  INTEGRATION_SLUG_PATTERN,
  INTEGRATION_SLUG_RULE,
  INTEGRATION_TRANSPORTS,
  type Integration,
  type IntegrationTransport,
} from '@svc-kit/contract';
import { useEffect, useState } from 'preact/hooks';
import type { SessionInfo } from '../api/account.js';
import { api } from '../api/service.js';
import { IdentityPicker } from '../ui/identity-picker.js';
import { ProblemNote } from '../ui/problem-note.js';
import { sentence } from '../ui/sentence.js';
import { useStepUp } from '../ui/step-up.js';
import { Table } from '../ui/table.js';
import { useAction } from '../ui/use-action.js';
import { ExposureEditor } from './exposure-editor.js';

/** The status of an integration whose upstream waits for its owner's OAuth consent (open-choices.md). */
const NEEDS_AUTHORIZATION = 'needs_authorization';

/** The refusal of a name that breaks the contract's slug rule, with the name it could be. */
function nameRefusal(typed: string): string {
  const suggestion = typed
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, INTEGRATION_SLUG_LENGTH.max);
  const hint = INTEGRATION_SLUG_PATTERN.test(suggestion) ? ` (try ${suggestion})` : '';
  return `Name must be ${INTEGRATION_SLUG_RULE}; “${typed}” is not${hint}.`;
}

interface Created {
  slug: string;
  tools: number;
  trouble: string | null;
  authorizationUrl: string | null;
}

/** An identity's upstream tool servers (MCP): connect, authorize by OAuth, status, exposure, delete. */
export function IntegrationsPage({
  session,
  slug,
  authorized,
}: {
  session: SessionInfo;
  slug: string;
  authorized?: string | undefined;
}) {
  const [list, setList] = useState<Integration[] | undefined>(undefined);
  const [name, setName] = useState('');
  // Checked here with the contract's rule, so the refusal names the field as this form labels it.
  const [nameProblem, setNameProblem] = useState<string | undefined>(undefined);
  const [endpoint, setEndpoint] = useState('');
  const [transport, setTransport] = useState<IntegrationTransport>('streamable-http');
  const [header, setHeader] = useState('');
  const [value, setValue] = useState('');
  const [created, setCreated] = useState<Created | undefined>(undefined);
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const load = useAction();
  const act = useAction();
  const guard = useStepUp();
  const reload = () => load.run(async () => setList((await api.integrations.list(slug)).integrations));
  useEffect(() => {
    setList(undefined);
    setEditing(undefined);
    // What was said about the last identity's integration is not about this one.
    setCreated(undefined);
    act.setProblem(undefined);
    void reload();
  }, [slug]);

  const create = async (event: Event) => {
    event.preventDefault();
    const named = name.trim();
    if (!INTEGRATION_SLUG_PATTERN.test(named)) {
      setNameProblem(nameRefusal(named));
      return;
    }
    setNameProblem(undefined);
    const auth = header.trim() ? { header: header.trim(), value } : null;
    const answer = await act.run(() =>
      api.integrations.create(slug, { slug: named, endpoint: endpoint.trim(), transport, auth }),
    );
    if (answer) {
      setCreated({
        slug: answer.integration.slug,
        tools: answer.tools,
        trouble: answer.trouble,
        authorizationUrl: answer.authorization_url,
      });
      setName('');
      setEndpoint('');
      setHeader('');
      setValue('');
      void reload();
    }
  };
  const authorize = async (integration: string) => {
    const answer = await act.run(() => guard(() => api.integrations.authorize(slug, integration, {})));
    // The upstream's authorization server sends the browser back to the service, which returns it here.
    if (answer) location.assign(answer.authorization_url);
  };
  const remove = async (integration: string) => {
    if (!confirm(`Delete the integration ${integration}? Contacts lose its tools at once.`)) return;
    if (
      (await act.run(async () => (await api.integrations.delete(slug, integration)) ?? true)) !== undefined
    ) {
      if (editing === integration) setEditing(undefined);
      void reload();
    }
  };

  return (
    <main id="main">
      <h1>Integrations</h1>
      <IdentityPicker session={session} page="integrations" slug={slug} />
      {authorized && (
        <p class="shown-once" role="status">
          The upstream authorized <code>{authorized}</code>; its tools are now listed.
        </p>
      )}
      <form class="card" onSubmit={create} aria-labelledby="connect-title">
        <h2 id="connect-title">Connect an MCP server</h2>
        <label for="integration-name">Name</label>
        <input
          id="integration-name"
          required
          minLength={INTEGRATION_SLUG_LENGTH.min}
          maxLength={INTEGRATION_SLUG_LENGTH.max}
          aria-describedby="integration-name-rule"
          aria-invalid={nameProblem === undefined ? undefined : true}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <p id="integration-name-rule" class="muted">
          {sentence(INTEGRATION_SLUG_RULE)} It names the integration in this identity's links and lists.
        </p>
        {nameProblem && (
          <p class="problem" role="alert" data-testid="integration-name-problem">
            {nameProblem}
          </p>
        )}
        <label for="integration-endpoint">Server URL</label>
        <input
          id="integration-endpoint"
          type="url"
          required
          value={endpoint}
          onInput={(e) => setEndpoint(e.currentTarget.value)}
        />
        <label for="integration-transport">Transport</label>
        <select
          id="integration-transport"
          value={transport}
          onChange={(e) => setTransport(e.currentTarget.value as IntegrationTransport)}
        >
          {INTEGRATION_TRANSPORTS.map((t) => (
            <option key={t} value={t}>
              {t === 'sse' ? 'SSE (older servers)' : 'Streamable HTTP'}
            </option>
          ))}
        </select>
        <fieldset>
          <legend>Authentication header (optional; leave empty for none or for OAuth)</legend>
          <label for="integration-header">Header name</label>
          <input
            id="integration-header"
            placeholder="Authorization"
            value={header}
            onInput={(e) => setHeader(e.currentTarget.value)}
          />
          <label for="integration-value">Header value</label>
          <input
            id="integration-value"
            type="password"
            autoComplete="off"
            value={value}
            onInput={(e) => setValue(e.currentTarget.value)}
          />
        </fieldset>
        <button type="submit" disabled={act.busy}>
          Connect
        </button>
      </form>
      <ProblemNote problem={act.problem} />
      {created && (
        <div class="card" role="status" data-testid="integration-created">
          <p>
            Connected <code>{created.slug}</code>: {created.tools} tools listed.
          </p>
          {created.trouble && <p>Trouble: {created.trouble}</p>}
          {created.authorizationUrl && (
            <p>
              The server asks for OAuth.{' '}
              <a href={created.authorizationUrl}>Authorize {created.slug} at the upstream</a>
            </p>
          )}
        </div>
      )}
      <h2>Integrations of {slug}</h2>
      <ProblemNote problem={load.problem} />
      <Table
        columns={['Name', 'Transport', 'Server', 'Status', 'Actions']}
        rows={list?.length}
        empty="No integrations yet."
      >
        {list?.map((integration) => (
          <tr key={integration.id} data-integration={integration.slug}>
            <td>{integration.slug}</td>
            <td>{integration.transport}</td>
            <td>
              <code>{integration.endpoint}</code>
            </td>
            <td>{integration.status}</td>
            <td class="actions">
              <button
                type="button"
                aria-label={`Exposure of ${integration.slug}`}
                onClick={() => setEditing(integration.slug)}
              >
                Exposure
              </button>
              {/* Only an upstream waiting for OAuth can start it: a healthy one without OAuth refuses (502). */}
              {integration.status === NEEDS_AUTHORIZATION && (
                <button
                  type="button"
                  aria-label={`Authorize ${integration.slug}`}
                  onClick={() => authorize(integration.slug)}
                >
                  Authorize
                </button>
              )}
              <button
                type="button"
                aria-label={`Delete ${integration.slug}`}
                onClick={() => remove(integration.slug)}
              >
                Delete
              </button>
            </td>
          </tr>
        ))}
      </Table>
      {editing && <ExposureEditor key={editing} slug={slug} integration={editing} />}
    </main>
  );
}
