// The event's attendees: searched (debounced), ordered by a column, a page at a time, each with
// their certificate's standing and an action that issues them one; all of them as a CSV file.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type Schemas } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { Field, Loading, Pager, ProblemMessage } from "../../components/ui";
import { event as texts } from "../../i18n/event";
import { fill, useFormat, useText } from "../../i18n/index";
import { ExportAttendees } from "./Export";
import { ariaSort, idempotencyKey, nextSort, pages, searchText, statusByAttendee, type AttendeeSort } from "./logic";
import { SortHeader, StatusBadge, useDebounced } from "./parts";

const pageSize = 20;
// The certificates read for the attendees' standing: one page, the most the API gives.
const statusPage = 100;

interface Props {
  ev: Schemas["Event"];
  version: number;
  sendEmail: boolean;
  onChanged: () => void;
  children?: ComponentChildren;
}

export function Attendees({ ev, version, sendEmail, onChanged, children }: Props) {
  const t = useText(texts);
  const f = useFormat();
  const [typed, setTyped] = useState("");
  const q = useDebounced(searchText(typed), 300);
  const [sort, setSort] = useState<AttendeeSort>("-createdAt");
  const [page, setPage] = useState(1);
  const [list, setList] = useState<Schemas["AttendeePage"] | null>(null);
  const [loading, setLoading] = useState(true);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [again, setAgain] = useState(0);
  const [standing, setStanding] = useState<{ of: Map<string, string>; complete: boolean } | null>(null);
  const [issuing, setIssuing] = useState<string | null>(null);
  const [issued, setIssued] = useState<string | null>(null);
  const [issueProblem, setIssueProblem] = useState<Problem | null>(null);
  // One key per attendee's attempt, kept until the service answered: a retry after a lost
  // answer is then the same request, never a second certificate.
  const keys = useRef(new Map<string, string>());

  // A new search or order starts on the first page.
  useEffect(() => setPage(1), [q, sort]);

  useEffect(() => {
    let live = true;
    setLoading(true);
    const query: { page: number; pageSize: number; sort: AttendeeSort; q?: string } = { page, pageSize, sort };
    if (q) query.q = q;
    api
      .GET("/events/{id}/attendees", { params: { path: { id: ev.id }, query } })
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
  }, [ev.id, q, sort, page, version, again]);

  useEffect(() => {
    let live = true;
    api
      .GET("/events/{id}/certificates", { params: { path: { id: ev.id }, query: { pageSize: statusPage, sort: "-createdAt" } } })
      .then(({ data }) => {
        if (live && data) setStanding({ of: statusByAttendee(data.data), complete: data.meta.total <= data.data.length });
      })
      .catch(() => undefined); // the column then says nothing; the list itself still shows
    return () => {
      live = false;
    };
  }, [ev.id, version]);

  const issue = async (a: Schemas["Attendee"]) => {
    const name = `${a.firstName} ${a.lastName}`;
    setIssuing(a.id);
    setIssued(null);
    setIssueProblem(null);
    let key = keys.current.get(a.id);
    if (!key) {
      key = idempotencyKey();
      keys.current.set(a.id, key);
    }
    const { data, error, response } = await api
      .POST("/certificates/generate", {
        params: { header: { "Idempotency-Key": key } },
        body: { templateId: ev.templateId, eventId: ev.id, attendeeId: a.id, sendEmail },
      })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setIssuing(null);
    if (response) keys.current.delete(a.id);
    if (data) {
      setIssued(fill(t.issuedOne, { number: data.data.certificateNumber, name }));
      onChanged();
    } else {
      const p = problemOf(error, response);
      setIssueProblem({ ...p, message: p.message && fill(t.issueFailed, { name, message: p.message }) });
    }
  };

  const standingOf = (a: Schemas["Attendee"]) => {
    if (a.erasedAt) return <span class="status ev-erased">{t.erased}</span>;
    if (!standing) return null;
    const s = standing.of.get(a.id);
    if (s) return <StatusBadge status={s} />;
    return standing.complete ? <span class="hint">{t.noCertificate}</span> : <span class="hint">{t.unknownStanding}</span>;
  };

  const sortBy = (field: string, newestFirst = false) => setSort(nextSort(sort, field, newestFirst));
  const rows = list?.data ?? [];

  return (
    <section aria-labelledby="attendees-h">
      <h2 id="attendees-h">{t.attendees}</h2>
      <div class="toolbar">
        <Field label={t.search} hint={t.searchHint} type="search" value={typed} onValue={setTyped} maxLength={100} />
        <ExportAttendees ev={ev} />
      </div>
      <div aria-live="polite">
        {issued && <p class="success">{issued}</p>}
      </div>
      <ProblemMessage problem={issueProblem} />
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
        <p class="ev-empty">{q ? fill(t.noMatch, { q }) : t.noAttendees}</p>
      ) : (
        <>
          <div class="table-wrap ev-wrap" tabIndex={0} role="region" aria-labelledby="attendees-h">
            <table class="ev-table" aria-busy={loading || undefined}>
              <thead>
                <tr>
                  <th scope="col">{t.firstName}</th>
                  <SortHeader label={t.lastName} sort={ariaSort(sort, "lastName")} onSort={() => sortBy("lastName")} />
                  <SortHeader label={t.email} sort={ariaSort(sort, "email")} onSort={() => sortBy("email")} />
                  <th scope="col">{t.certificate}</th>
                  <SortHeader label={t.added} sort={ariaSort(sort, "createdAt")} onSort={() => sortBy("createdAt", true)} />
                  <th scope="col">
                    <span class="visually-hidden">{t.actions}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((a) => (
                  <tr key={a.id}>
                    <td>{a.firstName}</td>
                    <td>{a.lastName}</td>
                    <td class="ev-email">{a.email}</td>
                    <td>{standingOf(a)}</td>
                    <td class="ev-nowrap">{f.date(a.createdAt)}</td>
                    <td>
                      {!a.erasedAt && standing?.of.get(a.id) !== "valid" && (
                        <button type="button" class="ev-small" onClick={() => void issue(a)} disabled={issuing !== null} aria-busy={issuing === a.id || undefined}>
                          {issuing === a.id ? t.issuing : t.issue}
                          <span class="visually-hidden"> {fill(t.issueTo, { name: `${a.firstName} ${a.lastName}` })}</span>
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p class="hint ev-total">{fill(list.meta.total === 1 ? t.countOne : t.countMany, { n: f.number(list.meta.total) })}</p>
          <Pager page={page} pages={pages(list.meta)} onPage={setPage} />
        </>
      )}
      {children}
    </section>
  );
}
