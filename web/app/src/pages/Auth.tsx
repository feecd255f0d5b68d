// Signing in and what the service's emails link to: sign-in (password, two-step code or
// recovery code, single sign-on), sign-up, forgotten and reset passwords, invitations,
// address verification and single sign-on's landing.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, cookieSession, signedIn } from "../api/client";
import { problemOf, type Problem } from "../api/errors";
import { Busy, Field, Loading, ProblemMessage } from "../components/ui";
import { auth } from "../i18n/auth";
import { fill, useText } from "../i18n/index";
import { forgetLinkToken, linkToken } from "../links";

function Card({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <main id="main" class="auth">
      <div class="card">
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

/** ssoStart is where a browser begins single sign-on for an address. */
export function ssoStart(email: string): string {
  return `/api/v1/auth/sso/start?email=${encodeURIComponent(email)}`;
}

export function SignIn() {
  const t = useText(auth);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [step, setStep] = useState<"password" | "code" | "recovery">("password");
  const [code, setCode] = useState("");
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const [ssoRequired, setSsoRequired] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    const body: { email: string; password: string; twoFactorCode?: string; recoveryCode?: string } = { email, password };
    if (step === "code") body.twoFactorCode = code.replace(/\s/g, "");
    if (step === "recovery") body.recoveryCode = code.trim();
    const { data, error, response } = await api
      .POST("/auth/login", { params: { header: cookieSession }, body })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setBusy(false);
    if (data) {
      signedIn(data.data);
      return;
    }
    const p = problemOf(error, response);
    if (p.code === "TWO_FACTOR_REQUIRED" && step === "password") {
      setStep("code");
      return;
    }
    if (p.code === "SSO_REQUIRED") {
      setSsoRequired(true);
      return;
    }
    setProblem(p);
  };

  if (ssoRequired) {
    return (
      <Card title={t.signInTitle}>
        <p>{t.ssoRequired}</p>
        <a class="button primary" href={ssoStart(email)}>
          {t.ssoContinue}
        </a>
      </Card>
    );
  }
  return (
    <Card title={step === "password" ? t.signInTitle : t.twoFactorTitle}>
      <form onSubmit={submit} noValidate>
        <ProblemMessage problem={problem} />
        {step === "password" ? (
          <>
            <Field label={t.email} type="email" autocomplete="username" required value={email} onValue={setEmail} error={problem?.fields["email"]} />
            <Field label={t.password} type="password" autocomplete="current-password" required value={password} onValue={setPassword} error={problem?.fields["password"]} />
          </>
        ) : step === "code" ? (
          <Field label={t.twoFactorCode} hint={t.twoFactorHint} inputMode="numeric" autocomplete="one-time-code" required autoFocus value={code} onValue={setCode} error={problem?.fields["twoFactorCode"]} />
        ) : (
          <Field label={t.recoveryCode} hint={t.recoveryHint} autocomplete="off" required autoFocus value={code} onValue={setCode} error={problem?.fields["recoveryCode"]} />
        )}
        <Busy busy={busy} class="primary">
          {busy ? t.signingIn : t.signIn}
        </Busy>
        {step !== "password" && (
          <button type="button" class="link" onClick={() => { setCode(""); setProblem(null); setStep(step === "code" ? "recovery" : "code"); }}>
            {step === "code" ? t.useRecovery : t.useAuthenticator}
          </button>
        )}
      </form>
      {step === "password" && (
        <div class="aside">
          <p>
            <a href={email ? ssoStart(email) : "#"} onClick={(e) => { if (!email) { e.preventDefault(); setProblem({ code: "VALIDATION_ERROR", message: t.ssoNeedsEmail, fields: {} }); } }}>
              {t.ssoLink}
            </a>
          </p>
          <p>
            <a href="/app/forgot">{t.forgot}</a>
          </p>
          <p>
            {t.noAccount} <a href="/app/sign-up">{t.createAccount}</a>
          </p>
        </div>
      )}
    </Card>
  );
}

export function SignUp() {
  const t = useText(auth);
  const [f, setF] = useState({ name: "", email: "", accountName: "", password: "" });
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof f) => (v: string) => setF({ ...f, [k]: v });

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    const { data, error, response } = await api
      .POST("/auth/register", { params: { header: cookieSession }, body: f })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setBusy(false);
    if (data) signedIn(data.data);
    else setProblem(problemOf(error, response));
  };
  return (
    <Card title={t.signUpTitle}>
      <form onSubmit={submit} noValidate>
        <ProblemMessage problem={problem} />
        <Field label={t.name} autocomplete="name" required value={f.name} onValue={set("name")} error={problem?.fields["name"]} />
        <Field label={t.email} type="email" autocomplete="email" required value={f.email} onValue={set("email")} error={problem?.fields["email"]} />
        <Field label={t.accountName} hint={t.accountNameHint} autocomplete="organization" required value={f.accountName} onValue={set("accountName")} error={problem?.fields["accountName"]} />
        <Field label={t.password} hint={t.passwordHint} type="password" autocomplete="new-password" required minLength={10} value={f.password} onValue={set("password")} error={problem?.fields["password"]} />
        <Busy busy={busy} class="primary">
          {t.signUp}
        </Busy>
      </form>
      <div class="aside">
        <p>
          {t.haveAccount} <a href="/app/">{t.signIn}</a>
        </p>
      </div>
    </Card>
  );
}

