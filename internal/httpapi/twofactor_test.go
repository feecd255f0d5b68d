package httpapi_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

func totp(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	code, err := auth.TOTPCode(secret, auth.TOTPStep(at))
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// enableTwoFactor sets up and enables two-step sign-in; it returns the secret and the
// recovery codes.
func enableTwoFactor(t *testing.T, session *contract.Client, clock *testkit.Clock) (string, []string) {
	t.Helper()
	// A running clock could cross a 30-second step between the enabling code and the test's
	// next one, which would then be a fresh code, not the one used: the tests move it themselves.
	clock.Stop()
	res := session.Post("/api/v1/auth/two-factor/setup", nil)
	var setup struct {
		Data struct{ Secret, OtpauthUrl string }
	}
	res.JSON(t, &setup)
	if res.StatusCode != 200 {
		t.Fatalf("setup: %d %s", res.StatusCode, res.Body)
	}
	u, err := url.Parse(setup.Data.OtpauthUrl)
	if err != nil || u.Scheme != "otpauth" || u.Query().Get("secret") != setup.Data.Secret {
		t.Fatalf("otpauthUrl %q", setup.Data.OtpauthUrl)
	}
	res = session.Post("/api/v1/auth/two-factor/enable", map[string]string{"code": totp(t, setup.Data.Secret, clock.Now())})
	var enabled struct {
		Data struct{ RecoveryCodes []string }
	}
	res.JSON(t, &enabled)
	if res.StatusCode != 200 || len(enabled.Data.RecoveryCodes) != 10 {
		t.Fatalf("enable: %d %s", res.StatusCode, res.Body)
	}
	return setup.Data.Secret, enabled.Data.RecoveryCodes
}

func TestTwoStepSignIn(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	env := testkit.NewServer(t, testkit.WithClock(clock.Now))
	acct := testkit.SignUp(t, env)
	secret, recovery := enableTwoFactor(t, acct.Client, clock)
	login := func(extra map[string]string) (int, errorBody) {
		body := map[string]string{"email": acct.Email, "password": testkit.Password}
		for k, v := range extra {
			body[k] = v
		}
		res := env.Client.Post("/api/v1/auth/login", body)
		var e errorBody
		if res.StatusCode != 200 {
			res.JSON(t, &e)
		}
		return res.StatusCode, e
	}

	if status, e := login(nil); status != 401 || e.Error.Code != "TWO_FACTOR_REQUIRED" {
		t.Fatalf("without a code: %d %s", status, e.Error.Code)
	}
	if status, e := login(map[string]string{"password": "wrong password"}); status != 401 || e.Error.Code != "INVALID_CREDENTIALS" {
		t.Fatalf("a wrong password must not reveal two-step sign-in: %d %s", status, e.Error.Code)
	}
	// The code that enabled two-step sign-in was used already (RFC 6238 section 5.2).
	if status, e := login(map[string]string{"twoFactorCode": totp(t, secret, clock.Now())}); status != 401 || e.Error.Code != "INVALID_CREDENTIALS" {
		t.Fatalf("the enabling code again: %d %s", status, e.Error.Code)
	}
	clock.Advance(30 * time.Second)
	if status, _ := login(map[string]string{"twoFactorCode": totp(t, secret, clock.Now())}); status != 200 {
		t.Fatalf("a fresh code: %d", status)
	}
	if status, _ := login(map[string]string{"recoveryCode": strings.ToUpper(recovery[3])}); status != 200 {
		t.Fatalf("a recovery code: %d", status)
	}
	if status, e := login(map[string]string{"recoveryCode": recovery[3]}); status != 401 || e.Error.Code != "INVALID_CREDENTIALS" {
		t.Fatalf("a spent recovery code: %d %s", status, e.Error.Code)
	}
	if res := acct.Client.Get("/api/v1/auth/me"); !strings.Contains(string(res.Body), `"twoFactorEnabled":true`) {
		t.Fatalf("me: %s", res.Body)
	}

	// Setting up again while on is a conflict; disabling needs the password and a code.
	res := acct.Client.Post("/api/v1/auth/two-factor/setup", nil)
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	clock.Advance(30 * time.Second)
	res = acct.Client.Post("/api/v1/auth/two-factor/disable", map[string]string{"currentPassword": "wrong password", "code": totp(t, secret, clock.Now())})
	if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); e.Error.Details[0].Field != "body.currentPassword" {
		t.Fatalf("details %+v", e.Error.Details)
	}
	res = acct.Client.Post("/api/v1/auth/two-factor/disable", map[string]string{"currentPassword": testkit.Password, "code": totp(t, secret, clock.Now())})
	if res.StatusCode != 204 {
		t.Fatalf("disable: %d %s", res.StatusCode, res.Body)
	}
	if status, _ := login(nil); status != 200 {
		t.Fatalf("login after disabling: %d", status)
	}
	if status, _ := login(map[string]string{"recoveryCode": recovery[4]}); status != 200 {
		t.Fatalf("a recovery code of a disabled setup is ignored, the password suffices: %d", status)
	}
}

