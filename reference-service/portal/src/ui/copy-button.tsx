import { useState } from 'preact/hooks';

/** Copies `text`; says whether it worked (a browser may refuse clipboard access). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setSaid('Copied.');
    } catch {
      setSaid('The browser refused the clipboard: select the text and copy it by hand.');
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={copy}>
        {label}
      </button>
      <span role="status" class="copy-status">
        {said}
      </span>
    </span>
  );
}

/**
 * A secret the service shows once: the value, a copy button, and the warning. `note` says what the value
 * belongs to (an endpoint's URL, say); it sits inside the box, before the value, not below it.
 */
export function ShownOnce({
  title,
  value,
  testId,
  note,
}: {
  title: string;
  value: string;
  testId: string;
  note?: { text: string; testId: string };
}) {
  return (
    <section class="shown-once" aria-label={title}>
      <h3>{title}</h3>
      {note && <p data-testid={note.testId}>{note.text}</p>}
      <p>Shown this once: copy it now, the service keeps only a hash or a sealed copy.</p>
      <pre>
        <code data-testid={testId}>{value}</code>
      </pre>
      <CopyButton text={value} label={`Copy ${title.toLowerCase()}`} />
    </section>
  );
}
