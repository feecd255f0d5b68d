// The forms' fields beyond the shared input (ui.tsx Field): a text area and a select, each with
// its label, a hint and the error the API gave for it, written the same way; Frame and
// describedBy for a part's own fields (branding's colour and image).
import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";

export interface Common {
  label: string;
  error?: string | undefined;
  hint?: string | undefined;
}

export function describedBy(id: string, hint?: string, error?: string) {
  return [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
}

export function Frame({ id, label, hint, error, children, extra }: Common & { id: string; children: ComponentChildren; extra?: string }) {
  return (
    <div class={[error ? "field invalid" : "field", extra ?? ""].join(" ").trim()}>
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {children}
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** TextArea is a multi-line field with its label, hint and error. */
export function TextArea({ label, value, onValue, error, hint, maxLength, rows = 4 }: Common & {
  value: string;
  onValue: (v: string) => void;
  maxLength?: number;
  rows?: number;
}) {
  const id = useId();
  return (
    <Frame id={id} label={label} hint={hint} error={error}>
      <textarea
        id={id}
        rows={rows}
        value={value}
        maxLength={maxLength}
        onInput={(e) => onValue(e.currentTarget.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
      />
    </Frame>
  );
}

/** Select is a choice of options with its label, hint and error. */
export function Select<V extends string>({ label, value, onValue, options, error, hint }: Common & {
  value: V;
  onValue: (v: V) => void;
  options: readonly { value: V; label: string }[];
}) {
  const id = useId();
  return (
    <Frame id={id} label={label} hint={hint} error={error}>
      <select
        id={id}
        value={value}
        onChange={(e) => onValue(e.currentTarget.value as V)}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, hint, error)}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </Frame>
  );
}
