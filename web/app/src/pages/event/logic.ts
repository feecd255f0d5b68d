// The event page's small rules, kept apart from the markup so that they can be tested alone:
// which way a column sorts, what a search sends, which certificate of an attendee speaks for them.
import type { Schemas } from "../../api/client";

export type AttendeeSort = Schemas["AttendeeSort"];
export type CertificateSort = Schemas["CertificateSort"];

/** The field a sort names, without its direction. */
export function sortField(sort: string): string {
  return sort.replace(/^-/, "");
}

/** ariaSort is what a column's th says of the list's order. */
export function ariaSort(sort: string, field: string): "ascending" | "descending" | undefined {
  if (sortField(sort) !== field) return undefined;
  return sort.startsWith("-") ? "descending" : "ascending";
}

/**
 * nextSort is the order after the column of field is chosen: a new column sorts ascending
 * (dates newest first), the same column turns around.
 */
export function nextSort<S extends string>(sort: S, field: string, newestFirst = false): S {
  if (sortField(sort) === field) return (sort.startsWith("-") ? field : `-${field}`) as S;
  return (newestFirst ? `-${field}` : field) as S;
}

/** searchText is what a search box sends as q: nothing below the API's 3 characters. */
export function searchText(typed: string): string | undefined {
  const q = typed.trim();
  return q.length >= 3 ? q.slice(0, 100) : undefined;
}

/** pages is the number of pages of a list's meta (at least 1). */
export function pages(meta: Schemas["PageMeta"]): number {
  return Math.max(1, Math.ceil(meta.total / meta.pageSize));
}

// Which certificate speaks for an attendee: one that counts before one that no longer does.
const rank: Record<string, number> = { valid: 4, draft: 3, expired: 2, revoked: 1 };

/**
 * statusByAttendee reads, from certificates listed newest first, each attendee's standing:
 * a valid one wins over a draft, a draft over an expired one, an expired one over a revoked one;
 * among equals the newest.
 */
export function statusByAttendee(certs: Pick<Schemas["Certificate"], "attendeeId" | "status">[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of certs) {
    const had = out.get(c.attendeeId);
    if (had === undefined || (rank[c.status] ?? 0) > (rank[had] ?? 0)) out.set(c.attendeeId, c.status);
  }
  return out;
}

/** revocable says whether a certificate may be revoked: issued, and not revoked already. */
export function revocable(c: Pick<Schemas["Certificate"], "status" | "issuedAt">): boolean {
  return c.issuedAt !== null && (c.status === "valid" || c.status === "expired");
}

/** jobDone says whether a bulk job has stopped. */
export function jobDone(j: Pick<Schemas["BulkJob"], "status">): boolean {
  return j.status === "completed" || j.status === "failed";
}

/** jobIdOf reads the job's id from a Location (…/generate/jobs/{jobId}). */
export function jobIdOf(location: string | null): string | null {
  const m = location?.match(/\/jobs\/([0-9a-fA-F-]{36})\/?$/);
  return m?.[1] ?? null;
}

/** pdfName is the name a downloaded certificate is saved under. */
export function pdfName(number: string): string {
  const safe = number.replace(/[^\w.-]+/g, "-").replace(/^-+|-+$/g, "");
  return `${safe || "certificate"}.pdf`;
}

/** idempotencyKey names one attempt at issuing, sent again unchanged when the attempt is. */
export function idempotencyKey(): string {
  return crypto.randomUUID();
}
