// The branding page (/app/branding): how the account's certificates, emails and verification
// page present the organisation. The form reads GET /branding and replaces it as a whole with
// PUT /branding; images travel as data URIs inside it, checked here first (type, size), then
// by the API, whose refusals stand next to their fields. Only owners and admins may change it:
// for the others the form is shown disabled, and an API refusal of the role disables it too.
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { api } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { Busy, Field, Loading, ProblemMessage } from "../../components/ui";
import { branding as texts } from "../../i18n/branding";
import { fill, useText } from "../../i18n/index";
import { useSession } from "../../session";
import { ColourField, ImageField, Select } from "./fields";
import {
  bodyOf,
  locales,
  localProblems,
  maxLogoBytes,
  maxSignatories,
  maxSignatureBytes,
  nextKey,
  valuesOf,
  withoutField,
  withoutSignatory,
  type BrandingValues,
  type Locale,
  type SignatoryValues,
} from "./model";
import { useTitle } from "./title";
import "./branding.css";

/** Roles the API refuses PUT /branding (x-required-role: admin); others are left to it. */
const readOnlyRoles = ["viewer", "issuer"];

export function Branding() {
  const t = useText(texts);
  useTitle(t.title);
  const [loaded, setLoaded] = useState<BrandingValues | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    setProblem(null);
    void api
      .GET("/branding")
      .then(({ data, error, response }) => {
        if (!live) return;
        if (data) setLoaded(valuesOf(data.data));
        else setProblem(problemOf(error, response));
      })
      .catch(() => live && setProblem(problemOf(undefined)));
    return () => {
      live = false;
    };
  }, [attempt]);

  return (
    <>
      <h1>{t.title}</h1>
      <p class="branding-intro">{t.intro}</p>
      {loaded ? (
        <BrandingForm initial={loaded} />
      ) : problem ? (
        <>
          <ProblemMessage problem={problem} />
          <button type="button" onClick={() => setAttempt((n) => n + 1)}>
            {t.retry}
          </button>
        </>
      ) : (
        <Loading />
      )}
    </>
  );
}

