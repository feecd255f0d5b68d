// Small pieces of the event page: a column header that orders a list, a certificate's status
// in words, a checkbox and a select with their labels, a value that settles before it is used,
// a file saved from the browser.
import type { ComponentChildren } from "preact";
import { useEffect, useId, useState } from "preact/hooks";
import { event as texts } from "../../i18n/event";
import { useText } from "../../i18n/index";

/** useDebounced answers value once it has stayed the same for ms. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** SortHeader is a column's th whose button orders the list by it; aria-sort tells the order. */
export function SortHeader({ label, sort, onSort }: { label: string; sort: "ascending" | "descending" | undefined; onSort: () => void }) {
  return (
    <th scope="col" aria-sort={sort}>
      <button type="button" onClick={onSort}>
        {label}
        <span aria-hidden="true" class="ev-arrow">
          {sort === "ascending" ? "▲" : sort === "descending" ? "▼" : "↕"}
        </span>
      </button>
    </th>
  );
}

/** StatusBadge says a certificate's status in words (an unknown one as such). */
export function StatusBadge({ status }: { status: string }) {
  const t = useText(texts);
  const words: Record<string, string> = { draft: t.statusDraft, valid: t.statusValid, expired: t.statusExpired, revoked: t.statusRevoked };
  return <span class={`status ev-status-${words[status] ? status : "other"}`}>{words[status] ?? t.statusUnknown}</span>;
}

/** Check is a checkbox with its label beside it. */
export function Check({ label, checked, onChecked, hint }: { label: string; checked: boolean; onChecked: (v: boolean) => void; hint?: string }) {
  const id = useId();
  return (
    <div class="ev-check">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChecked(e.currentTarget.checked)} aria-describedby={hint ? `${id}-hint` : undefined} />
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** Select is a labelled select in the style of Field. */
export function Select({ label, value, onValue, children }: { label: string; value: string; onValue: (v: string) => void; children: ComponentChildren }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onValue(e.currentTarget.value)}>
        {children}
      </select>
    </div>
  );
}

/** save hands blob to the browser as a download named name (a link clicked, then let go). */
export function save(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // The browser has taken the file once the click is handled.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
