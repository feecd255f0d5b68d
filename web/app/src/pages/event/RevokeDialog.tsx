// The confirmation before a certificate is revoked: a modal dialog (the browser's own: focus
// kept inside, Escape cancels) asking why, in a code and in words.
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { api, type Schemas } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { Busy, ProblemMessage } from "../../components/ui";
import { event as texts } from "../../i18n/event";
import { fill, useText } from "../../i18n/index";
import { Select } from "./parts";

type Certificate = Schemas["Certificate"];
type ReasonCode = NonNullable<Schemas["RevokeRequest"]["reasonCode"]>;

const codes: ReasonCode[] = ["issued_in_error", "superseded", "fraud", "other"];

interface Props {
  certificate: Certificate;
  onClose: () => void;
  onRevoked: (c: Certificate) => void;
}

export function RevokeDialog({ certificate: c, onClose, onRevoked }: Props) {
  const t = useText(texts);
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const [code, setCode] = useState<ReasonCode>("issued_in_error");
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);

  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);

  const words: Record<ReasonCode, string> = {
    issued_in_error: t.reasonIssuedInError,
    superseded: t.reasonSuperseded,
    fraud: t.reasonFraud,
    other: t.reasonOther,
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    const body: { reasonCode: ReasonCode; reason?: string } = { reasonCode: code };
    if (reason.trim()) body.reason = reason.trim();
    const { data, error, response } = await api
      .POST("/certificates/{id}/revoke", { params: { path: { id: c.id } }, body })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setBusy(false);
    if (data) onRevoked(data.data);
    else setProblem(problemOf(error, response));
  };

  const reasonError = problem?.fields["reason"];
  return (
    <dialog ref={dialog} aria-labelledby={`${id}-h`} aria-describedby={`${id}-text`} onClose={onClose} class="ev-dialog">
      <form onSubmit={submit} noValidate>
        <h2 id={`${id}-h`}>{fill(t.revokeTitle, { number: c.certificateNumber })}</h2>
        <p id={`${id}-text`}>{fill(t.revokeText, { name: `${c.recipient.firstName} ${c.recipient.lastName}` })}</p>
        <ProblemMessage problem={problem} />
        <Select label={t.reasonCode} value={code} onValue={(v) => setCode(v as ReasonCode)}>
          {codes.map((k) => (
            <option key={k} value={k}>
              {words[k]}
            </option>
          ))}
        </Select>
        <div class={reasonError ? "field invalid" : "field"}>
          <label for={`${id}-reason`}>{t.reason}</label>
          <p class="hint" id={`${id}-hint`}>
            {t.reasonHint}
          </p>
          <textarea
            id={`${id}-reason`}
            rows={3}
            maxLength={500}
            value={reason}
            onInput={(e) => setReason(e.currentTarget.value)}
            aria-invalid={reasonError ? true : undefined}
            aria-describedby={reasonError ? `${id}-hint ${id}-error` : `${id}-hint`}
          />
          {reasonError && (
            <p class="error" id={`${id}-error`}>
              {reasonError}
            </p>
          )}
        </div>
        <div class="actions">
          <Busy busy={busy} class="danger">
            {busy ? t.revoking : t.confirmRevoke}
          </Busy>
          <button type="button" onClick={() => dialog.current?.close()} disabled={busy}>
            {t.cancel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
