// A wallet offer of one certificate, made when the dialog opens (POST …/wallet-offers: a new
// offer each time, claimable once for 30 days) and shown in a modal dialog (the browser's own:
// focus kept inside, Escape closes): the offer's link to copy or open, and the wallet links.
// Its QR code, of the offer's link, is drawn here (components/QrCode.tsx), to scan from the screen.
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { api, type Schemas } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { QrCode } from "../../components/QrCode";
import { Loading, ProblemMessage } from "../../components/ui";
import { event as texts } from "../../i18n/event";
import { fill, useFormat, useText } from "../../i18n/index";

type Certificate = Schemas["Certificate"];
type Offer = Schemas["WalletOffer"];

export function WalletDialog({ certificate: c, onClose }: { certificate: Certificate; onClose: () => void }) {
  const t = useText(texts);
  const f = useFormat();
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const [offer, setOffer] = useState<Offer | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const name = `${c.recipient.firstName} ${c.recipient.lastName}`;

  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);

  useEffect(() => {
    let live = true;
    api
      .POST("/certificates/{id}/wallet-offers", { params: { path: { id: c.id } } })
      .then(({ data, error, response }) => {
        if (!live) return;
        if (data) setOffer(data.data);
        else setProblem(problemOf(error, response));
      })
      .catch(() => live && setProblem(problemOf(undefined)));
    return () => {
      live = false;
    };
  }, [c.id]);

  const copy = (url: string) => {
    navigator.clipboard
      .writeText(url)
      .then(() => setCopied(t.copied))
      .catch(() => setCopied(t.copyFailed));
  };

  return (
    <dialog ref={dialog} aria-labelledby={`${id}-h`} aria-describedby={offer ? `${id}-text` : undefined} onClose={onClose} class="ev-dialog ev-wallet">
      <h2 id={`${id}-h`}>{fill(t.walletTitle, { name })}</h2>
      {!offer && !problem && <Loading />}
      <ProblemMessage problem={problem && { ...problem, message: problem.message && fill(t.actionFailed, { number: c.certificateNumber, message: problem.message }) }} />
      {offer && (
        <>
          <p id={`${id}-text`}>{fill(t.walletIntro, { name, number: c.certificateNumber })}</p>
          <QrCode class="ev-qr" text={offer.interactionUrl} label={t.walletQr} />
          <div class="field">
            <label for={`${id}-link`}>{t.walletLink}</label>
            <input id={`${id}-link`} type="url" readOnly value={offer.interactionUrl} onFocus={(e) => e.currentTarget.select()} aria-describedby={`${id}-expires`} />
            <p class="hint" id={`${id}-expires`}>
              {fill(t.walletExpires, { date: f.dateTime(offer.expiresAt) })}
            </p>
          </div>
          <div class="actions">
            <a class="button primary" href={offer.interactionUrl} target="_blank" rel="noopener noreferrer">
              {t.walletOpen}
            </a>
            <button type="button" onClick={() => copy(offer.interactionUrl)}>
              {t.copy}
            </button>
          </div>
          <div aria-live="polite">{copied && <p class="hint ev-copied">{copied}</p>}</div>
          <ul class="ev-wallet-links">
            <li>
              <a href={offer.walletUrl}>{t.walletApp}</a>
            </li>
            <li>
              <a href={offer.lcwRequestUrl}>{t.walletLcw}</a>
            </li>
          </ul>
        </>
      )}
      <div class="actions ev-close">
        <button type="button" onClick={() => dialog.current?.close()}>
          {t.close}
        </button>
      </div>
    </dialog>
  );
}
