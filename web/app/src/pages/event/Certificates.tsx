// The event's certificates: by status, a page at a time; each links to its public verification
// page, downloads as PDF (with the session's token, so through the API client); an issued one
// can be emailed to its recipient again, and revoked after a confirmation that asks why; a
// valid one can be offered to the recipient's wallet.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type Schemas } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { Field, Loading, Pager, ProblemMessage } from "../../components/ui";
import { event as texts } from "../../i18n/event";
import { fill, useFormat, useText } from "../../i18n/index";
import { ariaSort, nextSort, pages, pdfName, revocable, searchText, sendable, type CertificateSort } from "./logic";
import { save, Select, SortHeader, StatusBadge, useDebounced } from "./parts";
import { RevokeDialog } from "./RevokeDialog";
import { WalletDialog } from "./WalletDialog";

type Certificate = Schemas["Certificate"];
type StatusFilter = Schemas["CertificateStatusFilter"];

const pageSize = 20;
const filters: StatusFilter[] = ["valid", "draft", "expired", "revoked"];

export function Certificates({ eventId, version, onChanged }: { eventId: string; version: number; onChanged: () => void }) {
  const t = useText(texts);
  const f = useFormat();
  const [status, setStatus] = useState<StatusFilter | "">("");
  const [search, setSearch] = useState("");
  const q = searchText(useDebounced(search, 300));
  const [sort, setSort] = useState<CertificateSort>("-createdAt");
  const [page, setPage] = useState(1);
  const [list, setList] = useState<Schemas["CertificatePage"] | null>(null);
  const [loading, setLoading] = useState(true);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [again, setAgain] = useState(0);
  const [revoking, setRevoking] = useState<Certificate | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [downloading, setDownloading] = useState<string | null>(null);
  const [sending, setSending] = useState<string | null>(null);
  const [offering, setOffering] = useState<Certificate | null>(null);
  const [actionProblem, setActionProblem] = useState<Problem | null>(null);
  const notice = useRef<HTMLDivElement>(null);

  useEffect(() => setPage(1), [status, sort, q]);

  useEffect(() => {
    let live = true;
    setLoading(true);
    const query: { page: number; pageSize: number; sort: CertificateSort; status?: StatusFilter; q?: string } = { page, pageSize, sort };
    if (status) query.status = status;
    if (q) query.q = q;
    api
      .GET("/events/{id}/certificates", { params: { path: { id: eventId }, query } })
      .then(({ data, error, response }) => {
        if (!live) return;
        if (data) {
          setList(data);
          setProblem(null);
        } else setProblem(problemOf(error, response));
      })
      .catch(() => live && setProblem(problemOf(undefined)))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [eventId, status, sort, page, version, again, q]);

  const download = async (c: Certificate) => {
    setDownloading(c.id);
    setActionProblem(null);
    setDone(null);
    const { data, error, response } = await api
      .GET("/certificates/{id}/download", { params: { path: { id: c.id } }, parseAs: "blob" })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setDownloading(null);
    if (!data) {
      setActionProblem(problemOf(error, response));
      return;
    }
    save(data, pdfName(c.certificateNumber));
  };

  // Emailed again: the service queues the delivery (202) and says to whom; a revoked or draft
  // one it refuses (409), and the list, which did not know, is read again.
  const resend = async (c: Certificate) => {
    setSending(c.id);
    setActionProblem(null);
    setDone(null);
    const { data, error, response } = await api
      .POST("/certificates/{id}/send", { params: { path: { id: c.id } } })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setSending(null);
    if (data) {
      setDone(fill(t.sentTo, { email: data.data.to }));
      return;
    }
    const p = problemOf(error, response);
    setActionProblem({ ...p, message: p.message && fill(t.actionFailed, { number: c.certificateNumber, message: p.message }) });
    if (p.code === "CONFLICT") onChanged();
  };

  const revoked = (c: Certificate) => {
    setRevoking(null);
    setActionProblem(null);
    setDone(fill(t.revokedOne, { number: c.certificateNumber }));
    onChanged();
    // The row's button is gone: the notice holds the focus instead.
    setTimeout(() => notice.current?.focus(), 0);
  };

  const rows = list?.data ?? [];
  return (
    <section aria-labelledby="certificates-h">
      <h2 id="certificates-h">{t.certificates}</h2>
      <div class="toolbar">
        <Field label={t.certificateSearch} hint={t.certificateSearchHint} type="search" value={search} onValue={setSearch} />
        <Select label={t.statusFilter} value={status} onValue={(v) => setStatus(v as StatusFilter | "")}>
          <option value="">{t.statusAll}</option>
          {filters.map((s) => (
            <option key={s} value={s}>
              {{ valid: t.statusValid, draft: t.statusDraft, expired: t.statusExpired, revoked: t.statusRevoked }[s]}
            </option>
          ))}
        </Select>
      </div>
      <div aria-live="polite" ref={notice} tabIndex={-1} class="ev-notice">
        {done && <p class="success">{done}</p>}
      </div>
      <ProblemMessage problem={actionProblem} />
      <ProblemMessage problem={problem} />
      {problem && (
        <p>
          <button type="button" onClick={() => setAgain((n) => n + 1)}>
            {t.retry}
          </button>
        </p>
      )}
      {list === null ? (
        !problem && <Loading />
      ) : rows.length === 0 ? (
        <p class="ev-empty">{status || q ? t.noCertificatesFiltered : t.noCertificates}</p>
      ) : (
        <>
          <div class="table-wrap ev-wrap" tabIndex={0} role="region" aria-labelledby="certificates-h">
            <table class="ev-table" aria-busy={loading || undefined}>
              <thead>
                <tr>
                  <th scope="col">{t.number}</th>
                  <th scope="col">{t.recipient}</th>
                  <th scope="col">{t.status}</th>
                  <SortHeader label={t.issuedAt} sort={ariaSort(sort, "issuedAt")} onSort={() => setSort(nextSort(sort, "issuedAt", true))} />
                  <th scope="col">
                    <span class="visually-hidden">{t.actions}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <tr key={c.id}>
                    <td class="ev-nowrap">
                      <code>{c.certificateNumber}</code>
                    </td>
                    <td>
                      {c.recipient.firstName} {c.recipient.lastName}
                      <br />
                      <span class="hint ev-email">{c.recipient.email}</span>
                    </td>
                    <td>
                      <StatusBadge status={c.status} />
                      {c.revokedAt && c.revocationReason && <span class="hint ev-detail">{c.revocationReason}</span>}
                    </td>
                    <td class="ev-nowrap">{c.issuedAt ? f.dateTime(c.issuedAt) : <span class="hint">{t.notIssued}</span>}</td>
                    <td>
                      <div class="actions">
                        {c.issuedAt && (
                          <a class="button ev-small" href={`/verify/${encodeURIComponent(c.verificationCode)}`}>
                            {t.verify}
                            <span class="visually-hidden"> {c.certificateNumber}</span>
                          </a>
                        )}
                        {c.status !== "draft" && (
                          <button type="button" class="ev-small" onClick={() => void download(c)} disabled={downloading !== null} aria-busy={downloading === c.id || undefined}>
                            {downloading === c.id ? t.downloading : t.download}
                            <span class="visually-hidden"> {c.certificateNumber}</span>
                          </button>
                        )}
                        {sendable(c) && (
                          <button type="button" class="ev-small" onClick={() => void resend(c)} disabled={sending !== null} aria-busy={sending === c.id || undefined}>
                            {sending === c.id ? t.resending : t.resend}
                            <span class="visually-hidden"> {c.certificateNumber}</span>
                          </button>
                        )}
                        {c.status === "valid" && (
                          <button type="button" class="ev-small" onClick={() => setOffering(c)}>
                            {t.wallet}
                            <span class="visually-hidden"> {c.certificateNumber}</span>
                          </button>
                        )}
                        {revocable(c) && (
                          <button type="button" class="danger ev-small" onClick={() => setRevoking(c)}>
                            {t.revoke}
                            <span class="visually-hidden"> {c.certificateNumber}</span>
                          </button>
                        )}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} pages={pages(list.meta)} onPage={setPage} />
        </>
      )}
      {offering && <WalletDialog certificate={offering} onClose={() => setOffering(null)} />}
      {revoking && <RevokeDialog certificate={revoking} onClose={() => setRevoking(null)} onRevoked={revoked} />}
    </section>
  );
}
