// The contract's error envelope, read for people: the message, and each detail under the
// field of the form it names (`body.name` -> `name`).
import type { Schemas } from "./client";

export type ApiError = Schemas["Error"]["error"];

export interface Problem {
  code: string;
  message: string;
  /** Messages for the form's fields, by field name. */
  fields: Record<string, string>;
  /** Seconds to wait, for a 429. */
  retryAfter?: number;
}

/** problemOf reads an error answer (or a network failure) into what the page shows. */
export function problemOf(error: unknown, response?: Response): Problem {
  const e = (error as { error?: ApiError } | undefined)?.error;
  if (!e) {
    return { code: "NETWORK", message: "", fields: {} };
  }
  const fields: Record<string, string> = {};
  for (const d of e.details ?? []) {
    const name = d.field.replace(/^body\./, "").replace(/^query\./, "");
    fields[name] ??= d.message;
  }
  const p: Problem = { code: e.code, message: e.message, fields };
  const wait = response?.headers.get("Retry-After");
  if (wait && /^\d+$/.test(wait)) p.retryAfter = Number(wait);
  return p;
}
