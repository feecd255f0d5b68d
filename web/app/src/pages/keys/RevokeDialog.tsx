// The confirmation before a key is revoked: a modal <dialog>, Cancel focused first (Escape
// cancels too), DELETE /api-keys/{id} on confirming, the refusal in words.
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { api, type Schemas } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { ProblemMessage } from "../../components/ui";
import { common } from "../../i18n/common";
import { fill, useText } from "../../i18n/index";
import { keys } from "../../i18n/keys";

interface Props {
  apiKey: Schemas["ApiKey"];
  /** onClose: the dialog closed without revoking (Cancel, Escape). */
  onClose: () => void;
  onRevoked: (k: Schemas["ApiKey"]) => void;
  /** onGone: the key was not found (revoked elsewhere, expired): the list is out of date. */
  onGone: () => void;
}

export function RevokeDialog({ apiKey, onClose, onRevoked, onGone }: Props) {
  const t = useText(keys);
  const c = useText(common);
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);

  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);

  const revoke = async () => {
    setBusy(true);
    setProblem(null);
    const { error, response } = await api
      .DELETE("/api-keys/{id}", { params: { path: { id: apiKey.id } } })
      .catch(() => ({ error: undefined, response: undefined }));
    setBusy(false);
    if (response?.ok) {
      onRevoked(apiKey);
      return;
    }
    const p = problemOf(error, response);
    if (p.code === "NOT_FOUND") onGone();
    setProblem(p);
  };

  return (
    <dialog ref={dialog} aria-labelledby={`${id}-h`} aria-describedby={`${id}-d`} onClose={onClose}>
      <h2 id={`${id}-h`}>{fill(t.revokeTitle, { name: apiKey.name })}</h2>
      <p id={`${id}-d`}>{t.revokeText}</p>
      <ProblemMessage problem={problem} />
      <div class="actions">
        <button type="button" autoFocus onClick={() => dialog.current?.close()}>
          {c.cancel}
        </button>
        <button type="button" class="danger" onClick={() => void revoke()} disabled={busy} aria-busy={busy || undefined}>
          {busy ? t.revoking : t.revokeConfirm}
        </button>
      </div>
    </dialog>
  );
}
