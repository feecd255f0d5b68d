// The scopes a key may be created with (the contract's RequestedScope, in its order), and the
// API's answers about them read for the form.
import type { Schemas } from "../../api/client";

export type RequestedScope = Schemas["RequestedScope"];

export const allScopes = [
  "events:read",
  "events:write",
  "attendees:read",
  "attendees:write",
  "templates:read",
  "templates:write",
  "certificates:generate",
  "certificates:read",
  "certificates:write",
  "badges:read",
  "badges:write",
  "analytics:read",
  "webhooks:manage",
  "audit:read",
  "privacy:manage",
] as const satisfies readonly RequestedScope[];

// Every scope of the contract is offered: a scope added to RequestedScope fails the build here.
type Unlisted = Exclude<RequestedScope, (typeof allScopes)[number]>;
const everyScopeListed: [Unlisted] extends [never] ? true : false = true;
void everyScopeListed;

/** The expiries offered, in days; "" is a key that never expires. */
export const expiryChoices = ["7", "30", "90", "180", "365", ""] as const;

/**
 * scopeErrors puts the API's messages about `scopes[i]` (a scope beyond the member's role, an
 * unknown one) under the scope that was sent at i.
 */
export function scopeErrors(sent: readonly string[], fields: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, message] of Object.entries(fields)) {
    const m = /^scopes\[(\d+)\]$/.exec(field);
    const scope = m ? sent[Number(m[1])] : undefined;
    if (scope !== undefined) out[scope] ??= message;
  }
  return out;
}

/** needsConfirmation says the API asks for the password again (the sign-in is not recent). */
export function needsConfirmation(p: { code: string; fields: Record<string, string> }, sentSecret: boolean): boolean {
  return !sentSecret && p.code === "VALIDATION_ERROR" && "currentPassword" in p.fields;
}
