import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/** What a confirmation asks: its title, what doing it means, and the button that does it. */
export interface Question {
  title: string;
  body: ComponentChildren;
  confirm: string;
  /** Cannot be undone and loses something: the button is red and Cancel has the focus. */
  destructive?: boolean;
}

/**
 * `[ask, dialog]`: `await ask(question)` shows the portal's own modal dialog (as the step-up does, not the
 * browser's `confirm()`) and answers true once confirmed; render `dialog` where the page can hold it.
 */
export function useConfirm(): [(question: Question) => Promise<boolean>, ComponentChildren] {
  const [pending, setPending] = useState<{ question: Question; resolve: (ok: boolean) => void }>();
  const ask = (question: Question) => new Promise<boolean>((resolve) => setPending({ question, resolve }));
  const dialog = pending && (
    <ConfirmDialog
      question={pending.question}
      done={(ok) => {
        setPending(undefined);
        pending.resolve(ok);
      }}
    />
  );
  return [ask, dialog];
}

function ConfirmDialog({ question, done }: { question: Question; done: (ok: boolean) => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
    // The dialog focuses its first button; Enter must not delete by reflex.
    if (question.destructive) cancel.current?.focus();
  }, []);
  const close = (ok: boolean) => {
    dialog.current?.close();
    done(ok);
  };
  return (
    <dialog
      ref={dialog}
      aria-labelledby="confirm-title"
      aria-describedby="confirm-body"
      onCancel={(event) => {
        event.preventDefault();
        close(false);
      }}
    >
      <h2 id="confirm-title">{question.title}</h2>
      <div id="confirm-body">{question.body}</div>
      <div class="actions">
        <button type="button" class={question.destructive ? 'danger' : undefined} onClick={() => close(true)}>
          {question.confirm}
        </button>
        <button type="button" ref={cancel} onClick={() => close(false)}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
