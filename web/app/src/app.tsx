// The application: who is signed in decides between the sign-in pages and the account's
// pages; the links of the service's emails open their own pages either way.
import { useEffect, useState } from "preact/hooks";
import { ErrorBoundary, LocationProvider, Route, Router, useLocation } from "preact-iso";
import { Shell } from "./components/Shell";
import { Loading } from "./components/ui";
import { common } from "./i18n/common";
import { LangContext, preferredLang, rememberLang, useText, type Lang } from "./i18n/index";
import { Forgot, Invite, Reset, SignIn, SignUp, SsoLanding, Verify } from "./pages/Auth";
import { Home } from "./pages/Home";
import { routes } from "./routes";
import { SessionProvider, useSession } from "./session";

function NotFound() {
  const t = useText(common);
  return (
    <>
      <h1>{t.notFoundTitle}</h1>
      <p>{t.notFoundText}</p>
      <a href="/app/">{t.backHome}</a>
    </>
  );
}

/** Pages that open from an email or a redirect, signed in or not. */
const linkPages = ["/app/reset", "/app/invite", "/app/verify", "/app/sso", "/app/forgot"];

/** Pages of the signed-out only: once a session begins there, the home page opens. */
const signedOutPages = ["/app/sign-up", "/app/invite", "/app/sso", "/app/forgot", "/app/reset"];

function Pages({ onLang }: { onLang: (l: Lang) => void }) {
  const { state, ended } = useSession();
  const { path, route } = useLocation();
  const t = useText(common);
  useEffect(() => {
    if (state === "signedIn" && signedOutPages.includes(path)) route("/app/", true);
  }, [state, path]);
  if ((linkPages.includes(path) && !(state === "signedIn" && signedOutPages.includes(path))) || state !== "signedIn") {
    if (state === "starting" && !linkPages.includes(path)) return <Loading />;
    return (
      <>
        {ended && (
          <p class="alert notice" role="alert">
            {t.sessionEnded}
          </p>
        )}
        <Router>
          <Route path="/app/sign-up" component={SignUp} />
          <Route path="/app/forgot" component={Forgot} />
          <Route path="/app/reset" component={Reset} />
          <Route path="/app/invite" component={Invite} />
          <Route path="/app/verify" component={Verify} />
          <Route path="/app/sso" component={SsoLanding} />
          <Route default component={SignIn} />
        </Router>
      </>
    );
  }
  return (
    <Shell onLang={onLang}>
      <Router>
        <Route path="/app/" component={Home} />
        {routes.map((r) => (
          <Route key={r.path} path={r.path} component={r.component} />
        ))}
        <Route default component={NotFound} />
      </Router>
    </Shell>
  );
}

export function App() {
  const [lang, setLang] = useState<Lang>(preferredLang());
  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);
  const choose = (l: Lang) => {
    rememberLang(l);
    setLang(l);
  };
  return (
    <LangContext.Provider value={lang}>
      <LocationProvider scope="/app">
        <ErrorBoundary>
          <SessionProvider>
            <Pages onLang={choose} />
          </SessionProvider>
        </ErrorBoundary>
      </LocationProvider>
    </LangContext.Provider>
  );
}