function BrandingForm({ initial }: { initial: BrandingValues }) {
  const t = useText(texts);
  const { profile } = useSession();
  const [values, setValues] = useState<BrandingValues>(initial);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [forbidden, setForbidden] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  // Each save draws the image fields anew: a file chosen before is now the saved image.
  const [generation, setGeneration] = useState(0);
  const form = useRef<HTMLFormElement>(null);
  const signatoriesBox = useRef<HTMLFieldSetElement>(null);
  const focusRow = useRef<number | null>(null);
  const sigHint = useId();

  const readOnly = (profile !== null && readOnlyRoles.includes(profile.role)) || forbidden !== null;
  const fields = problem?.fields ?? {};

  // A refusal (each save refused counts one) moves the focus to the first field in error, or
  // shows its message; a field's message cleared as it changes leaves the focus where it is.
  const [refusals, setRefusals] = useState(0);
  useEffect(() => {
    const f = form.current;
    if (refusals === 0 || !f) return;
    const target = f.querySelector<HTMLElement>("[aria-invalid=true]");
    if (target) target.focus();
    else f.querySelector(".alert")?.scrollIntoView({ block: "center" });
  }, [refusals]);

  // A row added or removed: the focus goes to the new row's name, or to where the row was.
  useEffect(() => {
    const i = focusRow.current;
    const box = signatoriesBox.current;
    if (i === null || !box) return;
    focusRow.current = null;
    const rows = box.querySelectorAll<HTMLFieldSetElement>("fieldset.branding-signatory");
    const row = rows[Math.min(i, rows.length - 1)];
    (row?.querySelector<HTMLElement>("input[type=text]") ?? box.querySelector<HTMLElement>("button.branding-add"))?.focus();
  }, [values.signatories.length]);

  const changed = (drop: (f: Record<string, string>) => Record<string, string>) => {
    setSaved(false);
    setProblem((p) => {
      if (!p) return p;
      const fields = drop(p.fields);
      return fields === p.fields ? p : { ...p, fields };
    });
  };

  const set =
    <K extends Exclude<keyof BrandingValues, "signatories">>(k: K) =>
    (v: BrandingValues[K]) => {
      setValues((old) => ({ ...old, [k]: v }));
      changed((f) => withoutField(f, k));
    };

  const setSignatory =
    <K extends Exclude<keyof SignatoryValues, "key">>(i: number, k: K) =>
    (v: SignatoryValues[K]) => {
      setValues((old) => ({ ...old, signatories: old.signatories.map((s, j) => (j === i ? { ...s, [k]: v } : s)) }));
      changed((f) => withoutField(f, `signatories[${i}].${k}`));
    };

  const addSignatory = () => {
    focusRow.current = values.signatories.length;
    setValues((old) => ({ ...old, signatories: [...old.signatories, { key: nextKey(), name: "", title: "", signatureImage: null }] }));
    changed((f) => withoutField(f, "signatories"));
  };

  const removeSignatory = (i: number) => {
    focusRow.current = i;
    setValues((old) => ({ ...old, signatories: old.signatories.filter((_, j) => j !== i) }));
    changed((f) => withoutField(withoutSignatory(f, i), "signatories"));
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    if (readOnly) return;
    setSaved(false);
    const mine = localProblems(values, t);
    if (Object.keys(mine).length > 0) {
      setProblem({ code: "VALIDATION_ERROR", message: "", fields: mine });
      setRefusals((n) => n + 1);
      return;
    }
    setProblem(null);
    setBusy(true);
    const { data, error, response } = await api
      .PUT("/branding", { body: bodyOf(values) })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setBusy(false);
    if (data) {
      setValues(valuesOf(data.data));
      setGeneration((g) => g + 1);
      setSaved(true);
      return;
    }
    const p = problemOf(error, response);
    if (p.code === "INSUFFICIENT_ROLE") {
      setForbidden(p);
      return;
    }
    setProblem(p);
    setRefusals((n) => n + 1);
  };

  // Messages for fields the form has no place for (the API may name a whole row): said above.
  const placed = new Set([
    "issuerName",
    "website",
    "publicEmail",
    "logo",
    "primaryColor",
    "emailFromName",
    "emailReplyTo",
    "defaultLocale",
    "signatories",
    ...values.signatories.flatMap((_, i) => ["name", "title", "signatureImage"].map((k) => `signatories[${i}].${k}`)),
  ]);
  const elsewhere = Object.entries(fields).filter(([k]) => !placed.has(k));
  const signatoriesError = fields["signatories"];
  const full = values.signatories.length >= maxSignatories;

  return (
    <form ref={form} class="branding-form" onSubmit={submit} noValidate>
      {forbidden ? (
        <ProblemMessage problem={forbidden} />
      ) : (
        readOnly && (
          <p class="branding-note" id="branding-readonly">
            {t.readOnly}
          </p>
        )
      )}
      <ProblemMessage problem={problem} />
      {elsewhere.length > 0 && (
        <ul class="error branding-elsewhere">
          {elsewhere.map(([k, m]) => (
            <li key={k}>
              <code>{k}</code> {m}
            </li>
          ))}
        </ul>
      )}
      <fieldset class="branding-all" disabled={readOnly} aria-describedby={readOnly && !forbidden ? "branding-readonly" : undefined}>
        <fieldset class="branding-section">
          <legend>{t.issuerSection}</legend>
          <Field label={t.issuerName} hint={t.issuerNameHint} maxLength={200} autocomplete="organization" value={values.issuerName} onValue={set("issuerName")} error={fields["issuerName"]} />
          <div class="branding-row">
            <Field label={t.website} hint={t.websiteHint} type="url" maxLength={2048} autocomplete="url" value={values.website} onValue={set("website")} error={fields["website"]} />
            <Field label={t.publicEmail} hint={t.publicEmailHint} type="email" maxLength={254} autocomplete="email" value={values.publicEmail} onValue={set("publicEmail")} error={fields["publicEmail"]} />
          </div>
        </fieldset>

        <fieldset class="branding-section">
          <legend>{t.lookSection}</legend>
          <ImageField
            key={`logo-${generation}`}
            label={t.logo}
            hint={t.logoHint}
            value={values.logo}
            onValue={set("logo")}
            error={fields["logo"]}
            maxBytes={maxLogoBytes}
            alt={t.logoCurrent}
            none={t.logoNone}
            removeLabel={t.logoRemove}
          />
          <ColourField label={t.colour} hint={t.colourHint} pickerLabel={t.colourPicker} value={values.primaryColor} onValue={set("primaryColor")} error={fields["primaryColor"]} />
        </fieldset>

        <fieldset class="branding-section">
          <legend>{t.emailSection}</legend>
          <div class="branding-row">
            <Field label={t.emailFromName} hint={t.emailFromNameHint} maxLength={100} autocomplete="off" value={values.emailFromName} onValue={set("emailFromName")} error={fields["emailFromName"]} />
            <Field label={t.emailReplyTo} hint={t.emailReplyToHint} type="email" maxLength={254} autocomplete="email" value={values.emailReplyTo} onValue={set("emailReplyTo")} error={fields["emailReplyTo"]} />
          </div>
          <Select<Locale | "">
            label={t.defaultLocale}
            hint={t.defaultLocaleHint}
            value={values.defaultLocale}
            onValue={set("defaultLocale")}
            options={[{ value: "" as const, label: t.localeNone }, ...locales.map((l) => ({ value: l, label: t[`lang.${l}`] }))]}
            error={fields["defaultLocale"]}
          />
        </fieldset>

        <fieldset
          ref={signatoriesBox}
          class={signatoriesError ? "branding-section invalid" : "branding-section"}
          aria-describedby={signatoriesError ? `${sigHint} ${sigHint}-e` : sigHint}
        >
          <legend>{t.signatories}</legend>
          <p class="hint" id={sigHint}>
            {t.signatoriesHint}
          </p>
          {signatoriesError && (
            <p class="error" id={`${sigHint}-e`}>
              {signatoriesError}
            </p>
          )}
          {values.signatories.length === 0 && <p class="branding-empty">{t.signatoriesNone}</p>}
          {values.signatories.map((s, i) => {
            const n = i + 1;
            const err = (k: string) => fields[`signatories[${i}].${k}`];
            return (
              <fieldset class="branding-signatory" key={s.key}>
                <legend>{fill(t.signatory, { n })}</legend>
                <div class="branding-row">
                  <Field label={t.signatoryName} required maxLength={120} autocomplete="off" value={s.name} onValue={setSignatory(i, "name")} error={err("name")} />
                  <Field label={t.signatoryTitle} hint={t.signatoryTitleHint} maxLength={120} autocomplete="off" value={s.title} onValue={setSignatory(i, "title")} error={err("title")} />
                </div>
                <ImageField
                  key={`sig-${generation}`}
                  label={t.signature}
                  hint={t.signatureHint}
                  value={s.signatureImage}
                  onValue={setSignatory(i, "signatureImage")}
                  error={err("signatureImage")}
                  maxBytes={maxSignatureBytes}
                  alt={fill(t.signatureCurrent, { n })}
                  none={t.signatureNone}
                  removeLabel={t.signatureRemove}
                />
                <button type="button" class="danger" onClick={() => removeSignatory(i)}>
                  {fill(t.signatoryRemove, { n })}
                </button>
              </fieldset>
            );
          })}
          {full ? (
            <p class="hint">{t.signatoriesFull}</p>
          ) : (
            <button type="button" class="branding-add" onClick={addSignatory}>
              {t.signatoryAdd}
            </button>
          )}
        </fieldset>

        <div class="actions branding-actions">
          <Busy busy={busy} class="primary">
            {busy ? t.saving : t.save}
          </Busy>
        </div>
      </fieldset>
      <div role="status" class="branding-status">
        {saved && <p class="success">{t.saved}</p>}
      </div>
    </form>
  );
}
