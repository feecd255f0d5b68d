package config

import (
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDefaults(t *testing.T) {
	c, err := FromEnv(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != ":8080" || c.SiteURL.String() != "http://localhost:8080" || !c.SignupEnabled || c.WebhookAllowInsecureTargets || c.DatabaseURL != "" ||
		c.LookupCacheSize != 20_000 || c.SignupPlan != "free" || c.OperatorContact != "" || !c.RunWorkers {
		t.Fatalf("%+v", c)
	}
	for v, want := range map[string]int{"0": 0, "500": 500} {
		if c, err := FromEnv(env(map[string]string{"LOOKUP_CACHE_SIZE": v})); err != nil || c.LookupCacheSize != want {
			t.Errorf("LOOKUP_CACHE_SIZE=%s: %d %v", v, c.LookupCacheSize, err)
		}
	}
}

func TestTrustedProxiesAcceptCIDRsAndAddresses(t *testing.T) {
	c, err := FromEnv(env(map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.7 ::1"}))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, p := range c.TrustedProxies {
		got = append(got, p.String())
	}
	if strings.Join(got, " ") != "10.0.0.0/8 192.168.1.7/32 ::1/128" {
		t.Fatalf("%v", got)
	}
}

func TestBadValuesAreRefusedWithTheirName(t *testing.T) {
	for name, value := range map[string]string{
		"SITE_URL": "localhost:8080", "LOG_LEVEL": "loud", "SIGNUP_ENABLED": "maybe",
		"WEBHOOK_ALLOW_INSECURE_TARGETS": "yes please", "TRUSTED_PROXIES": "not-an-ip",
		"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "grpc://collector",
		"OTEL_SDK_DISABLED": "nope", "LOOKUP_CACHE_SIZE": "-1",
		"RUN_WORKERS": "off please", "OPERATOR_CONTACT": "billing@example.org\nBcc: everyone@example.org",
		"SECRETS_KEY": "c2hvcnQ=", "SECRETS_KEY_PREVIOUS": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=,not base64",
	} {
		if _, err := FromEnv(env(map[string]string{name: value})); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%q: %v", name, value, err)
		}
	}
}

func TestSecretsKeysAreBase64Of32Bytes(t *testing.T) {
	c, err := FromEnv(env(map[string]string{
		"SECRETS_KEY":          "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=",
		"SECRETS_KEY_PREVIOUS": "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=, AwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwM=",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.SecretsKey) != 32 || c.SecretsKey[0] != 1 || len(c.SecretsKeyPrevious) != 2 || c.SecretsKeyPrevious[1][31] != 3 {
		t.Fatalf("%v %v", c.SecretsKey, c.SecretsKeyPrevious)
	}
	if c, _ := FromEnv(env(nil)); c.SecretsKey != nil || c.SecretsKeyPrevious != nil {
		t.Fatal("keys out of nothing")
	}
}

// Traces go where OpenTelemetry's exporters would send them: the signal's own variable as it
// is, the general one with /v1/traces added; nowhere when neither is set or the SDK is disabled.
func TestTracesEndpointFollowsOpenTelemetrysVariables(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{nil, ""},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, "http://collector:4318/v1/traces"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://otlp.example.org/otlp/"}, "https://otlp.example.org/otlp/v1/traces"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318",
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://tempo:4318/traces"}, "http://tempo:4318/traces"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "true"}, ""},
	} {
		got, err := FromEnv(env(c.env))
		if err != nil || got.TracesEndpoint != c.want {
			t.Errorf("%v: %q %v, want %q", c.env, got.TracesEndpoint, err, c.want)
		}
	}
	if c, _ := FromEnv(env(nil)); c.ServiceName != "credentiald" {
		t.Errorf("default service name %q", c.ServiceName)
	}
}

// The three switches of an installation's accounts and workers, as an operator writes them:
// spaces around the values dropped, RUN_WORKERS as a boolean, OPERATOR_CONTACT one line of
// at most 200 characters.
func TestSignupPlanOperatorContactAndRunWorkers(t *testing.T) {
	c, err := FromEnv(env(map[string]string{"SIGNUP_PLAN": " pro ", "OPERATOR_CONTACT": "  billing@example.org ", "RUN_WORKERS": "false"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.SignupPlan != "pro" || c.OperatorContact != "billing@example.org" || c.RunWorkers {
		t.Fatalf("SIGNUP_PLAN %q, OPERATOR_CONTACT %q, RUN_WORKERS %v", c.SignupPlan, c.OperatorContact, c.RunWorkers)
	}
	long := "https://example.org/" + strings.Repeat("a", 180) // 200 characters
	if c, err := FromEnv(env(map[string]string{"OPERATOR_CONTACT": long})); err != nil || c.OperatorContact != long {
		t.Errorf("200 characters: %q %v", c.OperatorContact, err)
	}
	if _, err := FromEnv(env(map[string]string{"OPERATOR_CONTACT": long + "b"})); err == nil || !strings.Contains(err.Error(), "at most 200") {
		t.Errorf("201 characters: %v", err)
	}
}
