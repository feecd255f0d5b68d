// The event page's small rules, kept apart from the markup so that they can be tested alone:
// which way a column sorts, what a search sends, which certificate of an attendee speaks for them,
// how a CSV file reads before it is sent, and the CSV files the page writes itself.
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

/** sendable says whether a certificate may be emailed: issued, and neither revoked nor a draft. */
export function sendable(c: Pick<Schemas["Certificate"], "status" | "issuedAt">): boolean {
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

/** fileName is a name a browser can save text under: no path or reserved characters. */
export function fileName(base: string, suffix: string): string {
  const safe = base
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, "-")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^[.-]+|[.-]+$/g, "")
    .slice(0, 100)
    .trim();
  return `${safe || "export"}${suffix}`;
}

// ---- CSV, as the service reads it ----

export type Delimiter = "," | ";" | "\t";

/**
 * detectDelimiter picks, as the service does, the most frequent of , ; and tab in the header
 * line (outside quotes); a tie, or none, is a comma.
 */
export function detectDelimiter(text: string): Delimiter {
  const counts = { ",": 0, ";": 0, "\t": 0 };
  let quoted = false;
  for (const c of stripBom(text)) {
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (!quoted && (c === "\n" || c === "\r")) break;
    if (!quoted && (c === "," || c === ";" || c === "\t")) counts[c]++;
  }
  let best: Delimiter = ",";
  for (const c of [";", "\t"] as const) if (counts[c] > counts[best]) best = c;
  return best;
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** A record of a CSV file: its cells and the line it starts on (the header is line 1). */
export interface CsvRecord {
  line: number;
  cells: string[];
}

/**
 * csvRecords reads text as CSV (RFC 4180: a cell in double quotes may hold the delimiter, line
 * breaks and "" for a quote; CRLF or LF ends a record) and calls each record, lines that hold
 * nothing included. It forgives what the service refuses (a stray or unclosed quote), reading
 * it as text: the service has the last word on the file.
 */
export function csvRecords(text: string, delimiter: Delimiter, each: (r: CsvRecord) => void): void {
  const s = stripBom(text);
  const n = s.length;
  let i = 0;
  let line = 1;
  while (i < n) {
    const start = line;
    const cells: string[] = [];
    let cell = "";
    for (;;) {
      if (s[i] === '"' && cell === "") {
        // A quoted cell: up to the quote not doubled.
        i++;
        for (;;) {
          if (i >= n) break;
          const c = s[i];
          if (c === '"') {
            if (s[i + 1] === '"') {
              cell += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === "\n") line++;
          if (c === "\r" && s[i + 1] === "\n") {
            i++;
            continue; // CRLF in a cell reads as LF
          }
          cell += c;
          i++;
        }
      }
      // Unquoted text (or what follows a closing quote) up to the delimiter or the line's end.
      while (i < n && s[i] !== delimiter && s[i] !== "\n" && !(s[i] === "\r" && s[i + 1] === "\n")) {
        cell += s[i];
        i++;
      }
      cells.push(cell);
      cell = "";
      if (i < n && s[i] === delimiter) {
        i++;
        if (i < n) continue;
        cells.push(""); // a delimiter at the very end: one more empty cell
      }
      break;
    }
    if (s[i] === "\r") i++;
    if (s[i] === "\n") {
      i++;
      line++;
    }
    each({ line: start, cells });
  }
}

/** blank says whether a record holds nothing but white space (the service skips those). */
export function blank(cells: string[]): boolean {
  return cells.every((c) => c.trim() === "");
}

/** What the page shows of a CSV file before it is sent. */
export interface CsvPreview {
  delimiter: Delimiter;
  /** The header's cells; empty for a file of blank lines. */
  header: string[];
  /** The first rows under the header (blank lines skipped). */
  rows: CsvRecord[];
  /** How many rows the file has under its header (blank lines skipped). */
  count: number;
}

/** previewCsv reads text's header, its first `keep` rows and its count of rows. */
export function previewCsv(text: string, keep = 5): CsvPreview {
  const delimiter = detectDelimiter(text);
  let header: string[] | null = null;
  const rows: CsvRecord[] = [];
  let count = 0;
  csvRecords(text, delimiter, (r) => {
    if (header === null) {
      // Go's reader, the service's, skips empty lines before the header too.
      if (r.cells.length === 1 && r.cells[0] === "") return;
      header = r.cells;
      return;
    }
    if (blank(r.cells)) return;
    count++;
    if (rows.length < keep) rows.push(r);
  });
  return { delimiter, header: header ?? [], rows, count };
}

/** csvCell writes one cell: quoted when it must be, and never a formula to a spreadsheet. */
export function csvCell(value: string): string {
  const v = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",;\r\n\t]|^\s|\s$/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** csvText writes rows as CSV (CRLF, as RFC 4180 has it), a UTF-8 byte order mark first for spreadsheets. */
export function csvText(rows: string[][]): string {
  return "\ufeff" + rows.map((r) => r.map(csvCell).join(",")).join("\r\n") + "\r\n";
}

/** rejectedCsv is the file of an import's refused rows: line, email, reason, message. */
export function rejectedCsv(rejected: Pick<Schemas["ImportResult"]["rejected"][number], "row" | "email" | "reason" | "message">[]): string {
  return csvText([["line", "email", "reason", "message"], ...rejected.map((r) => [String(r.row), r.email ?? "", r.reason, r.message])]);
}
