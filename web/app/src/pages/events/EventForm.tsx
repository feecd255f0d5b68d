// Creating an event (/app/events/new) or changing one (/app/events/:id/edit): its name, day,
// place, language, how long its certificates are valid and its template; on the edit page,
// deleting it, which the API refuses in words while certificates were issued for it.
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation, useRoute } from "preact-iso";
import { api, type Schemas } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { Busy, Field, Loading, ProblemMessage } from "../../components/ui";
import { events as texts } from "../../i18n/events";
import { fill, useText } from "../../i18n/index";
import { Select, TextArea } from "../../components/fields";
import { bodyOf, emptyValues, locales, validityOk, valuesOf, type EventValues, type Locale } from "./model";
import { TemplateGallery } from "./TemplateGallery";
import { useTitle } from "./title";
import "./events.css";

type Template = Schemas["Template"];

/** EventForm is the page of both addresses; an event of its own for each id. */
export function EventForm() {
  const { params } = useRoute();
  const id = params["id"];
  return <EventFormPage key={id ?? "new"} id={id} />;
}

/** The templates to choose from: the account's active ones first, then the system's. */
function useTemplates(current: string | null) {
  const [templates, setTemplates] = useState<Template[] | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  useEffect(() => {
    if (current === null) return; // the event's own template is not known yet
    let live = true;
    void Promise.all([api.GET("/templates", { params: { query: { active: true, pageSize: 100 } } }), api.GET("/system-templates")])
      .then(async ([own, sys]) => {
        const failed = [own, sys].find((r) => r.error);
        if (failed) {
          if (live) setProblem(problemOf(failed.error, failed.response));
          return;
        }
        const list = [...(own.data?.data ?? []), ...(sys.data?.data ?? [])];
        // The event's own template stays offered, though inactive or not among the first 100.
        if (current && !list.some((x) => x.id === current)) {
          const { data } = await api.GET("/templates/{id}", { params: { path: { id: current } } });
          if (data) list.unshift(data.data);
        }
        if (live) setTemplates(list);
      })
      .catch(() => live && setProblem(problemOf(undefined)));
    return () => {
      live = false;
    };
  }, [current]);
  return { templates, problem };
}

