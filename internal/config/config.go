// Package config reads the service's configuration from the environment.
package config

import (
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/certhub/credentiald/internal/logging"
)

// Config is the service's configuration. docs/operations.md lists every variable.
type Config struct {
	Addr        string
	DatabaseURL string // empty: a private PostgreSQL cluster under DataDir
	SiteURL     *url.URL
	LogLevel    slog.Level
	RedisURL    string
	SMTPURL     string
	// MailFrom is the sender of outbound email ("Name <address>").
	MailFrom string
	DataDir  string
	// JWTSigningKey is the base64 Ed25519 seed that signs access tokens; empty: a key is
	// generated once and kept in the database.
	JWTSigningKey string

	SignupEnabled bool
	// SignupPlan is the plan a newly registered account is on (SIGNUP_PLAN, default free); the
	// database's plans table decides whether it is one, when the service starts (app.Build).
	SignupPlan string
	// OperatorContact, when set, is whom to ask for a larger plan (an email address or a URL,
	// one line): the 402 CREDIT_LIMIT answers name it (OPERATOR_CONTACT).
	OperatorContact string
	// RunWorkers starts the background workers: River's client (email, webhooks, bulk jobs,
	// periodic jobs). False (RUN_WORKERS=false) serves the API alone, for a restored copy of a
	// database: what it queues waits for a server with workers.
	RunWorkers bool
	// RequireVerifiedEmail refuses the sessions of users whose address is not verified yet, but
	// for who they are, the verification and logout (REQUIRE_VERIFIED_EMAIL, default false;
	// recommended with public sign-up).
	RequireVerifiedEmail bool
	// TrustedProxies are the peers whose X-Forwarded-For is believed.
	TrustedProxies []netip.Prefix
	// WebhookAllowInsecureTargets allows http and loopback webhook targets: for development only.
	WebhookAllowInsecureTargets bool
	// AllowLoopbackOutbound allows http and loopback and private addresses for the calls to
	// single sign-on providers (ALLOW_LOOPBACK_OUTBOUND, default false): unsafe, for development
	// and tests only.
	AllowLoopbackOutbound bool
	// SecretsKey seals the secrets kept at rest (AES-256, 32 bytes); nil: unset, which only the
	// private cluster's development mode allows (a key is made once under DataDir).
	SecretsKey []byte
	// SecretsKeyPrevious are older keys that still open what they sealed, during a rotation.
	SecretsKeyPrevious [][]byte
	// GOGCSet says GOGC is in the environment: the operator chose the collector's pace, and the
	// service keeps it (otherwise it sets its own, see app.Serve).
	GOGCSet bool
	// GOMEMLIMITSet says GOMEMLIMIT is in the environment: the operator chose the heap's soft
	// limit, and the service keeps it (otherwise it sets its own, see app.RuntimeDefaults).
	GOMEMLIMITSet bool
	// PprofAddr, when set, serves Go's profiler (net/http/pprof) on a listener of its own,
	// never on the API's: for profiling under load, off by default.
	PprofAddr string
	// MetricsAddr, when set, serves the Prometheus metrics (/metrics) on a listener of its own,
	// never on the API's: an operator's port, off by default.
	MetricsAddr string
	// TracesEndpoint, when set, is the OTLP/HTTP URL traces are exported to (OpenTelemetry's
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces); empty:
	// no tracing at all.
	TracesEndpoint string
	// ServiceName names the service in its traces (OTEL_SERVICE_NAME, default credentiald).
	ServiceName string
	// LookupCacheSize is how many certificates each lookup keeps in memory, public verification
	// by code and GET /certificates/{id} by id (LOOKUP_CACHE_SIZE, default 20000, some 20 MB in
	// all; 0: none, every lookup reads the database).
	LookupCacheSize int
}

