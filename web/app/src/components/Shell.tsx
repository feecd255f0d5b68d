// The frame of every signed-in page: a skip link, the main navigation, who is signed in, the
// language and sign-out; the page itself is the main landmark.
import type { ComponentChildren } from "preact";
import { useContext } from "preact/hooks";
import { useLocation } from "preact-iso";
import { common } from "../i18n/common";
import { fill, LangContext, languages, useText, type Lang } from "../i18n/index";
import { useSession } from "../session";

export function Shell({ children, onLang }: { children: ComponentChildren; onLang: (l: Lang) => void }) {
  const t = useText(common);
  const { path } = useLocation();
  const { profile, signOut } = useSession();
  const lang = useContext(LangContext);
  const nav = [
    { href: "/app/", label: t.navHome, current: path === "/app/" || path === "/app" },
    { href: "/app/events", label: t.navEvents, current: path.startsWith("/app/events") },
    { href: "/app/api-keys", label: t.navApiKeys, current: path.startsWith("/app/api-keys") },
    { href: "/app/branding", label: t.navBranding, current: path.startsWith("/app/branding") },
  ];
  return (
    <>
      <a class="skip" href="#main">
        {t.skipToContent}
      </a>
      <header class="top">
        <a class="brand" href="/app/">
          {t.appName}
        </a>
        <nav aria-label={t.mainNav}>
          <ul>
            {nav.map((n) => (
              <li key={n.href}>
                <a href={n.href} aria-current={n.current ? "page" : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          {profile && <span class="name">{fill(t.signedInAs, { name: profile.name })}</span>}
          <label class="lang">
            <span class="visually-hidden">{t.language}</span>
            <select value={lang} onChange={(e) => onLang(e.currentTarget.value as Lang)}>
              {languages.map((l) => (
                <option key={l} value={l}>
                  {l === "en" ? "English" : "Deutsch"}
                </option>
              ))}
            </select>
          </label>
          <button type="button" onClick={() => void signOut()}>
            {t.signOut}
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
