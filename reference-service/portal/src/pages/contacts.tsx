import type { Contact } from '@svc-kit/contract';
import { useEffect, useState } from 'preact/hooks';
import { identityCard, type SessionInfo } from '../api/account.js';
import { api } from '../api/service.js';
import { CopyButton } from '../ui/copy-button.js';
import { IdentityPicker } from '../ui/identity-picker.js';
import { ProblemNote } from '../ui/problem-note.js';
import { useStepUp } from '../ui/step-up.js';
import { useAction } from '../ui/use-action.js';
import { ContactRow } from './contact-row.js';
import { ContactHelp } from './contact-words.js';
import { imitatedIdentity } from './imitation.js';

/** An identity's contacts: its own card to hand out, a request by pasted card, and the contact list. */
export function ContactsPage({ session, slug }: { session: SessionInfo; slug: string }) {
  const [card, setCard] = useState<{ card: string; fingerprint: string } | undefined>(undefined);
  const [contacts, setContacts] = useState<Contact[] | undefined>(undefined);
  const [pasted, setPasted] = useState('');
  const [note, setNote] = useState('');
  // What was said, with the identity it was said about: shown only beside that identity, so that no frame
  // drawn before the effect below clears it shows it beside another.
  const [said, setSaid] = useState<{ slug: string; text: string } | undefined>(undefined);
  const own = useAction();
  const load = useAction();
  const ask = useAction();
  // A request can end active at once (the peer accepts): with MFA, the dialog asks a fresh step-up.
  const guard = useStepUp();
  const reload = () => load.run(async () => setContacts((await api.contacts.list(slug)).contacts));
  // The workspace's own identities with their keys: a contact named like one of them, with another key,
  // is marked (imitation.ts).
  const [ownKeys, setOwnKeys] = useState<{ slug: string; fingerprint: string }[]>([]);
  useEffect(() => {
    void Promise.all(session.identities.map((identity) => identityCard(identity.slug))).then(setOwnKeys, () =>
      setOwnKeys([]),
    );
  }, [session]);
  useEffect(() => {
    setCard(undefined);
    setContacts(undefined);
    // What was said about the last identity's request is not about this one.
    setSaid(undefined);
    ask.setProblem(undefined);
    void own.run(async () => setCard(await identityCard(slug)));
    void reload();
  }, [slug]);

  const request = async (event: Event) => {
    event.preventDefault();
    setSaid(undefined);
    const answer = await ask.run(() =>
      guard(() =>
        api.contacts.request(slug, { card: pasted.trim(), ...(note.trim() ? { note: note.trim() } : {}) }),
      ),
    );
    if (answer) {
      setSaid({
        slug,
        text: `Requested ${answer.contact.display_name}: ${answer.status === 'active' ? 'already a contact' : 'waiting for approval'}.`,
      });
      setPasted('');
      setNote('');
      void reload();
    }
  };

  return (
    <main id="main">
      <h1>Contacts</h1>
      <IdentityPicker session={session} page="contacts" slug={slug} />
      <section class="card" aria-labelledby="own-card-title">
        <h2 id="own-card-title">Your card</h2>
        <p class="muted">
          Hand this card to someone who should be able to request you as a contact. It holds no secret.
        </p>
        <ProblemNote problem={own.problem} />
        {card && (
          <>
            <p>
              Fingerprint: <code data-testid="own-fingerprint">{card.fingerprint}</code>
            </p>
            <label for="own-card">Card of {slug}</label>
            <textarea id="own-card" readOnly value={card.card} data-testid="own-card" />
            <CopyButton text={card.card} label="Copy card" />
          </>
        )}
      </section>
      <form class="card" onSubmit={request} aria-labelledby="request-title">
        <h2 id="request-title">Request a contact</h2>
        <label for="pasted-card">Their card</label>
        <textarea
          id="pasted-card"
          required
          value={pasted}
          onInput={(e) => setPasted(e.currentTarget.value)}
        />
        <label for="request-note">Note (optional)</label>
        <input
          id="request-note"
          maxLength={1024}
          value={note}
          onInput={(e) => setNote(e.currentTarget.value)}
        />
        <button type="submit" disabled={ask.busy}>
          Send request
        </button>
        <p role="status">{said?.slug === slug ? said.text : ''}</p>
        <ProblemNote problem={ask.problem} />
      </form>
      <h2 id="contacts-title">Contacts of {slug}</h2>
      <button type="button" onClick={reload} disabled={load.busy}>
        Refresh list
      </button>
      <ProblemNote problem={load.problem} />
      {contacts && contacts.length === 0 && <p>No contacts yet.</p>}
      {contacts && contacts.length > 0 && (
        <>
          <p data-testid="contact-count">
            {contacts.length === 1 ? '1 contact' : `${contacts.length} contacts`}
          </p>
          <ContactHelp />
          {/* A long list scrolls by itself, so the card and the request form stay in reach; focusable so a
              keyboard can scroll it too. */}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to scroll by keyboard */}
          <section class="contact-list" aria-labelledby="contacts-title" tabIndex={0}>
            {/* Keyed per identity: a party known to two identities gets a fresh row (its words, its tools). */}
            {contacts.map((contact) => (
              <ContactRow
                key={`${slug} ${contact.fingerprint}`}
                slug={slug}
                contact={contact}
                imitates={imitatedIdentity(contact, ownKeys)}
                onChanged={reload}
              />
            ))}
          </section>
        </>
      )}
    </main>
  );
}
