import { useEffect, useState } from 'preact/hooks';
import { account, SANDBOX_OWNER_ID, type SessionInfo } from './api/account.js';
import { type Problem, toProblem } from './api/problem.js';
import { sessionAfterSignIn } from './api/signed-in.js';
import { AccountPage } from './pages/account.js';
import { ContactsPage } from './pages/contacts.js';
import { DeliveriesPage } from './pages/deliveries.js';
import { EventPage } from './pages/event.js';
import { IntegrationsPage } from './pages/integrations.js';
import { InviteWhileSignedIn } from './pages/invite-notice.js';
import { KeysPage } from './pages/keys.js';
import { MembersPage } from './pages/members.js';
import { MfaPage } from './pages/mfa.js';
import { SignInPage } from './pages/sign-in.js';
import { WebhooksPage } from './pages/webhooks.js';
import { ProblemNote } from './ui/problem-note.js';
import { go, useRoute } from './ui/router.js';
import { StepUpProvider } from './ui/step-up.js';

type Loaded =
  | { state: 'loading' }
  | { state: 'out' }
  | { state: 'in'; session: SessionInfo }
  | { state: 'failed'; problem: Problem };

const PAGES: [string, string][] = [
  ['webhooks', 'Webhooks'],
  ['keys', 'API keys'],
  ['members', 'Members'],
  ['contacts', 'Contacts'],
  ['integrations', 'Integrations'],
  ['mfa', 'MFA'],
  ['account', 'Account'],
];

export function App() {
  const route = useRoute();
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  // The service's own origin: a page opened at another address says so before a log-in is refused.
  const [origin, setOrigin] = useState<string | undefined>(undefined);
  const refresh = async () => {
    try {
      const { origin, session } = await account.state();
      setOrigin(origin);
      setLoaded(session ? { state: 'in', session } : { state: 'out' });
    } catch (error) {
      setLoaded({ state: 'failed', problem: toProblem(error) });
    }
  };
  useEffect(() => {
    void refresh();
  }, []);

  if (loaded.state === 'loading') return <p class="narrow">Loading…</p>;
  if (loaded.state === 'failed') {
    return (
      <main id="main" class="narrow">
        <h1>The portal could not reach the service</h1>
        <ProblemNote problem={loaded.problem} />
      </main>
    );
  }
  const [page = '', ...rest] = route;
  if (loaded.state === 'out') {
    if (page === 'invite' && rest[0])
      return (
        <SignInPage
          mode="invite"
          inviteToken={rest[0]}
          serviceOrigin={origin}
          onSignedIn={afterSignIn(refresh)}
        />
      );
    return (
      <SignInPage
        mode={page === 'signup' ? 'signup' : 'login'}
        serviceOrigin={origin}
        onSignedIn={afterSignIn(refresh)}
      />
    );
  }
  const { session } = loaded;
  if (page === 'invite' && rest[0])
    return (
      <InviteWhileSignedIn email={session.member.email} onLoggedOut={() => setLoaded({ state: 'out' })} />
    );
  return (
    <StepUpProvider onSteppedUp={refresh} sandboxOwner={session.member.id === SANDBOX_OWNER_ID}>
      <Shell session={session} page={page} onLoggedOut={() => setLoaded({ state: 'out' })} />
      <Page session={session} page={page} rest={rest} refresh={refresh} />
    </StepUpProvider>
  );
}

/** After signing in, a member without MFA is taken to the enrolment first. */
function afterSignIn(refresh: () => Promise<void>) {
  return async () => {
    const session = await sessionAfterSignIn(() => account.session());
    await refresh();
    go(session.member.mfa_enrolled ? 'webhooks' : 'mfa');
  };
}

function Page({
  session,
  page,
  rest,
  refresh,
}: {
  session: SessionInfo;
  page: string;
  rest: string[];
  refresh: () => Promise<void>;
}) {
  switch (page) {
    case 'mfa':
      return <MfaPage enrolled={session.member.mfa_enrolled} onEnrolled={refresh} />;
    case 'keys':
      return <KeysPage session={session} />;
    case 'account':
      return <AccountPage session={session} />;
    case 'members':
      return <MembersPage session={session} />;
    case 'contacts':
      return <ContactsPage session={session} slug={rest[0] ?? firstIdentity(session)} />;
    case 'integrations':
      // `#/integrations/authorized/<name>`: where the OAuth callback sends the browser back.
      return rest[0] === 'authorized' ? (
        <IntegrationsPage session={session} slug={firstIdentity(session)} authorized={rest[1]} />
      ) : (
        <IntegrationsPage session={session} slug={rest[0] ?? firstIdentity(session)} />
      );
    case 'events':
      // `#/events/<id>`: one event and every endpoint's attempt of it (linked from the delivery logs).
      if (rest[0]) return <EventPage eventId={rest[0]} />;
      go('webhooks');
      return null;
    case 'webhooks':
      return rest[0] ? (
        <DeliveriesPage endpointId={rest[0]} session={session} />
      ) : (
        <WebhooksPage session={session} onChanged={refresh} />
      );
    default:
      // `#/`, `#/login` after signing in, an unknown page: the member's starting point.
      go(session.member.mfa_enrolled ? 'webhooks' : 'mfa');
      return null;
  }
}

function Shell({
  session,
  page,
  onLoggedOut,
}: {
  session: SessionInfo;
  page: string;
  onLoggedOut: () => void;
}) {
  const [problem, setProblem] = useState<Problem | undefined>(undefined);
  const logOut = async () => {
    try {
      await account.logOut();
      go('login');
      onLoggedOut();
    } catch (error) {
      setProblem(toProblem(error));
    }
  };
  return (
    <header>
      <nav aria-label="Portal">
        <span class="brand">svc-kit sandbox</span>
        {PAGES.map(([path, label]) => (
          <a key={path} href={`#/${path}`} aria-current={page === path ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      <div class="who">
        <span title={`${session.member.email} · ${session.workspace.name}`}>
          {session.member.email} · {session.workspace.name}
          {!session.member.mfa_enrolled && ' · MFA not set up'}
        </span>
        <button type="button" onClick={logOut}>
          Log out
        </button>
      </div>
      <ProblemNote problem={problem} />
    </header>
  );
}

function firstIdentity(session: SessionInfo): string {
  return session.identities[0]?.slug ?? '';
}
