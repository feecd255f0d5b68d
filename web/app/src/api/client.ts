// The application's one way to the service: openapi-fetch over the types generated from
// openapi/v1.json (src/api/schema.d.ts, `npm run generate`). The access token lives in memory
// only; the refresh token is the HttpOnly cookie cis_refresh that sign-in set
// (`Credentiald-Session: cookie`), which script never sees. A request answered 401 because the
// access token expired is sent again once, after one refresh; refreshes of every tab of the
// browser take turns (Web Locks), since a refresh token works once.
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./schema";

export type Schemas = components["schemas"];
export type SessionTokens = Schemas["SessionTokens"];

type Listener = (signedIn: boolean) => void;

let accessToken: string | null = null;
let refreshTimer: ReturnType<typeof setTimeout> | undefined;
let refreshing: Promise<boolean> | null = null;
const listeners = new Set<Listener>();

/** onSession calls f whenever the app signs in or out (a refresh that failed signs out). */
export function onSession(f: Listener): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}

function tell(signedIn: boolean) {
  for (const f of listeners) f(signedIn);
}

/** signedIn keeps the tokens of a session that just began (or was refreshed). */
export function signedIn(t: SessionTokens) {
  accessToken = t.accessToken;
  clearTimeout(refreshTimer);
  // A minute before the access token expires, quietly get the next one.
  const due = new Date(t.expiresAt).getTime() - Date.now() - 60_000;
  refreshTimer = setTimeout(() => void refresh(), Math.max(due, 5_000));
  tell(true);
}

/** signedOut forgets the session (the cookie is cleared by the service's logout). */
export function signedOut() {
  accessToken = null;
  clearTimeout(refreshTimer);
  tell(false);
}

export function hasSession(): boolean {
  return accessToken !== null;
}

/** The header that asks the service to keep the refresh token in its HttpOnly cookie. */
export const cookieSession = { "Credentiald-Session": "cookie" } as const;

/**
 * refresh trades the cookie for a new access token; false when there is no session to resume
 * (no cookie, or one that no longer works). One refresh at a time, across tabs too.
 */
export function refresh(): Promise<boolean> {
  if (!refreshing) {
    const run = async () => {
      const res = await fetch(`${base}/auth/refresh`, {
        method: "POST",
        credentials: "same-origin",
        headers: { ...cookieSession, "Content-Type": "application/json" },
        body: "{}",
      });
      if (!res.ok) {
        signedOut();
        return false;
      }
      const body = (await res.json()) as { data: SessionTokens };
      signedIn(body.data);
      return true;
    };
    const locks = typeof navigator !== "undefined" ? navigator.locks : undefined;
    const once: Promise<boolean> = locks ? locks.request("credentiald-refresh", run).then((ok) => ok) : run();
    refreshing = once.finally(() => {
      refreshing = null;
    });
    return refreshing;
  }
  return refreshing;
}

const base = "/api/v1";

// Requests kept to be sent again after a refresh (their bodies are read by the first send).
const retries = new WeakMap<Request, Request>();

const auth: Middleware = {
  onRequest({ request }) {
    if (accessToken && !request.headers.has("Authorization")) {
      request.headers.set("Authorization", `Bearer ${accessToken}`);
    }
    if (!request.url.includes("/auth/")) retries.set(request, request.clone());
    return request;
  },
  async onResponse({ request, response }) {
    const again = retries.get(request);
    if (response.status !== 401 || !again) return response;
    const code = await response
      .clone()
      .json()
      .then((b: { error?: { code?: string } }) => b.error?.code)
      .catch(() => undefined);
    if (code !== "INVALID_API_KEY" || !(await refresh())) return response;
    again.headers.set("Authorization", `Bearer ${accessToken}`);
    return fetch(again);
  },
};

export const api = createClient<paths>({ baseUrl: base, credentials: "same-origin" });
api.use(auth);
