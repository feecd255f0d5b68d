// Attendees from a CSV file, in three steps: the file chosen is read in the browser (the
// delimiter found as the service finds it) and its header, first rows and count shown; on
// "Import these N rows" it goes as multipart/form-data while a progress bar runs; then how many
// were added and skipped, each refused line with its reason, and those lines as a CSV file.
import type { RefObject } from "preact";
import { useEffect, useId, useMemo, useRef, useState } from "preact/hooks";
import { api, type Schemas } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { ProblemMessage } from "../../components/ui";
import { event as texts } from "../../i18n/event";
import { fill, useFormat, useText } from "../../i18n/index";
import { fileName, previewCsv, rejectedCsv, type CsvPreview } from "./logic";
import { Check } from "./parts";

type Result = Schemas["ImportResult"];

/** The service's limits (openapi: at most 10 MiB and 50,000 rows). */
const maxBytes = 10 * 1024 * 1024;
const maxRows = 50_000;

type Step =
  | { kind: "choose" }
  | { kind: "reading"; file: File }
  | { kind: "preview"; file: File; preview: CsvPreview; sending: boolean }
  | { kind: "done"; file: File; result: Result };

export function ImportCsv({ eventId, onImported }: { eventId: string; onImported: () => void }) {
  const t = useText(texts);
  const f = useFormat();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const outcome = useRef<HTMLDivElement>(null);
  // Each choice of a file counts: a slow read of an earlier one is then ignored.
  const reads = useRef(0);
  const [step, setStep] = useState<Step>({ kind: "choose" });
  const [focus, setFocus] = useState<"input" | "preview" | "result" | null>(null);
  const [readError, setReadError] = useState<string | null>(null);
  const [skipDuplicates, setSkipDuplicates] = useState(true);
  const [problem, setProblem] = useState<Problem | null>(null);

  // Focus follows the step: the preview's heading, the result, or the file input again.
  useEffect(() => {
    if (focus === "input") input.current?.focus();
    if (focus === "preview") heading.current?.focus();
    if (focus === "result") outcome.current?.focus();
    if (focus) setFocus(null);
  }, [focus]);

  const reasons: Record<string, string> = {
    MISSING_FIELD: t.reasonMissing,
    INVALID_EMAIL: t.reasonEmail,
    TOO_LONG: t.reasonTooLong,
    INVALID_TEXT: t.reasonText,
  };

  const choose = async (file: File | null) => {
    const read = ++reads.current;
    setProblem(null);
    setReadError(null);
    if (!file) {
      setStep({ kind: "choose" });
      return;
    }
    if (file.size > maxBytes) {
      setReadError(t.tooLarge);
      return;
    }
    setStep({ kind: "reading", file });
    const refuse = (text: string) => {
      setReadError(text);
      setStep({ kind: "choose" });
    };
    let text: string;
    try {
      text = await file.text();
    } catch {
      if (read === reads.current) refuse(t.unreadable);
      return;
    }
    if (read !== reads.current) return;
    if (text.replace(/^\ufeff/, "").trim() === "") return refuse(t.emptyFile);
    if (text.includes("\u0000")) return refuse(t.notText);
    const preview = previewCsv(text);
    if (preview.count > maxRows) return refuse(t.tooLarge);
    setStep({ kind: "preview", file, preview, sending: false });
    setFocus("preview");
  };

  const chooseAnother = () => {
    reads.current++;
    setProblem(null);
    setReadError(null);
    setStep({ kind: "choose" });
    setFocus("input");
  };

  const send = async () => {
    if (step.kind !== "preview") return;
    const { file, preview } = step;
    setProblem(null);
    setStep({ ...step, sending: true });
    const { data, error, response } = await api
      .POST("/attendees/import", {
        params: { query: { eventId, skipDuplicates } },
        // The contract types the part as text; the file itself is what goes.
        body: { file: "" },
        bodySerializer: () => {
          const form = new FormData();
          form.append("file", file, file.name);
          return form;
        },
      })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    if (data) {
      setStep({ kind: "done", file, result: data.data });
      setFocus("result");
      if (data.data.added > 0) onImported();
      return;
    }
    setStep({ kind: "preview", file, preview, sending: false });
    const p = problemOf(error, response);
    if (p.code === "PAYLOAD_TOO_LARGE") p.message = t.tooLarge;
    // What the service said of the file (400 names `file` or `file.row[N]`), with its message.
    p.message = [...new Set([p.message, ...Object.values(p.fields)])].filter(Boolean).join(" ");
    setProblem(p);
  };

  // The refused rows as a file to download, for as long as the result shows.
  const result = step.kind === "done" ? step.result : null;
  const rejectedUrl = useMemo(
    () => (result && result.rejected.length > 0 ? URL.createObjectURL(new Blob([rejectedCsv(result.rejected)], { type: "text/csv;charset=utf-8" })) : null),
    [result],
  );
  useEffect(() => () => void (rejectedUrl && URL.revokeObjectURL(rejectedUrl)), [rejectedUrl]);

  const wide = step.kind === "preview" || step.kind === "done";
  return (
    <section class={wide ? "tile ev-wide" : "tile"} aria-labelledby="import-h">
      <h2 id="import-h">{t.importTitle}</h2>
      {(step.kind === "choose" || step.kind === "reading") && (
        <>
          <div class={readError ? "field invalid" : "field"}>
            <label for={id}>{t.csvFile}</label>
            <p class="hint" id={`${id}-hint`}>
              {t.csvHint}
            </p>
            <input
              ref={input}
              id={id}
              type="file"
              accept=".csv,.tsv,.txt,text/csv"
              onChange={(e) => void choose(e.currentTarget.files?.[0] ?? null)}
              aria-invalid={readError ? true : undefined}
              aria-describedby={readError ? `${id}-hint ${id}-error` : `${id}-hint`}
            />
            {readError && (
              <p class="error" id={`${id}-error`} role="alert">
                {readError}
              </p>
            )}
          </div>
          {step.kind === "reading" && (
            <p class="loading" role="status">
              {fill(t.opening, { name: step.file.name })}
            </p>
          )}
        </>
      )}
      {step.kind === "preview" && <Preview step={step} heading={heading} />}
      {step.kind === "preview" && (
        <>
          <ProblemMessage problem={problem} />
          {step.preview.count > 0 && <Check label={t.skipDuplicates} checked={skipDuplicates} onChecked={setSkipDuplicates} />}
          <div class="actions">
            {step.preview.count > 0 && (
              <button type="button" class="primary" onClick={() => void send()} disabled={step.sending} aria-busy={step.sending || undefined}>
                {step.sending ? t.importing : step.preview.count === 1 ? t.importOne : fill(t.importMany, { n: f.number(step.preview.count) })}
              </button>
            )}
            <button type="button" onClick={chooseAnother} disabled={step.sending}>
              {t.chooseAnother}
            </button>
          </div>
        </>
      )}
      <div aria-live="polite">
        {step.kind === "preview" && step.sending && (
          <div class="ev-progress">
            <progress aria-label={t.importProgress} />
            <p>{fill(t.importRunning, { name: step.file.name })}</p>
          </div>
        )}
        {step.kind === "done" && (
          <div ref={outcome} tabIndex={-1} class={step.result.rejected.length > 0 ? "ev-result ev-result-partial ev-notice" : "ev-result success ev-notice"}>
            <p>
              <strong>{t.importDone}</strong>{" "}
              {fill(t.importCounts, { added: f.number(step.result.added), skipped: f.number(step.result.skipped), rejected: f.number(step.result.rejected.length) })}
            </p>
            {step.result.rejected.length > 0 && (
              <>
                <p>{t.rejectedIntro}</p>
                <ul class="ev-rejected">
                  {step.result.rejected.map((r) => (
                    <li key={`${r.row}-${r.field}`}>
                      <strong>{fill(t.lineOf, { row: r.row })}</strong> {reasons[r.reason] ?? r.message}
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
      {step.kind === "done" && (
        <div class="actions ev-after">
          {rejectedUrl && (
            <a class="button" href={rejectedUrl} download={fileName(step.file.name.replace(/\.(csv|tsv|txt)$/i, ""), "-rejected.csv")}>
              {t.downloadRejected}
            </a>
          )}
          <button type="button" onClick={chooseAnother}>
            {t.importAnother}
          </button>
        </div>
      )}
    </section>
  );
}

/** Preview shows what was read of the file: its count of rows, header and first rows. */
function Preview({ step, heading }: { step: { file: File; preview: CsvPreview }; heading: RefObject<HTMLHeadingElement | null> }) {
  const t = useText(texts);
  const f = useFormat();
  const id = useId();
  const { preview: p, file } = step;
  const width = Math.max(p.header.length, ...p.rows.map((r) => r.cells.length));
  const cols = Array.from({ length: width }, (_, i) => i);
  const delimiter = { ",": t.delimiterComma, ";": t.delimiterSemicolon, "\t": t.delimiterTab }[p.delimiter];
  return (
    <div class="ev-preview">
      <h3 ref={heading} tabIndex={-1}>
        {fill(t.previewTitle, { name: file.name })}
      </h3>
      {p.count === 0 ? (
        <p class="ev-empty">{t.noRows}</p>
      ) : (
        <p>
          <strong>{p.count === 1 ? t.rowsOne : fill(t.rowsMany, { n: f.number(p.count) })}</strong> {p.count > p.rows.length && fill(t.rowsShown, { shown: p.rows.length })} {delimiter}
        </p>
      )}
      <div class="table-wrap ev-wrap" tabIndex={0} role="region" aria-labelledby={`${id}-caption`}>
        <table class="ev-table ev-preview-table">
          <caption id={`${id}-caption`} class="visually-hidden">
            {fill(t.previewCaption, { name: file.name })}
          </caption>
          <thead>
            <tr>
              <th scope="col">{t.line}</th>
              {cols.map((i) => (
                <th scope="col" key={i}>
                  {p.header[i]?.trim() || <span class="ev-unnamed">{t.unnamed}</span>}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {p.rows.map((r) => (
              <tr key={r.line}>
                <th scope="row">{r.line}</th>
                {cols.map((i) => (
                  <td key={i}>{r.cells[i] ?? ""}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
