// What the events' pages read and send: the list's order, the form's values and the API's
// bodies. Kept apart from the pages so that it is tested without a browser.
import type { Schemas } from "../../api/client";

export type EventSort = Schemas["EventSort"];
export type Locale = Schemas["Locale"];
export type EventBody = Schemas["EventCreateRequest"];

/** The API's Locale enum, in the order the select offers it. */
export const locales: readonly Locale[] = ["en", "de", "fr", "es", "it", "pt", "nl", "pl", "ja", "zh-Hans"];

const sorts: readonly EventSort[] = ["createdAt", "-createdAt", "name", "-name", "eventDate", "-eventDate"];

export const defaultSort: EventSort = "-createdAt";

/** sortOf reads the list's order from the address; anything else is the API's default. */
export function sortOf(s: string | undefined): EventSort {
  return sorts.find((x) => x === s) ?? defaultSort;
}

/** The columns the list sorts by. */
export type SortColumn = "name" | "eventDate";

/** direction says how the list is sorted by column, if it is. */
export function direction(sort: EventSort, column: SortColumn): "ascending" | "descending" | undefined {
  if (sort === column) return "ascending";
  if (sort === `-${column}`) return "descending";
  return undefined;
}

/** nextSort is the order after pressing column's header: ascending first, then turned round. */
export function nextSort(sort: EventSort, column: SortColumn): EventSort {
  return sort === column ? `-${column}` : column;
}

/** pageOf reads a page number from the address (1 when absent or not one). */
export function pageOf(s: string | undefined): number {
  const n = Number(s);
  return Number.isInteger(n) && n >= 1 && n <= 100000 ? n : 1;
}

/** listAddress is the list's own address for its search, order and page (defaults left out). */
export function listAddress(q: string, sort: EventSort, page: number): string {
  const p = new URLSearchParams();
  if (q) p.set("q", q);
  if (sort !== defaultSort) p.set("sort", sort);
  if (page > 1) p.set("page", String(page));
  const s = p.toString();
  return s ? `/app/events?${s}` : "/app/events";
}

/** The form's values, as its inputs hold them. */
export interface EventValues {
  name: string;
  description: string;
  /** YYYY-MM-DD, as a date input holds it ("" when empty). */
  date: string;
  location: string;
  /** "" for the account's default language. */
  locale: Locale | "";
  /** Days as typed; "" for never. */
  validity: string;
  templateId: string;
}

export const emptyValues: EventValues = {
  name: "",
  description: "",
  date: "",
  location: "",
  locale: "",
  validity: "",
  templateId: "",
};

/** dateInput is the calendar day (UTC) of an API date-time, for a date input. */
export function dateInput(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : d.toISOString().slice(0, 10);
}

/** valuesOf reads an event into the form. */
export function valuesOf(e: Schemas["Event"]): EventValues {
  return {
    name: e.name,
    description: e.description ?? "",
    date: dateInput(e.eventDate),
    location: e.location ?? "",
    locale: e.locale,
    validity: e.certificateValidityDays === null ? "" : String(e.certificateValidityDays),
    templateId: e.templateId,
  };
}

/** validityOk says whether the validity field holds whole days (or nothing: never expire). */
export function validityOk(v: string): boolean {
  return /^\s*\d*\s*$/.test(v);
}

/**
 * bodyOf is what the form sends. The day becomes 09:00 UTC of that day, as the API's example
 * has it; an event whose day did not change keeps its time (`keep`, the date-time it had).
 * Empty optional fields are sent as null (a PUT clears what it leaves out anyway); what the
 * API refuses (an empty name, a day not given) it says in words, per field.
 */
export function bodyOf(v: EventValues, keep?: string): EventBody {
  const eventDate = keep !== undefined && dateInput(keep) === v.date ? keep : v.date ? `${v.date}T09:00:00Z` : "";
  const days = v.validity.trim();
  const body: EventBody = {
    name: v.name.trim(),
    description: v.description.trim() || null,
    eventDate,
    location: v.location.trim() || null,
    templateId: v.templateId,
    certificateValidityDays: days === "" ? null : Number(days),
  };
  if (v.locale) body.locale = v.locale;
  return body;
}
