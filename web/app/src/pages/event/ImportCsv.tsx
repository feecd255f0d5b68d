// Attendees from a CSV file: the file goes as multipart/form-data; while it is read a progress
// bar runs; then how many were added and skipped, and each refused line with its reason.
import { useId, useRef, useState } from "preact/hooks";
import { api, type Schemas } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { Busy, ProblemMessage } from "../../components/ui";
import { event as texts } from "../../i18n/event";
import { fill, useFormat, useText } from "../../i18n/index";
import { Check } from "./parts";

type Result = Schemas["ImportResult"];

export function ImportCsv({ eventId, onImported }: { eventId: string; onImported: () => void }) {
  const t = useText(texts);
  const f = useFormat();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [skipDuplicates, setSkipDuplicates] = useState(true);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [result, setResult] = useState<Result | null>(null);

  const reasons: Record<string, string> = {
    MISSING_FIELD: t.reasonMissing,
    INVALID_EMAIL: t.reasonEmail,
    TOO_LONG: t.reasonTooLong,
    INVALID_TEXT: t.reasonText,
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem(null);
    setResult(null);
    if (!file) {
      setProblem({ code: "VALIDATION_ERROR", message: "", fields: { file: t.chooseFile } });
      input.current?.focus();
      return;
    }
    setBusy(true);
    const chosen = file;
    const { data, error, response } = await api
      .POST("/attendees/import", {
        params: { query: { eventId, skipDuplicates } },
        // The contract types the part as text; the file itself is what goes.
        body: { file: "" },
        bodySerializer: () => {
          const form = new FormData();
          form.append("file", chosen, chosen.name);
          return form;
        },
      })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setBusy(false);
    if (data) {
      setResult(data.data);
      if (data.data.added > 0) onImported();
      return;
    }
    const p = problemOf(error, response);
    if (p.code === "PAYLOAD_TOO_LARGE") p.message = t.tooLarge;
    setProblem(p);
  };

  // What the service said of the file (400 names `file` or `file.row[N]`), next to the input.
  const fileError = problem ? (problem.fields["file"] ?? Object.entries(problem.fields).find(([k]) => k.startsWith("file"))?.[1]) : undefined;
  const showAlert = problem && !(fileError && (problem.message === fileError || !problem.message));

  return (
    <section class="tile" aria-labelledby="import-h">
      <h2 id="import-h">{t.importTitle}</h2>
      <form onSubmit={submit} noValidate>
        {showAlert && <ProblemMessage problem={problem} />}
        <div class={fileError ? "field invalid" : "field"}>
          <label for={id}>{t.csvFile}</label>
          <p class="hint" id={`${id}-hint`}>
            {t.csvHint}
          </p>
          <input
            ref={input}
            id={id}
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => {
              setFile(e.currentTarget.files?.[0] ?? null);
              setProblem(null);
              setResult(null);
            }}
            aria-invalid={fileError ? true : undefined}
            aria-describedby={fileError ? `${id}-hint ${id}-error` : `${id}-hint`}
          />
          {fileError && (
            <p class="error" id={`${id}-error`} role="alert">
              {fileError}
            </p>
          )}
        </div>
        <Check label={t.skipDuplicates} checked={skipDuplicates} onChecked={setSkipDuplicates} />
        <Busy busy={busy} class="primary">
          {busy ? t.importing : t.import}
        </Busy>
      </form>
      <div aria-live="polite">
        {busy && file && (
          <div class="ev-progress">
            <progress aria-label={t.importProgress} />
            <p>{fill(t.importRunning, { name: file.name })}</p>
          </div>
        )}
        {result && (
          <div class={result.rejected.length > 0 ? "ev-result ev-result-partial" : "ev-result success"}>
            <p>
              <strong>{t.importDone}</strong> {fill(t.importCounts, { added: f.number(result.added), skipped: f.number(result.skipped), rejected: f.number(result.rejected.length) })}
            </p>
            {result.rejected.length > 0 && (
              <>
                <p>{t.rejectedIntro}</p>
                <ul class="ev-rejected">
                  {result.rejected.map((r) => (
                    <li key={`${r.row}-${r.field}`}>
                      <strong>{fill(t.line, { row: r.row })}</strong> {reasons[r.reason] ?? r.message}
                      {r.email !== null && r.email !== "" && (
                        <>
                          {" "}
                          <span class="ev-cell">{fill(t.cell, { value: r.email })}</span>
                        </>
                      )}
                    </li>
                  ))}
                </ul>
              </>
            )}
          </div>
        )}
      </div>
    </section>
  );
}
