import { EXPOSURE_MODES, type Exposure, type ExposureMode } from '@svc-kit/contract';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/service.js';
import { ProblemNote } from '../ui/problem-note.js';
import { useStepUp } from '../ui/step-up.js';
import { useAction } from '../ui/use-action.js';

type Choice = ExposureMode | 'hidden';

/** What each mode does with a tool, as the service applies it (open-choices.md, "Exposure modes"). */
const MODE_WORDS: Readonly<Record<ExposureMode, string>> = {
  passthrough: 'contacts see and call the tool under its upstream name and description',
  mapped:
    'under a name and description of the exposure entry (set through the API; this page sets none, so the upstream ones stay)',
  agent: 'kept, but not offered: an agent would answer for the tool, and this service runs none',
};

/** Which of an integration's tools contacts may reach, and how; saving answers the new version. */
export function ExposureEditor({ slug, integration }: { slug: string; integration: string }) {
  const guard = useStepUp();
  const [exposure, setExposure] = useState<Exposure | undefined>(undefined);
  const [choices, setChoices] = useState<Record<string, Choice>>({});
  const [said, setSaid] = useState('');
  const load = useAction();
  const save = useAction();
  const reload = () =>
    load.run(async () => {
      const answer = await api.integrations.getExposure(slug, integration);
      setExposure(answer);
      const chosen: Record<string, Choice> = {};
      for (const entry of answer.entries) {
        if (typeof entry.tool === 'string')
          chosen[entry.tool] = (entry.mode as ExposureMode | undefined) ?? 'passthrough';
      }
      setChoices(chosen);
    });
  useEffect(() => {
    void reload();
  }, [slug, integration]);

  const tools = (exposure?.catalog ?? []).map((tool) => ({
    name: String(tool.name ?? ''),
    description: typeof tool.description === 'string' ? tool.description : '',
  }));
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaid('');
    const entries = Object.entries(choices)
      .filter((entry): entry is [string, ExposureMode] => entry[1] !== 'hidden')
      .map(([tool, mode]) => ({ tool, mode }));
    // With MFA, offering tools to contacts asks a fresh step-up (the dialog asks it when needed).
    const answer = await save.run(() =>
      guard(() => api.integrations.setExposure(slug, integration, { entries })),
    );
    if (answer) {
      setSaid(`Saved as version ${answer.version}.`);
      void reload();
    }
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="exposure-title">
      <h2 id="exposure-title">
        Exposure of {integration}{' '}
        {exposure && <span data-testid="exposure-version">(version {exposure.version})</span>}
      </h2>
      <ProblemNote problem={load.problem} />
      {exposure && exposure.stale.length > 0 && (
        <p>Exposed but no longer offered upstream: {exposure.stale.join(', ')}</p>
      )}
      {exposure && tools.length === 0 && (
        <p>The server lists no tools (authorize it first if it asks for OAuth).</p>
      )}
      {tools.length > 0 && (
        <ul id="exposure-modes" class="muted" data-testid="exposure-modes">
          {EXPOSURE_MODES.map((mode) => (
            <li key={mode}>
              <code>{mode}</code>: {MODE_WORDS[mode]}
            </li>
          ))}
          <li>
            <code>not offered to contacts</code>: no contact sees it. Contacts list offered tools only with a
            preset that allows it, and call them only with one that allows calling.
          </li>
        </ul>
      )}
      {tools.map((tool) => (
        <p key={tool.name}>
          <label for={`expose-${tool.name}`}>
            <code>{tool.name}</code> {tool.description && <span class="muted">— {tool.description}</span>}
          </label>
          <select
            id={`expose-${tool.name}`}
            aria-describedby="exposure-modes"
            value={choices[tool.name] ?? 'hidden'}
            onChange={(e) => {
              const choice = e.currentTarget.value as Choice;
              setChoices((current) => ({ ...current, [tool.name]: choice }));
            }}
          >
            <option value="hidden">not offered to contacts</option>
            {EXPOSURE_MODES.map((mode) => (
              <option key={mode} value={mode}>
                {mode}
              </option>
            ))}
          </select>
        </p>
      ))}
      <button type="submit" disabled={save.busy || !exposure}>
        Save exposure
      </button>
      <p role="status">{said}</p>
      <ProblemNote problem={save.problem} />
    </form>
  );
}
