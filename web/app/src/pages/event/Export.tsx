// The event's attendees as a CSV file: fetched through the API client (it needs the session's
// token, so not a plain link), with a byte order mark for spreadsheets, and saved under the
// event's name.
import { useState } from "preact/hooks";
import { api, type Schemas } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { ProblemMessage } from "../../components/ui";
import { event as texts } from "../../i18n/event";
import { useText } from "../../i18n/index";
import { fileName } from "./logic";
import { save } from "./parts";

export function ExportAttendees({ ev }: { ev: Pick<Schemas["Event"], "id" | "name"> }) {
  const t = useText(texts);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);

  const download = async () => {
    setBusy(true);
    setProblem(null);
    const { data, error, response } = await api
      .GET("/events/{eventId}/attendees/export", { params: { path: { eventId: ev.id }, query: { bom: true } }, parseAs: "blob" })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setBusy(false);
    if (data) save(data, fileName(ev.name, "-attendees.csv"));
    else setProblem(problemOf(error, response));
  };

  return (
    <div class="ev-export">
      <button type="button" onClick={() => void download()} disabled={busy} aria-busy={busy || undefined}>
        {busy ? t.exporting : t.exportAttendees}
      </button>
      <ProblemMessage problem={problem} />
    </div>
  );
}