export function Forgot() {
  const t = useText(auth);
  const [email, setEmail] = useState("");
  const [sent, setSent] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    const { error, response } = await api
      .POST("/auth/password/forgot", { body: { email } })
      .catch(() => ({ error: undefined, response: undefined }));
    setBusy(false);
    if (response?.ok) setSent(true);
    else setProblem(problemOf(error, response));
  };
  return (
    <Card title={t.forgotTitle}>
      {sent ? (
        <p role="status">{fill(t.forgotSent, { email })}</p>
      ) : (
        <form onSubmit={submit} noValidate>
          <p>{t.forgotText}</p>
          <ProblemMessage problem={problem} />
          <Field label={t.email} type="email" autocomplete="email" required value={email} onValue={setEmail} error={problem?.fields["email"]} />
          <Busy busy={busy} class="primary">
            {t.sendLink}
          </Busy>
        </form>
      )}
      <div class="aside">
        <p>
          <a href="/app/">{t.backToSignIn}</a>
        </p>
      </div>
    </Card>
  );
}

export function Reset() {
  const t = useText(auth);
  const [password, setPassword] = useState("");
  const [done, setDone] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  // The link's token, kept by the page: once used it is forgotten by the links module.
  const [token] = useState(() => linkToken("reset"));
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    const { error, response } = await api
      .POST("/auth/password/reset", { body: { token, password } })
      .catch(() => ({ error: undefined, response: undefined }));
    setBusy(false);
    if (response?.ok) {
      forgetLinkToken("reset");
      setDone(true);
    } else setProblem(problemOf(error, response));
  };
  if (!token || problem?.code === "TOKEN_GONE") {
    return (
      <Card title={t.resetTitle}>
        <p class="alert" role="alert">{t.linkGone}</p>
        <a href="/app/forgot">{t.forgotTitle}</a>
      </Card>
    );
  }
  return (
    <Card title={t.resetTitle}>
      {done ? (
        <>
          <p role="status">{t.resetDone}</p>
          <a class="button primary" href="/app/">{t.signIn}</a>
        </>
      ) : (
        <form onSubmit={submit} noValidate>
          <ProblemMessage problem={problem} />
          <Field label={t.newPassword} hint={t.passwordHint} type="password" autocomplete="new-password" required minLength={10} value={password} onValue={setPassword} error={problem?.fields["password"]} />
          <Busy busy={busy} class="primary">
            {t.setPassword}
          </Busy>
        </form>
      )}
    </Card>
  );
}

