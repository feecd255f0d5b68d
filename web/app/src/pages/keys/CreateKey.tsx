// The form that creates a key: its name, its scopes (a group of checkboxes, each saying what
// it allows), its expiry. The API wants a recent sign-in: when it answers that the password is
// needed, the form asks for it (or, with two-step sign-in on, a code) and is sent again.
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { api, type Schemas } from "../../api/client";
import { problemOf, type Problem } from "../../api/errors";
import { Busy, Field, ProblemMessage } from "../../components/ui";
import { fill, useText } from "../../i18n/index";
import { keys, scopeTexts } from "../../i18n/keys";
import { allScopes, expiryChoices, needsConfirmation, scopeErrors, type RequestedScope } from "./scopes";

interface Props {
  twoFactorEnabled: boolean;
  onCreated: (k: Schemas["CreatedApiKey"]) => void;
}

export function CreateKey({ twoFactorEnabled, onCreated }: Props) {
  const t = useText(keys);
  const st = useText(scopeTexts);
  const id = useId();
  const [name, setName] = useState("");
  const [chosen, setChosen] = useState<ReadonlySet<RequestedScope>>(new Set());
  const [expiry, setExpiry] = useState<string>("90");
  const [confirm, setConfirm] = useState(false);
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [sent, setSent] = useState<readonly string[]>([]);
  const confirmBox = useRef<HTMLDivElement>(null);

  // A refusal moves the focus to what to fix (the first field in error, or the first scope
  // when none was chosen), or shows its message: the button is at the end of a long form.
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    const f = form.current;
    if (!problem || !f) return;
    const target =
      f.querySelector<HTMLElement>("[aria-invalid=true]") ??
      (problem.fields["scopes"] ? f.querySelector<HTMLElement>("input[type=checkbox]") : null);
    if (target) target.focus();
    else f.querySelector(".alert")?.scrollIntoView({ block: "center" });
  }, [problem]);

  // When the password is asked for, the cursor goes to it.
  useEffect(() => {
    if (confirm) confirmBox.current?.querySelector("input")?.focus();
  }, [confirm]);

  const toggle = (s: RequestedScope, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(s);
    else next.delete(s);
    setChosen(next);
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    const scopes = allScopes.filter((s) => chosen.has(s));
    const body: Schemas["ApiKeyCreateRequest"] = { name, scopes };
    if (expiry) body.expiresInDays = Number(expiry);
    if (confirm && password) body.currentPassword = password;
    const twoFactorCode = code.replace(/\s/g, "");
    if (confirm && twoFactorEnabled && twoFactorCode) body.twoFactorCode = twoFactorCode;
    setSent(scopes);
    const { data, error, response } = await api
      .POST("/api-keys", { body })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setBusy(false);
    if (data) {
      setName("");
      setChosen(new Set());
      setPassword("");
      setCode("");
      onCreated(data.data);
      return;
    }
    const p = problemOf(error, response);
    if (needsConfirmation(p, Boolean(body.currentPassword || body.twoFactorCode))) {
      setConfirm(true);
      return;
    }
    setProblem(p);
  };

  const fields = problem?.fields ?? {};
  const perScope = scopeErrors(sent, fields);
  const scopesError = fields["scopes"];
  return (
    <form ref={form} onSubmit={submit} noValidate>
      <ProblemMessage problem={problem} />
      <Field label={t.keyName} hint={t.keyNameHint} required maxLength={100} autocomplete="off" value={name} onValue={setName} error={fields["name"]} />
      <div class={scopesError || Object.keys(perScope).length > 0 ? "field invalid" : "field"}>
        <fieldset class="card" aria-describedby={scopesError ? `${id}-sh ${id}-se` : `${id}-sh`}>
          <legend>{t.scopesLegend}</legend>
          <p class="hint" id={`${id}-sh`}>
            {t.scopesHint}
          </p>
          {scopesError && (
            <p class="error" id={`${id}-se`}>
              {scopesError}
            </p>
          )}
          {/* A table for the layout only: each box beside its scope and what it allows. */}
          <table role="presentation">
            <tbody>
              {allScopes.map((s) => {
                const err = perScope[s];
                const box = `${id}-${s}`;
                return (
                  <tr key={s}>
                    <td>
                      <input
                        type="checkbox"
                        id={box}
                        name="scopes"
                        value={s}
                        checked={chosen.has(s)}
                        onChange={(e) => toggle(s, e.currentTarget.checked)}
                        aria-invalid={err ? true : undefined}
                        aria-describedby={err ? `${box}-d ${box}-e` : `${box}-d`}
                      />
                    </td>
                    <td>
                      <label for={box}>
                        <code>{s}</code>
                      </label>
                      <p class="hint" id={`${box}-d`}>
                        {st[s]}
                      </p>
                      {err && (
                        <p class="error" id={`${box}-e`}>
                          {fill(t.scopeError, { scope: s, message: err })}
                        </p>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </fieldset>
      </div>
      <ExpiryField label={t.expiry} hint={t.expiryHint} value={expiry} onValue={setExpiry} error={fields["expiresInDays"]} />
      {confirm && (
        <div ref={confirmBox}>
          <p class="alert" role="alert">
            {twoFactorEnabled ? t.confirmNeeded2fa : t.confirmNeeded}
          </p>
          <Field label={t.confirmPassword} type="password" autocomplete="current-password" required value={password} onValue={setPassword} error={fields["currentPassword"]} />
          {twoFactorEnabled && (
            <Field label={t.twoFactorCode} hint={t.twoFactorHint} inputMode="numeric" autocomplete="one-time-code" maxLength={6} value={code} onValue={setCode} error={fields["twoFactorCode"]} />
          )}
        </div>
      )}
      <Busy busy={busy} class="primary">
        {busy ? t.creating : t.create}
      </Busy>
    </form>
  );
}

/** ExpiryField chooses when the key stops working, as Field does for an input. */
function ExpiryField({ label, hint, value, onValue, error }: { label: string; hint: string; value: string; onValue: (v: string) => void; error: string | undefined }) {
  const t = useText(keys);
  const id = useId();
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={id}>{label}</label>
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
      <select
        id={id}
        value={value}
        onChange={(e) => onValue(e.currentTarget.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-hint ${id}-error` : `${id}-hint`}
      >
        {expiryChoices.map((d) => (
          <option key={d} value={d}>
            {d === "" ? t.expiryNever : d === "365" ? t.expiryYear : fill(t.expiryDays, { days: d })}
          </option>
        ))}
      </select>
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
