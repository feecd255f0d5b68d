// The links the service's emails and single sign-on send to the application carry a token
// after the hash (`/app/#reset=<token>`, `#invite=`, `#verify=`, `#sso=`; `#forgot` has none).
// It is taken once, when the application opens, and the address is replaced by the page's own
// (`/app/reset`), so that the token stays in no history entry and no later address.
export type LinkKind = "reset" | "invite" | "verify" | "sso";

const tokens = new Map<LinkKind, string>();

/** takeLinkFromHash reads the hash of the opening address; it answers the page to open, if any. */
export function takeLinkFromHash(): string | null {
  const hash = window.location.hash.replace(/^#/, "");
  if (hash === "forgot") {
    history.replaceState(null, "", "/app/forgot");
    return "/app/forgot";
  }
  const m = /^(reset|invite|verify|sso)=(.+)$/.exec(hash);
  if (!m) return null;
  const kind = m[1] as LinkKind;
  tokens.set(kind, decodeURIComponent(m[2] ?? ""));
  const to = `/app/${kind}`;
  history.replaceState(null, "", to);
  return to;
}

/** linkToken answers the token a link brought for kind, or "" when none came. */
export function linkToken(kind: LinkKind): string {
  return tokens.get(kind) ?? "";
}

/** forgetLinkToken drops a token once used. */
export function forgetLinkToken(kind: LinkKind) {
  tokens.delete(kind);
}