// FromEnv reads the configuration through getenv (os.Getenv in production).
func FromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Addr:        orDefault(getenv("ADDR"), ":8080"),
		DatabaseURL: getenv("DATABASE_URL"),
		RedisURL:    getenv("REDIS_URL"),
		SMTPURL:     getenv("SMTP_URL"),
		DataDir:     orDefault(getenv("DATA_DIR"), ".data"),
		MailFrom:    getenv("MAIL_FROM"),

		JWTSigningKey: getenv("JWT_SIGNING_KEY"),
		PprofAddr:     getenv("PPROF_ADDR"),
		MetricsAddr:   getenv("METRICS_ADDR"),
		GOGCSet:       getenv("GOGC") != "",
		GOMEMLIMITSet: getenv("GOMEMLIMIT") != "",
	}
	var err error
	if c.TracesEndpoint, err = tracesEndpoint(getenv); err != nil {
		return c, err
	}
	c.ServiceName = orDefault(getenv("OTEL_SERVICE_NAME"), "credentiald")
	site := orDefault(getenv("SITE_URL"), "http://localhost:8080")
	if c.SiteURL, err = url.Parse(strings.TrimRight(site, "/")); err != nil || c.SiteURL.Host == "" ||
		(c.SiteURL.Scheme != "http" && c.SiteURL.Scheme != "https") {
		return c, fmt.Errorf("SITE_URL %q: want an absolute http(s) URL", site)
	}
	if c.MailFrom == "" {
		c.MailFrom = "credentiald <no-reply@" + c.SiteURL.Hostname() + ">"
	}
	if c.LogLevel, err = logging.ParseLevel(getenv("LOG_LEVEL")); err != nil {
		return c, err
	}
	if c.SignupEnabled, err = parseBool(getenv, "SIGNUP_ENABLED", true); err != nil {
		return c, err
	}
	c.SignupPlan = orDefault(strings.TrimSpace(getenv("SIGNUP_PLAN")), "free")
	if c.OperatorContact, err = operatorContact(getenv("OPERATOR_CONTACT")); err != nil {
		return c, err
	}
	if c.RequireVerifiedEmail, err = parseBool(getenv, "REQUIRE_VERIFIED_EMAIL", false); err != nil {
		return c, err
	}
	if c.RunWorkers, err = parseBool(getenv, "RUN_WORKERS", true); err != nil {
		return c, err
	}
	if c.WebhookAllowInsecureTargets, err = parseBool(getenv, "WEBHOOK_ALLOW_INSECURE_TARGETS", false); err != nil {
		return c, err
	}
	if c.AllowLoopbackOutbound, err = parseBool(getenv, "ALLOW_LOOPBACK_OUTBOUND", false); err != nil {
		return c, err
	}
	c.LookupCacheSize = 20_000
	if v := getenv("LOOKUP_CACHE_SIZE"); v != "" {
		if c.LookupCacheSize, err = strconv.Atoi(v); err != nil || c.LookupCacheSize < 0 || c.LookupCacheSize > 10_000_000 {
			return c, fmt.Errorf("LOOKUP_CACHE_SIZE %q: want a number of certificates from 0 (none) to 10000000", v)
		}
	}
	if v := getenv("SECRETS_KEY"); v != "" {
		if c.SecretsKey, err = ParseSecretsKey(v); err != nil {
			return c, fmt.Errorf("SECRETS_KEY: %w", err)
		}
	}
	for i, v := range strings.FieldsFunc(getenv("SECRETS_KEY_PREVIOUS"), func(r rune) bool { return r == ',' || r == ' ' }) {
		k, err := ParseSecretsKey(v)
		if err != nil {
			return c, fmt.Errorf("SECRETS_KEY_PREVIOUS: key %d: %w", i+1, err)
		}
		c.SecretsKeyPrevious = append(c.SecretsKeyPrevious, k)
	}
	for _, s := range strings.FieldsFunc(getenv("TRUSTED_PROXIES"), func(r rune) bool { return r == ',' || r == ' ' }) {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			addr, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return c, fmt.Errorf("TRUSTED_PROXIES: %q is neither a CIDR nor an address", s)
			}
			p = netip.PrefixFrom(addr, addr.BitLen())
		}
		c.TrustedProxies = append(c.TrustedProxies, p.Masked())
	}
	return c, nil
}

// ParseSecretsKey decodes a key for the secrets at rest: the base64 of 32 bytes.
func ParseSecretsKey(v string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
	if err != nil || len(k) != 32 {
		return nil, errors.New("want the base64 of 32 random bytes (for example the output of `openssl rand -base64 32`)")
	}
	return k, nil
}

// FromOS reads the configuration from the process environment.
func FromOS() (Config, error) { return FromEnv(os.Getenv) }

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func parseBool(getenv func(string) string, name string, def bool) (bool, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s %q: want true or false", name, v)
	}
	return b, nil
}

// maxOperatorContact bounds OPERATOR_CONTACT: it ends an error message, not a page.
const maxOperatorContact = 200

// operatorContact reads OPERATOR_CONTACT: one line (it ends the sentence of an error message)
// of at most maxOperatorContact characters, spaces around it dropped; empty when unset.
func operatorContact(v string) (string, error) {
	v = strings.TrimSpace(v)
	if strings.IndexFunc(v, unicode.IsControl) >= 0 {
		return "", errors.New("OPERATOR_CONTACT: want one line (an email address or a URL); it holds a line break or another control character")
	}
	if n := utf8.RuneCountInString(v); n > maxOperatorContact {
		return "", fmt.Errorf("OPERATOR_CONTACT: want at most %d characters (an email address or a URL), not %d", maxOperatorContact, n)
	}
	return v, nil
}

// tracesEndpoint is where traces go, read as OpenTelemetry's exporters read it: the signal's
// own variable is the URL as it is; the general one is a base, to which /v1/traces is added.
// OTEL_SDK_DISABLED=true switches tracing off whatever they say. The exporter's other settings
// (OTEL_EXPORTER_OTLP_HEADERS, _COMPRESSION, _TIMEOUT, OTEL_BSP_*) are read by the SDK itself.
func tracesEndpoint(getenv func(string) string) (string, error) {
	if off, err := parseBool(getenv, "OTEL_SDK_DISABLED", false); err != nil || off {
		return "", err
	}
	name, u := "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	if u == "" {
		name, u = "OTEL_EXPORTER_OTLP_ENDPOINT", getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
		if u == "" {
			return "", nil
		}
		u = strings.TrimRight(u, "/") + "/v1/traces"
	}
	parsed, err := url.Parse(u)
	if err != nil || parsed.Host == "" || (parsed.Scheme != "http" && parsed.Scheme != "https") {
		return "", fmt.Errorf("%s %q: want an absolute http(s) URL (OTLP over HTTP, such as http://localhost:4318)", name, getenv(name))
	}
	return u, nil
}
