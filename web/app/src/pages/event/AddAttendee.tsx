// One attendee added by hand; what the service refuses is said next to its field.
import { useState } from "preact/hooks";
import { api } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { Busy, Field, ProblemMessage } from "../../components/ui";
import { event as texts } from "../../i18n/event";
import { fill, useText } from "../../i18n/index";

const empty = { firstName: "", lastName: "", email: "" };

export function AddAttendee({ eventId, onAdded }: { eventId: string; onAdded: () => void }) {
  const t = useText(texts);
  const [f, setF] = useState(empty);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const set = (k: keyof typeof f) => (v: string) => setF({ ...f, [k]: v });

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    setAdded(null);
    const { data, error, response } = await api
      .POST("/attendees", { body: { eventId, firstName: f.firstName, lastName: f.lastName, email: f.email } })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setBusy(false);
    if (data) {
      setAdded(fill(t.addedOne, { name: `${data.data.firstName} ${data.data.lastName}` }));
      setF(empty);
      onAdded();
    } else setProblem(problemOf(error, response));
  };

  return (
    <section class="tile" aria-labelledby="add-h">
      <h2 id="add-h">{t.addTitle}</h2>
      <form onSubmit={submit} noValidate>
        <ProblemMessage problem={problem} />
        <div aria-live="polite">{added && <p class="success">{added}</p>}</div>
        <Field label={t.firstName} autocomplete="off" required maxLength={100} value={f.firstName} onValue={set("firstName")} error={problem?.fields["firstName"]} />
        <Field label={t.lastName} autocomplete="off" required maxLength={100} value={f.lastName} onValue={set("lastName")} error={problem?.fields["lastName"]} />
        <Field label={t.emailAddress} type="email" autocomplete="off" required maxLength={254} value={f.email} onValue={set("email")} error={problem?.fields["email"]} />
        <Busy busy={busy} class="primary">
          {busy ? t.adding : t.add}
        </Busy>
      </form>
    </section>
  );
}
