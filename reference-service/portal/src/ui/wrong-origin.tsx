/**
 * The portal opened at another address than the service's own (localhost for 127.0.0.1, a LAN or Docker
 * address): every log-in from here would be refused as cross-site, so the page says where to go at once,
 * keeping the page asked for (an invite link works there too).
 */
export function WrongOrigin({ origin }: { origin: string | undefined }) {
  if (origin === undefined || origin === location.origin) return null;
  const there = `${origin}/${location.hash}`;
  return (
    <div class="problem" role="alert" data-testid="wrong-origin">
      <p>
        <strong>This page is open at {location.origin}, not at the service's own address.</strong> A log-in
        from here would be refused as a cross-site request. <a href={there}>Open {origin}/ instead</a>.
      </p>
    </div>
  );
}
