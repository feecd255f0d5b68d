package httpapi_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
	require.NoError(t, err, "otpauthUrl %q", setup.Data.OtpauthUrl)
	require.Equal(t, "otpauth", u.Scheme, "otpauthUrl: scheme")
	require.Equal(t, setup.Data.Secret, u.Query().Get("secret"), "otpauthUrl: secret")
	res = session.Post("/api/v1/auth/two-factor/enable", map[string]string{"code": totp(t, setup.Data.Secret, clock.Now())})
	var enabled struct {
		Data struct{ RecoveryCodes []string }
	}
	res.JSON(t, &enabled)
	require.Equal(t, 200, res.StatusCode, "enable: status (body %s)", res.Body)
	require.Len(t, enabled.Data.RecoveryCodes, 10, "enable: recovery codes")
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

	status, e := login(nil)
	require.Equal(t, 401, status, "without a code: status")
	require.Equal(t, "TWO_FACTOR_REQUIRED", e.Error.Code, "without a code: error code")
	status, e = login(map[string]string{"password": "wrong password"})
	require.Equal(t, 401, status, "a wrong password must not reveal two-step sign-in: status")
	require.Equal(t, "INVALID_CREDENTIALS", e.Error.Code, "a wrong password must not reveal two-step sign-in: error code")
	// The code that enabled two-step sign-in was used already (RFC 6238 section 5.2).
	status, e = login(map[string]string{"twoFactorCode": totp(t, secret, clock.Now())})
	require.Equal(t, 401, status, "the enabling code again: status")
	require.Equal(t, "INVALID_CREDENTIALS", e.Error.Code, "the enabling code again: error code")
	clock.Advance(30 * time.Second)
	if status, _ := login(map[string]string{"twoFactorCode": totp(t, secret, clock.Now())}); status != 200 {
		t.Fatalf("a fresh code: %d", status)
	}
	if status, _ := login(map[string]string{"recoveryCode": strings.ToUpper(recovery[3])}); status != 200 {
		t.Fatalf("a recovery code: %d", status)
	}
	status, e = login(map[string]string{"recoveryCode": recovery[3]})
	require.Equal(t, 401, status, "a spent recovery code: status")
	require.Equal(t, "INVALID_CREDENTIALS", e.Error.Code, "a spent recovery code: error code")
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
	require.Equal(t, 1, got[200], "10 logins with one code: 200s (statuses %v)", got)
	require.Equal(t, 9, got[401], "10 logins with one code: 401s (statuses %v)", got)
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
	require.True(t, plainGone, "the secret is stored plain")
	require.True(t, hidden, "the secret is visible in the sealed value")
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
	require.NoError(t, err, "sealing")
	require.Equal(t, 1, n, "secrets sealed")
	testkit.QueryRow(t, env, "SELECT totp_secret IS NULL, totp_secret_sealed IS NOT NULL FROM users WHERE email = $1", []any{bob.Email}, &plainGone, &hidden)
	require.True(t, plainGone, "the plain secret was not sealed: it is still stored plain")
	require.True(t, hidden, "the plain secret was not sealed: it is visible in the sealed value")
	if status := login(bob.Email, legacy); status != 200 {
		t.Fatalf("login after sealing: %d", status)
	}
	n, err = auth.SealTOTPSecrets(t.Context(), env.Store, env.Service.Secrets, false)
	require.NoError(t, err, "a second pass")
	require.Equal(t, 0, n, "secrets a second pass sealed")
}
