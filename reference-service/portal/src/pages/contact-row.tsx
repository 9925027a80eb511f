import {
  CONTACT_PRESETS,
  type Contact,
  type ContactPreset,
  type Tool,
  TRUST_FLAGS,
  type TrustFlag,
} from '@svc-kit/contract';
import { useState } from 'preact/hooks';
import { api } from '../api/service.js';
import { ProblemNote } from '../ui/problem-note.js';
import { useStepUp } from '../ui/step-up.js';
import { when } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';
import { NoTools, PRESET_HELP_ID, TRUST_HELP_ID } from './contact-words.js';

/** One contact with the actions its status allows; every refusal (429 with its retry time too) in words. */
export function ContactRow({
  slug,
  contact,
  imitates,
  onChanged,
}: {
  slug: string;
  contact: Contact;
  /** The own identity whose name this contact's card name reads as (another key): marked. */
  imitates?: string | undefined;
  onChanged: () => void;
}) {
  const fp = contact.fingerprint;
  const name = contact.petname || contact.display_name;
  const [preset, setPreset] = useState<ContactPreset>('basic');
  const [petname, setPetname] = useState(contact.petname);
  const [tools, setTools] = useState<Tool[] | undefined>(undefined);
  const [said, setSaid] = useState('');
  const act = useAction();
  // Approving, a preset, trust and unblocking grant a party access: with MFA, the dialog asks a fresh step-up.
  const guard = useStepUp();
  const run = async (what: string, action: () => Promise<unknown>) => {
    setSaid('');
    if ((await act.run(async () => (await guard(action)) ?? true)) !== undefined) {
      setSaid(what);
      onChanged();
    }
  };
  const button = (label: string, action: () => Promise<unknown>, done: string) => (
    <button
      type="button"
      disabled={act.busy}
      aria-label={`${label} ${name}`}
      onClick={() => run(done, action)}
    >
      {label}
    </button>
  );
  return (
    <section class="card" aria-label={`Contact ${name}`} data-contact={fp} data-status={contact.status}>
      <h3>
        {name} <span class="muted">({contact.status.replace('_', ' ')})</span>
      </h3>
      {imitates !== undefined && (
        <p class="problem" data-testid="imitation">
          <strong>Not your identity {imitates}.</strong> This contact's card calls itself by the name of one
          of your workspace's own identities, but its key (fingerprint) is another: someone may be passing for{' '}
          {imitates}.
        </p>
      )}
      <p class="muted">
        <code>{fp}</code> · {contact.display_name} · preset {contact.preset} · trust {contact.trust_flag} ·
        last seen {when(contact.last_seen_at)}
      </p>
      {contact.status === 'pending_in' && (
        <div>
          <label for={`preset-${fp}`}>Preset when approving</label>
          <select
            id={`preset-${fp}`}
            aria-describedby={PRESET_HELP_ID}
            value={preset}
            onChange={(e) => setPreset(e.currentTarget.value as ContactPreset)}
          >
            {CONTACT_PRESETS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
          {button('Approve', () => api.contacts.approve(slug, fp, { preset }), 'Approved.')}
          {button('Reject', () => api.contacts.reject(slug, fp), 'Rejected.')}
        </div>
      )}
      {contact.status === 'active' && (
        <div>
          <label for={`active-preset-${fp}`}>Preset (what they may do with this identity)</label>
          <select
            id={`active-preset-${fp}`}
            aria-describedby={PRESET_HELP_ID}
            value={contact.preset}
            onChange={(e) => {
              const chosen = e.currentTarget.value as ContactPreset;
              void run('Preset saved.', () => api.contacts.update(slug, fp, { preset: chosen }));
            }}
          >
            {CONTACT_PRESETS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
          <label for={`trust-${fp}`}>Trust</label>
          <select
            id={`trust-${fp}`}
            aria-describedby={TRUST_HELP_ID}
            value={contact.trust_flag}
            onChange={(e) => {
              const flag = e.currentTarget.value as TrustFlag;
              void run('Trust saved.', () => api.contacts.setTrust(slug, fp, { trust: flag }));
            }}
          >
            {TRUST_FLAGS.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          {button(
            'Show tools',
            async () => setTools((await api.contacts.listTools(slug, fp)).tools),
            'Tools loaded.',
          )}
        </div>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run('Petname saved.', () => api.contacts.setPetname(slug, fp, { petname }));
        }}
      >
        <label for={`petname-${fp}`}>Petname (your private name for them)</label>
        <input
          id={`petname-${fp}`}
          maxLength={64}
          value={petname}
          onInput={(e) => setPetname(e.currentTarget.value)}
        />
        <button type="submit" disabled={act.busy} aria-label={`Save petname of ${name}`}>
          Save petname
        </button>
      </form>
      <div>
        {contact.status === 'blocked'
          ? button('Unblock', () => api.contacts.unblock(slug, fp), 'Unblocked.')
          : button('Block', () => api.contacts.block(slug, fp), 'Blocked.')}
        {button('Remove', () => api.contacts.remove(slug, fp), 'Removed.')}
      </div>
      {tools && (
        <div>
          <h4>Tools {name} offers</h4>
          {tools.length === 0 ? (
            <NoTools name={name} />
          ) : (
            <ul data-testid="contact-tools">
              {tools.map((tool) => (
                <li key={tool.name}>
                  <code>{tool.name}</code>: {tool.description}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <p role="status">{said}</p>
      <ProblemNote problem={act.problem} />
    </section>
  );
}