function EventFormPage({ id }: { id: string | undefined }) {
  const t = useText(texts);
  const { route } = useLocation();
  const [event, setEvent] = useState<Schemas["Event"] | null>(null);
  const [values, setValues] = useState<EventValues>(emptyValues);
  const [loadProblem, setLoadProblem] = useState<Problem | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const gallery = useTemplates(id ? (event?.templateId ?? null) : "");

  useEffect(() => {
    if (!id) return;
    void api
      .GET("/events/{id}", { params: { path: { id } } })
      .then(({ data, error, response }) => {
        if (data) {
          setEvent(data.data);
          setValues(valuesOf(data.data));
        } else setLoadProblem(problemOf(error, response));
      })
      .catch(() => setLoadProblem(problemOf(undefined)));
  }, [id]);

  // A field's error stays until that field changes (or the next save says otherwise).
  const fieldOf: Record<keyof EventValues, string> = {
    name: "name",
    description: "description",
    date: "eventDate",
    location: "location",
    locale: "locale",
    validity: "certificateValidityDays",
    templateId: "templateId",
  };
  const set =
    <K extends keyof EventValues>(k: K) =>
    (v: EventValues[K]) => {
      setValues((old) => ({ ...old, [k]: v }));
      setProblem((p) => {
        if (!p || !(fieldOf[k] in p.fields)) return p;
        const { [fieldOf[k]]: _gone, ...fields } = p.fields;
        return { ...p, fields };
      });
    };

  // A new event starts on the first template offered (the account's own, else the system's).
  useEffect(() => {
    const first = gallery.templates?.[0];
    if (!id && first && !values.templateId) set("templateId")(first.id);
  }, [gallery.templates]);

  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem(null);
    if (!validityOk(values.validity)) {
      setProblem({ code: "VALIDATION_ERROR", message: "", fields: { certificateValidityDays: t.validityWhole } });
      return;
    }
    setBusy(true);
    const body = bodyOf(values, event?.eventDate);
    const answer = id
      ? api.PUT("/events/{id}", { params: { path: { id } }, body })
      : api.POST("/events", { body });
    const { data, error, response } = await answer.catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setBusy(false);
    if (data) {
      route(`/app/events/${data.data.id}`);
      return;
    }
    const p = problemOf(error, response);
    // What the API says of a field left empty is written for programs ("minimum string length
    // is 1"): the form says what to do instead. Anything else is the API's own words.
    const empty: [string, boolean, string][] = [
      ["name", !body.name, t.nameRequired],
      ["eventDate", !values.date, t.dateRequired],
      ["templateId", !values.templateId, t.templateRequired],
    ];
    for (const [field, isEmpty, text] of empty) if (isEmpty && p.fields[field]) p.fields[field] = text;
    setProblem(p);
  };

  const title = id ? t.editTitle : t.newTitle;
  useTitle(title);
  if (id && !event) {
    return (
      <>
        <h1>{title}</h1>
        {loadProblem ? <ProblemMessage problem={loadProblem} /> : <Loading />}
        <p>
          <a href="/app/events">{t.title}</a>
        </p>
      </>
    );
  }

  const err = (k: string) => problem?.fields[k];
  return (
    <>
      <h1>{title}</h1>
      <form class="event-form" onSubmit={submit} noValidate>
        <ProblemMessage problem={problem} />
        <Field label={t.nameLabel} required maxLength={200} autocomplete="off" value={values.name} onValue={set("name")} error={err("name")} />
        <TextArea label={t.descriptionLabel} hint={t.descriptionHint} maxLength={2000} value={values.description} onValue={set("description")} error={err("description")} />
        <div class="event-row">
          <Field label={t.dateLabel} type="date" required value={values.date} onValue={set("date")} error={err("eventDate")} />
          <Field label={t.locationLabel} hint={t.locationHint} maxLength={200} value={values.location} onValue={set("location")} error={err("location")} />
        </div>
        <div class="event-row">
          <Select<Locale | "">
            label={t.localeLabel}
            hint={t.localeHint}
            value={values.locale}
            onValue={set("locale")}
            options={[...(id ? [] : [{ value: "" as const, label: t.localeDefault }]), ...locales.map((l) => ({ value: l, label: t[`lang.${l}`] }))]}
            error={err("locale")}
          />
          <Field label={t.validityLabel} hint={t.validityHint} inputMode="numeric" autocomplete="off" value={values.validity} onValue={set("validity")} error={err("certificateValidityDays")} />
        </div>
        <TemplateGallery templates={gallery.templates} problem={gallery.problem} value={values.templateId} onValue={set("templateId")} error={err("templateId")} />
        <div class="actions">
          <Busy busy={busy} class="primary">
            {busy ? t.saving : id ? t.saveChanges : t.create}
          </Busy>
          <a class="button" href={id ? `/app/events/${id}` : "/app/events"}>
            {t.cancel}
          </a>
        </div>
      </form>
      {id && event && <DeleteEvent event={event} />}
    </>
  );
}

/** DeleteEvent asks before it deletes; the API's refusal is shown in its words. */
function DeleteEvent({ event }: { event: Schemas["Event"] }) {
  const t = useText(texts);
  const { route } = useLocation();
  const dialog = useRef<HTMLDialogElement>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  const open = () => {
    setProblem(null);
    dialog.current?.showModal();
  };
  const close = () => dialog.current?.close();
  const remove = async () => {
    setBusy(true);
    setProblem(null);
    const { error, response } = await api
      .DELETE("/events/{id}", { params: { path: { id: event.id } } })
      .catch(() => ({ error: undefined, response: undefined }));
    setBusy(false);
    if (response?.ok) {
      close();
      route("/app/events");
      return;
    }
    setProblem(problemOf(error, response));
  };

  return (
    <section class="danger-zone" aria-labelledby="delete-h">
      <h2 id="delete-h">{t.deleteTitle}</h2>
      <p class="hint">{t.deleteHint}</p>
      <button type="button" class="danger" onClick={open}>
        {t.deleteEvent}
      </button>
      <dialog ref={dialog} aria-labelledby="confirm-h" aria-describedby="confirm-text" onClose={() => setProblem(null)}>
        <h2 id="confirm-h">{fill(t.confirmTitle, { name: event.name })}</h2>
        <p id="confirm-text">{t.confirmText}</p>
        <ProblemMessage problem={problem} />
        <div class="actions">
          <button type="button" class="danger" onClick={() => void remove()} disabled={busy} aria-busy={busy || undefined}>
            {busy ? t.deleting : t.confirmDelete}
          </button>
          <button type="button" onClick={close} autoFocus>
            {t.keep}
          </button>
        </div>
      </dialog>
    </section>
  );
}
