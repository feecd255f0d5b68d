// Who is signed in: resumed from the refresh cookie when the application opens, kept while
// the tokens refresh, forgotten at sign-out or when a refresh fails.
import type { ComponentChildren } from "preact";
import { createContext } from "preact";
import { useContext, useEffect, useRef, useState } from "preact/hooks";
import { api, onSession, refresh, signedOut, type Schemas } from "./api/client";

export type Profile = Schemas["UserProfile"];

export interface Session {
  /** "starting" until the cookie was tried. */
  state: "starting" | "signedOut" | "signedIn";
  profile: Profile | null;
  /** ended says a session ended by itself (a refresh refused), not by signing out. */
  ended: boolean;
  signOut: () => Promise<void>;
  reload: () => Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error("useSession outside SessionProvider");
  return s;
}

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [state, setState] = useState<Session["state"]>("starting");
  const [profile, setProfile] = useState<Profile | null>(null);
  const [ended, setEnded] = useState(false);
  // Set while this tab signs out: the session ends because it was asked to.
  const signingOut = useRef(false);

  const reload = async () => {
    const { data } = await api.GET("/auth/me");
    if (data) {
      setProfile(data.data);
      setState("signedIn");
    }
  };

  useEffect(() => {
    const off = onSession((inNow) => {
      if (inNow) {
        setEnded(false);
        void reload();
      } else {
        setProfile(null);
        setState((was) => {
          if (was === "signedIn" && !signingOut.current) setEnded(true);
          return "signedOut";
        });
      }
    });
    void refresh().then((ok) => {
      if (!ok) setState("signedOut");
    });
    return off;
  }, []);

  const signOut = async () => {
    signingOut.current = true;
    // Logout needs a live access token: one that expired meanwhile (a laptop asleep) is
    // refreshed once, so that the session ends at the service too, not only in this tab.
    const first = await api.POST("/auth/logout", { body: {} }).catch(() => undefined);
    if (first?.response.status === 401 && (await refresh())) {
      await api.POST("/auth/logout", { body: {} }).catch(() => undefined);
    }
    signedOut();
    signingOut.current = false;
  };

  return (
    <SessionContext.Provider value={{ state, profile, ended, signOut, reload }}>{children}</SessionContext.Provider>
  );
}