export function Invite() {
  const t = useText(auth);
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  // The link's token, kept by the page: once used it is forgotten by the links module.
  const [token] = useState(() => linkToken("invite"));
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(null);
    const { data, error, response } = await api
      .POST("/auth/invitations/accept", { params: { header: cookieSession }, body: { token, name, password } })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setBusy(false);
    if (data) {
      forgetLinkToken("invite");
      signedIn(data.data);
    } else setProblem(problemOf(error, response));
  };
  if (!token || problem?.code === "INVITATION_GONE") {
    return (
      <Card title={t.inviteTitle}>
        <p class="alert" role="alert">{problem?.message || t.linkGone}</p>
      </Card>
    );
  }
  return (
    <Card title={t.inviteTitle}>
      <p>{t.inviteText}</p>
      <form onSubmit={submit} noValidate>
        <ProblemMessage problem={problem} />
        <Field label={t.name} autocomplete="name" required value={name} onValue={setName} error={problem?.fields["name"]} />
        <Field label={t.password} hint={t.passwordHint} type="password" autocomplete="new-password" required minLength={10} value={password} onValue={setPassword} error={problem?.fields["password"]} />
        <Busy busy={busy} class="primary">
          {t.accept}
        </Busy>
      </form>
    </Card>
  );
}

export function Verify() {
  const t = useText(auth);
  const { route } = useLocation();
  const [problem, setProblem] = useState<Problem | null>(null);
  const [done, setDone] = useState(false);
  useEffect(() => {
    const token = linkToken("verify");
    if (!token) {
      setProblem({ code: "TOKEN_GONE", message: t.linkGone, fields: {} });
      return;
    }
    void api
      .POST("/auth/email/verify", { body: { token } })
      .catch(() => ({ error: undefined, response: undefined }))
      .then(({ error, response }) => {
        forgetLinkToken("verify");
        if (response?.ok) setDone(true);
        else setProblem(problemOf(error, response));
      });
  }, []);
  return (
    <Card title={t.verifyTitle}>
      {done ? (
        <>
          <p role="status">{t.verifyDone}</p>
          <button type="button" class="primary" onClick={() => route("/app/")}>
            {t.continue}
          </button>
        </>
      ) : problem ? (
        <p class="alert" role="alert">{problem.code === "TOKEN_GONE" ? t.linkGone : problem.message}</p>
      ) : (
        <Loading />
      )}
    </Card>
  );
}

/** SsoLanding turns the one-time code single sign-on brought into a session. */
export function SsoLanding() {
  const t = useText(auth);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [needPassword, setNeedPassword] = useState(false);
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  // The link's code, kept by the page: once used it is forgotten by the links module.
  const [code] = useState(() => linkToken("sso"));

  const exchange = async (withPassword?: string) => {
    setBusy(true);
    setProblem(null);
    const body: { code: string; password?: string } = { code };
    if (withPassword) body.password = withPassword;
    const { data, error, response } = await api
      .POST("/auth/sso/exchange", { params: { header: cookieSession }, body })
      .catch(() => ({ data: undefined, error: undefined, response: undefined }));
    setBusy(false);
    if (data) {
      forgetLinkToken("sso");
      signedIn(data.data);
      return;
    }
    const p = problemOf(error, response);
    if (p.code === "SSO_LINK_REQUIRED") setNeedPassword(true);
    else setProblem(p);
  };
  useEffect(() => {
    if (code) void exchange();
    else setProblem({ code: "SSO_REFUSED", message: t.linkGone, fields: {} });
  }, []);

  return (
    <Card title={t.signInTitle}>
      <ProblemMessage problem={problem} />
      {needPassword ? (
        <form onSubmit={(e) => { e.preventDefault(); void exchange(password); }} noValidate>
          <p>{t.ssoLinkPassword}</p>
          <Field label={t.password} type="password" autocomplete="current-password" required value={password} onValue={setPassword} error={problem?.fields["password"]} />
          <Busy busy={busy} class="primary">{t.continue}</Busy>
        </form>
      ) : problem ? (
        <a href="/app/">{t.backToSignIn}</a>
      ) : (
        <p role="status">{t.ssoWorking}</p>
      )}
    </Card>
  );
}