func TestEnableRefusesAWrongCodeAndAMissingSetup(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	res := acct.Client.Post("/api/v1/auth/two-factor/enable", map[string]string{"code": "123456"})
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	acct.Client.Post("/api/v1/auth/two-factor/setup", nil)
	res = acct.Client.Post("/api/v1/auth/two-factor/enable", map[string]string{"code": "000000"})
	if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); e.Error.Details[0].Field != "body.code" {
		t.Fatalf("details %+v", e.Error.Details)
	}
	res = acct.Client.Post("/api/v1/auth/two-factor/disable", map[string]string{"currentPassword": testkit.Password, "code": "000000"})
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
}

// Ten logins racing with one fresh code: the code works exactly once.
func TestATOTPCodeIsAcceptedOnceUnderRaces(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	env := testkit.NewServer(t, testkit.WithClock(clock.Now))
	acct := testkit.SignUp(t, env)
	secret, _ := enableTwoFactor(t, acct.Client, clock)
	clock.Advance(30 * time.Second)
	code := totp(t, secret, clock.Now())
	got := testkit.Race(10, func(int) int {
		return env.Client.Post("/api/v1/auth/login", map[string]string{
			"email": acct.Email, "password": testkit.Password, "twoFactorCode": code}).StatusCode
	})
	if got[200] != 1 || got[401] != 9 {
		t.Fatalf("statuses %v of 10 logins with one code, want one 200 and nine 401", got)
	}
}

// A TOTP secret rests sealed, bound to its user. One stored in plain before sealing existed
// still works, and the start-up pass seals it without changing what it accepts.
func TestTOTPSecretsRestSealed(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	env := testkit.NewServer(t, testkit.WithClock(clock.Now))
	ada, bob := testkit.SignUp(t, env), testkit.SignUp(t, env)
	secret, _ := enableTwoFactor(t, ada.Client, clock)
	var plainGone, hidden bool
	testkit.QueryRow(t, env, "SELECT totp_secret IS NULL, position(convert_to($1, 'UTF8') IN totp_secret_sealed) = 0 FROM users WHERE email = $2",
		[]any{secret, ada.Email}, &plainGone, &hidden)
	if !plainGone || !hidden {
		t.Fatalf("stored plain: %v, secret visible in the sealed value: %v", !plainGone, !hidden)
	}
	login := func(email, secret string) int {
		clock.Advance(30 * time.Second)
		return env.Client.Post("/api/v1/auth/login", map[string]string{"email": email, "password": testkit.Password,
			"twoFactorCode": totp(t, secret, clock.Now())}).StatusCode
	}
	if status := login(ada.Email, secret); status != 200 {
		t.Fatalf("login: %d", status)
	}

	const legacy = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	testkit.SQL(t, env, "UPDATE users SET totp_secret = $1, totp_secret_sealed = NULL, totp_enabled = true WHERE email = $2", legacy, bob.Email)
	if status := login(bob.Email, legacy); status != 200 {
		t.Fatalf("login with a plain secret: %d", status)
	}
	n, err := auth.SealTOTPSecrets(t.Context(), env.Store, env.Service.Secrets, false)
	if err != nil || n != 1 {
		t.Fatalf("sealed %d: %v", n, err)
	}
	testkit.QueryRow(t, env, "SELECT totp_secret IS NULL, totp_secret_sealed IS NOT NULL FROM users WHERE email = $1", []any{bob.Email}, &plainGone, &hidden)
	if !plainGone || !hidden {
		t.Fatal("the plain secret was not sealed")
	}
	if status := login(bob.Email, legacy); status != 200 {
		t.Fatalf("login after sealing: %d", status)
	}
	if n, err := auth.SealTOTPSecrets(t.Context(), env.Store, env.Service.Secrets, false); err != nil || n != 0 {
		t.Fatalf("a second pass sealed %d: %v", n, err)
	}
}
