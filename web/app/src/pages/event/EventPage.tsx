// The page of one event (/app/events/:id): its name, date and place; its attendees (search,
// order, pages, one added by hand or many from a CSV file, a certificate issued to one); a
// background job issuing to everyone without a certificate; and the event's certificates
// (revoke, verify, download).
import { useEffect, useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { api, type Schemas } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { Loading, ProblemMessage } from "../../components/ui";
import { event as texts } from "../../i18n/event";
import { useFormat, useText } from "../../i18n/index";
import { AddAttendee } from "./AddAttendee";
import { Attendees } from "./Attendees";
import { BulkIssue } from "./BulkIssue";
import { Certificates } from "./Certificates";
import { ImportCsv } from "./ImportCsv";
import "./event.css";

export function EventPage() {
  const t = useText(texts);
  const f = useFormat();
  const id = useRoute().params["id"] ?? "";
  const [ev, setEv] = useState<Schemas["Event"] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  // Bumped whenever attendees or certificates changed here: the lists read them again.
  const [version, setVersion] = useState(0);
  const [sendEmail, setSendEmail] = useState(false);
  const changed = () => setVersion((v) => v + 1);

  useEffect(() => {
    let live = true;
    setEv(null);
    setProblem(null);
    api
      .GET("/events/{id}", { params: { path: { id } } })
      .then(({ data, error, response }) => {
        if (!live) return;
        if (data) setEv(data.data);
        else setProblem(problemOf(error, response));
      })
      .catch(() => live && setProblem(problemOf(undefined)));
    return () => {
      live = false;
    };
  }, [id]);

  useEffect(() => {
    document.title = ev ? `${ev.name} – credentiald` : "credentiald";
  }, [ev]);

  if (!ev) {
    return (
      <>
        <h1>{t.eventTitle}</h1>
        <ProblemMessage problem={problem} />
        {problem ? (
          <p>
            <a href="/app/events">{t.allEvents}</a>
          </p>
        ) : (
          <Loading />
        )}
      </>
    );
  }

  return (
    <>
      <p class="ev-crumbs">
        <a href="/app/events">{t.allEvents}</a>
      </p>
      <div class="ev-head">
        <div>
          <h1>{ev.name}</h1>
          <p class="ev-when">
            <time dateTime={ev.eventDate}>{f.date(ev.eventDate)}</time>
            {ev.location && (
              <>
                <span aria-hidden="true"> · </span>
                <span class="visually-hidden">, </span>
                {ev.location}
              </>
            )}
          </p>
        </div>
        <a class="button" href={`/app/events/${ev.id}/edit`}>
          {t.edit}
        </a>
      </div>

      <Attendees ev={ev} version={version} sendEmail={sendEmail} onChanged={changed}>
        <BulkIssue eventId={ev.id} sendEmail={sendEmail} onSendEmail={setSendEmail} onChanged={changed} />
      </Attendees>

      <div class="tiles ev-forms">
        <AddAttendee eventId={ev.id} onAdded={changed} />
        <ImportCsv eventId={ev.id} onImported={changed} />
      </div>

      <Certificates eventId={ev.id} version={version} onChanged={changed} />
    </>
  );
}
