// Issuing to everyone of the event without a certificate: a background job, asked for once,
// then read every 2 seconds (never sooner, and not after the page closed) until it stops.
import { useEffect, useState } from "preact/hooks";
import { api, type Schemas } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { ProblemMessage } from "../../components/ui";
import { event as texts } from "../../i18n/event";
import { fill, useFormat, useText } from "../../i18n/index";
import { jobDone, jobIdOf } from "./logic";
import { Check } from "./parts";

type Job = Schemas["BulkJob"];

/** How long to wait between two readings of a running job. */
export const pollEvery = 2000;

interface Props {
  eventId: string;
  sendEmail: boolean;
  onSendEmail: (v: boolean) => void;
  onChanged: () => void;
}

export function BulkIssue({ eventId, sendEmail, onSendEmail, onChanged }: Props) {
  const t = useText(texts);
  const f = useFormat();
  const [job, setJob] = useState<Job | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);

  // A job of this event still running when the page opened is followed as if started here.
  useEffect(() => {
    let live = true;
    api
      .GET("/events/{id}/certificates/generate/jobs", { params: { path: { id: eventId }, query: { pageSize: 1 } } })
      .then(({ data }) => {
        const newest = data?.data[0];
        if (live && newest && !jobDone(newest)) {
          setJob(newest);
          setJobId(newest.id);
        }
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [eventId]);

  // While a job runs, read it again 2 s after each answer; stop when it stops or the page closes.
  useEffect(() => {
    if (!jobId) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      const { data, error, response } = await api
        .GET("/events/{id}/certificates/generate/jobs/{jobId}", { params: { path: { id: eventId, jobId } } })
        .catch(() => ({ data: undefined, error: undefined, response: undefined }));
      if (!live) return;
      if (data) {
        setJob(data.data);
        setProblem(null);
        if (jobDone(data.data)) {
          setJobId(null);
          onChanged();
          return;
        }
      } else {
        const p = problemOf(error, response);
        setProblem(p);
        if (p.code === "NOT_FOUND") {
          setJobId(null);
          return;
        }
      }
      // A refused reading (a network break, too many requests) is tried again, no sooner.
      const wait = problemOf(error, response).retryAfter;
      timer = setTimeout(() => void read(), Math.max(pollEvery, (wait ?? 0) * 1000));
    };
    timer = setTimeout(() => void read(), pollEvery);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [eventId, jobId]);

  // A job is not created twice: while one runs, the service refuses another (409) and the
  // page follows the running one (the operation takes no Idempotency-Key).
  const start = async () => {
    setBusy(true);
    setProblem(null);
    const { data, error, response } = await api
      .POST("/events/{id}/certificates/generate/jobs", {
        params: { path: { id: eventId } },
        body: { sendEmail, draft: false, allowPartial: false },
      })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setBusy(false);
    if (data) {
      setJob(data.data);
      if (jobDone(data.data)) onChanged();
      else setJobId(data.data.id);
      return;
    }
    const p = problemOf(error, response);
    // A job of the event is running already: follow that one.
    const running = p.code === "CONFLICT" ? jobIdOf(response?.headers.get("Location") ?? null) : null;
    if (running) {
      setJob(null);
      setJobId(running);
      return;
    }
    setProblem(p);
  };

  const running = jobId !== null;
  return (
    <div class="ev-bulk" role="group" aria-labelledby="bulk-h">
      <h3 id="bulk-h">{t.issueTitle}</h3>
      <Check label={t.sendEmail} hint={t.sendEmailHint} checked={sendEmail} onChecked={onSendEmail} />
      <p>
        <button type="button" class="primary" onClick={() => void start()} disabled={busy || running} aria-busy={busy || undefined}>
          {t.issueAll}
        </button>
      </p>
      <ProblemMessage problem={problem} />
      <div aria-live="polite">
        {running && (
          <div class="ev-progress">
            {job && job.total > 0 && job.status === "running" ? (
              <>
                <progress max={job.total} value={job.processed} aria-label={t.jobProgress} />
                <p>{fill(t.jobCounts, { processed: f.number(job.processed), total: f.number(job.total) })}</p>
              </>
            ) : (
              <>
                <progress aria-label={t.jobProgress} />
                <p>{t.jobQueued}</p>
              </>
            )}
          </div>
        )}
        {!running && job && jobDone(job) && (
          <div class={job.status === "completed" && job.failed === 0 ? "ev-result success" : "ev-result alert"}>
            <p>
              <strong>{job.status === "completed" ? t.jobDone : t.jobFailed}</strong>{" "}
              {fill(t.jobSummary, { issued: f.number(job.issued), skipped: f.number(job.skipped), failed: f.number(job.failed) })}
            </p>
            {job.errors.length > 0 && (
              <ul>
                {job.errors.map((e) => (
                  <li key={e.attendeeId}>{e.message}</li>
                ))}
              </ul>
            )}
          </div>
        )}
      </div>
    </div>
  );
}
