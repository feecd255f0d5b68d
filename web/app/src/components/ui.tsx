// Small pieces every page uses: a labelled field whose error the API named, a problem shown in
// words, a busy button, a pager.
import type { ButtonHTMLAttributes, ComponentChildren } from "preact";
import { useId } from "preact/hooks";
import type { Problem } from "../api/errors";
import { common } from "../i18n/common";
import { fill, useText } from "../i18n/index";

interface InputProps {
  label: string;
  value: string;
  onValue: (v: string) => void;
  error?: string | undefined;
  hint?: string;
  type?: "text" | "email" | "password" | "search" | "number" | "date" | "url";
  autocomplete?: string;
  inputMode?: "numeric" | "text" | "email";
  required?: boolean;
  autoFocus?: boolean;
  minLength?: number;
  maxLength?: number;
  min?: number;
  max?: number;
  placeholder?: string;
}

/** Field is an input with its label, a hint and the error the API gave for it. */
export function Field({ label, value, onValue, error, hint, type = "text", ...rest }: InputProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <input
        id={id}
        // Preact types an input's attributes per literal type; this one is any of InputProps'.
        type={type as "text"}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        autocomplete={rest.autocomplete}
        inputMode={rest.inputMode}
        required={rest.required}
        autoFocus={rest.autoFocus}
        minLength={rest.minLength}
        maxLength={rest.maxLength}
        min={rest.min}
        max={rest.max}
        placeholder={rest.placeholder}
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
      />
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** ProblemMessage says what went wrong, in words, where a screen reader hears it at once. */
export function ProblemMessage({ problem }: { problem: Problem | null }) {
  const t = useText(common);
  if (!problem) return null;
  let text = problem.message;
  if (problem.code === "NETWORK") text = t.networkError;
  if (problem.code === "RATE_LIMITED") {
    text = problem.retryAfter ? fill(t.rateLimited, { seconds: problem.retryAfter }) : t.rateLimitedSoon;
  }
  if (!text && Object.keys(problem.fields).length > 0) text = t.fixFields;
  return (
    <div class="alert" role="alert">
      {text}
    </div>
  );
}

/** Busy is a submit button that says the work is under way and cannot be pressed twice. */
export function Busy({ busy, children, ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & { busy: boolean; children: ComponentChildren }) {
  return (
    <button type="submit" {...rest} disabled={busy || rest.disabled} aria-busy={busy || undefined}>
      {children}
    </button>
  );
}

/** Pager moves through a list's pages (the API's meta). */
export function Pager({ page, pages, onPage }: { page: number; pages: number; onPage: (p: number) => void }) {
  const t = useText(common);
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label={fill(t.pageOf, { page, pages })}>
      <button type="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        {t.previous}
      </button>
      <span>{fill(t.pageOf, { page, pages })}</span>
      <button type="button" onClick={() => onPage(page + 1)} disabled={page >= pages}>
        {t.next}
      </button>
    </nav>
  );
}

/** Loading says a list or page is on its way. */
export function Loading() {
  const t = useText(common);
  return (
    <p class="loading" role="status">
      {t.loading}
    </p>
  );
}
