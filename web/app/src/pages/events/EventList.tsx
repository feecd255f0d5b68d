// The account's events: a table that searches as one types, sorts by name or date and pages.
// Its search, order and page are the address's (?q=&sort=&page=), so a reload or a link keeps them.
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, type Schemas } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { Field, Loading, Pager, ProblemMessage } from "../../components/ui";
import { events as texts } from "../../i18n/events";
import { fill, useFormat, useText } from "../../i18n/index";
import { direction, listAddress, nextSort, pageOf, sortOf, type SortColumn } from "./model";
import { useTitle } from "./title";
import "./events.css";

const pageSize = 20;

/** How long the search waits for the typing to pause. */
const debounceMs = 300;

export function EventList() {
  const t = useText(texts);
  const f = useFormat();
  const { query, route } = useLocation();
  const q = (query["q"] ?? "").trim().slice(0, 100);
  const sort = sortOf(query["sort"]);
  const page = pageOf(query["page"]);
  useTitle(t.title);

  const [text, setText] = useState(q);
  const [list, setList] = useState<Schemas["EventPage"] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(true);
  const asked = useRef(0);
  // The search this page last put in the address: an address changed otherwise (the main
  // menu's link, going back) sets the search box.
  const committed = useRef(q);

  useEffect(() => {
    if (q !== committed.current) {
      committed.current = q;
      setText(q);
    }
  }, [q]);

  // Search as one types, once the typing pauses.
  useEffect(() => {
    const wanted = text.trim();
    if (wanted === committed.current) return;
    const timer = setTimeout(() => {
      committed.current = wanted;
      route(listAddress(wanted, sort, 1), true);
    }, debounceMs);
    return () => clearTimeout(timer);
  }, [text]);

  useEffect(() => {
    const n = ++asked.current;
    setBusy(true);
    const params = { page, pageSize, sort, ...(q ? { q } : {}) };
    void api
      .GET("/events", { params: { query: params } })
      .then(({ data, error, response }) => {
        if (n !== asked.current) return; // a later search answered first, or will
        if (data) {
          setList(data);
          setProblem(null);
        } else setProblem(problemOf(error, response));
      })
      .catch(() => n === asked.current && setProblem(problemOf(undefined)))
      .finally(() => n === asked.current && setBusy(false));
  }, [q, sort, page]);

  const pages = list ? Math.max(1, Math.ceil(list.meta.total / pageSize)) : 1;
  const sortedBy = (["name", "eventDate"] as const).find((c) => direction(sort, c));
  const caption = sortedBy
    ? fill(t.captionSorted, {
        column: sortedBy === "name" ? t.name : t.date,
        direction: direction(sort, sortedBy) === "ascending" ? t.ascending : t.descending,
      })
    : t.caption;

  const header = (column: SortColumn, label: string) => (
    <th scope="col" aria-sort={direction(sort, column)}>
      <button type="button" onClick={() => route(listAddress(q, nextSort(sort, column), 1))}>
        {label}
      </button>
    </th>
  );

  return (
    <>
      <h1>{t.title}</h1>
      <div class="toolbar">
        <div class="events-search">
          <Field label={t.search} hint={t.searchHint} type="search" value={text} onValue={setText} maxLength={100} autocomplete="off" />
        </div>
        <a class="button primary" href="/app/events/new">
          {t.newEvent}
        </a>
      </div>
      <ProblemMessage problem={problem} />
      {list === null ? (
        !problem && <Loading />
      ) : list.meta.total === 0 && !q ? (
        <p class="events-empty">
          {t.noEvents} <a href="/app/events/new">{t.createFirst}</a>
        </p>
      ) : (
        <>
          <p class="hint" role="status">
            {list.meta.total === 0
              ? fill(t.noMatch, { q })
              : list.meta.total === 1
                ? t.countOne
                : fill(t.countMany, { count: f.number(list.meta.total) })}
          </p>
          {list.meta.total === 0 ? (
            <p>
              <a href="/app/events">{t.clearSearch}</a>
            </p>
          ) : (
            <div class="table-wrap" aria-busy={busy || undefined}>
              <table class="events-table">
                <caption class="visually-hidden">{caption}</caption>
                <thead>
                  <tr>
                    {header("name", t.name)}
                    {header("eventDate", t.date)}
                    <th scope="col">{t.location}</th>
                    <th scope="col">{t.locale}</th>
                    <th scope="col">
                      <span class="visually-hidden">{t.actions}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.map((e) => (
                    <tr key={e.id}>
                      <th scope="row">
                        <a href={`/app/events/${e.id}`}>{e.name}</a>
                      </th>
                      <td class="nowrap">{f.date(e.eventDate)}</td>
                      <td>{e.location ?? ""}</td>
                      <td>{t[`lang.${e.locale}`]}</td>
                      <td>
                        <a href={`/app/events/${e.id}/edit`} aria-label={fill(t.editNamed, { name: e.name })}>
                          {t.edit}
                        </a>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <Pager page={Math.min(page, pages)} pages={pages} onPage={(p) => route(listAddress(q, sort, p))} />
        </>
      )}
    </>
  );
}
