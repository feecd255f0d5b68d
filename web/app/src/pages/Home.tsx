// The home page: this month's credits, the last 30 days' figures and the recent events.
import { useEffect, useState } from "preact/hooks";
import { api, type Schemas } from "../api/client";
import { problemOf, type Problem } from "../api/errors";
import { DayChart } from "../components/DayChart";
import { Loading, ProblemMessage } from "../components/ui";
import { home } from "../i18n/home";
import { fill, useFormat, useText } from "../i18n/index";

export function Home() {
  const t = useText(home);
  const f = useFormat();
  const [credits, setCredits] = useState<Schemas["Credits"] | null>(null);
  const [figures, setFigures] = useState<Schemas["DashboardAnalytics"] | null>(null);
  const [events, setEvents] = useState<Schemas["Event"][] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);

  useEffect(() => {
    void Promise.all([
      api.GET("/credits"),
      api.GET("/analytics/dashboard"),
      api.GET("/events", { params: { query: { pageSize: 5, sort: "-createdAt" } } }),
    ])
      .then(([c, a, e]) => {
        if (c.data) setCredits(c.data.data);
        if (a.data) setFigures(a.data.data);
        if (e.data) setEvents(e.data.data);
        const failed = [c, a, e].find((r) => r.error);
        if (failed) setProblem(problemOf(failed.error, failed.response));
      })
      .catch(() => setProblem(problemOf(undefined)));
  }, []);

  return (
    <>
      <h1>{t.title}</h1>
      <ProblemMessage problem={problem} />
      <div class="tiles">
        <section class="tile" aria-labelledby="credits-h">
          <h2 id="credits-h">{t.credits}</h2>
          {credits ? (
            <>
              <p class="figure">{fill(t.creditsUsed, { used: f.number(credits.used) })}</p>
              <p>
                {credits.limit === null || credits.remaining === null
                  ? t.creditsUnlimited
                  : fill(t.creditsLeft, { left: f.number(credits.remaining), limit: f.number(credits.limit) })}
              </p>
              {credits.limit !== null && (
                <meter min={0} max={credits.limit} value={credits.used} aria-label={t.credits} />
              )}
              <p class="hint">{fill(t.creditsRenew, { date: f.date(credits.resetsAt) })}</p>
            </>
          ) : (
            !problem && <Loading />
          )}
        </section>
        <section class="tile" aria-labelledby="figures-h">
          <h2 id="figures-h">{t.last30}</h2>
          {figures ? (
            <dl class="figures">
              <div>
                <dt>{t.issued}</dt>
                <dd>{f.number(figures.credentialsIssued)}</dd>
              </div>
              <div>
                <dt>{t.views}</dt>
                <dd>{f.number(figures.views)}</dd>
              </div>
              <div>
                <dt>{t.shares}</dt>
                <dd>{f.number(figures.shares)}</dd>
              </div>
              <div>
                <dt>{t.downloads}</dt>
                <dd>{f.number(figures.downloads)}</dd>
              </div>
            </dl>
          ) : (
            !problem && <Loading />
          )}
        </section>
      </div>
      {figures && (
        <DayChart
          title={t.issuedPerDay}
          days={figures.days.map((d) => ({ date: d.date, value: d.issued }))}
          tableLabel={t.showTable}
          dateLabel={t.day}
          valueLabel={t.issued}
        />
      )}
      <section aria-labelledby="events-h">
        <h2 id="events-h">{t.recentEvents}</h2>
        {events === null ? (
          !problem && <Loading />
        ) : events.length === 0 ? (
          <p>
            {t.noEvents} <a href="/app/events/new">{t.createFirst}</a>
          </p>
        ) : (
          <>
            <ul class="list">
              {events.map((e) => (
                <li key={e.id}>
                  <a href={`/app/events/${e.id}`}>{e.name}</a> <span class="hint">{f.date(e.eventDate)}</span>
                </li>
              ))}
            </ul>
            <p>
              <a href="/app/events">{t.allEvents}</a>
            </p>
          </>
        )}
      </section>
    </>
  );
}
