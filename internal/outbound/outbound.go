// Package outbound makes the HTTP clients of calls to addresses a tenant chose (webhooks, a
// single sign-on provider): refused to every address that is not public, unless the operator
// allowed otherwise for development.
package outbound

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"code.dny.dev/ssrf"
)

// Calls leave the service for addresses a tenant chose, so the client refuses every
// address that is not public: loopback, private, link-local (the cloud metadata service),
// multicast, unspecified and the other special-purpose ranges of IANA's registries, IPv4 and
// IPv6 (IPv4-mapped included). code.dny.dev/ssrf keeps those lists, generated from the
// registries; its check runs in the dialer's Control hook, on the address actually dialled,
// after name resolution, so a name that resolves to a private address (DNS rebinding
// included) is refused at connect time whatever it resolved to earlier. No proxy from the
// environment is used and no redirect is followed.

// ErrUnsafeTarget says a URL is refused; its message says why.
var ErrUnsafeTarget = errors.New("unsafe target")

// Policy decides which targets are allowed.
type Policy struct {
	// AllowInsecure is an unsafe development switch (WEBHOOK_ALLOW_INSECURE_TARGETS for
	// webhooks, ALLOW_LOOPBACK_OUTBOUND for single sign-on): http and any address, loopback and
	// private included.
	AllowInsecure bool
	// AllowLoopbackTLS lets https reach loopback addresses; for tests against a local HTTPS
	// receiver only, never configured from the environment.
	AllowLoopbackTLS bool
	// RootCAs, when set, replaces the system roots (tests trust their receiver's CA this way).
	RootCAs *x509.CertPool
	// Resolver resolves names at creation time; net.DefaultResolver when nil.
	Resolver *net.Resolver
}

func (p Policy) guardian() *ssrf.Guardian {
	opts := []ssrf.Option{ssrf.WithAnyPort()}
	if p.AllowLoopbackTLS {
		opts = append(opts, ssrf.WithAllowedV4Prefixes(netip.MustParsePrefix("127.0.0.0/8")),
			ssrf.WithAllowedV6Prefixes(netip.MustParsePrefix("::1/128")))
	}
	return ssrf.New(opts...)
}

// CheckURL checks a URL when it is configured (a webhook subscription, a provider's issuer): https, no credentials in
// it, a host that is not written as a number, and, when the host's name resolves now, only
// public addresses. A name that does not resolve now is accepted: every delivery checks the
// addresses it connects to.
func (p Policy) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return fmt.Errorf("%w: the URL must be absolute, like https://hooks.example.org/credentials", ErrUnsafeTarget)
	}
	if u.Scheme != "https" && !(p.AllowInsecure && u.Scheme == "http") {
		return fmt.Errorf("%w: the URL must use https", ErrUnsafeTarget)
	}
	if u.User != nil {
		return fmt.Errorf("%w: the URL must not hold a user name or password", ErrUnsafeTarget)
	}
	if p.AllowInsecure {
		return nil
	}
	host := strings.TrimSuffix(u.Hostname(), ".")
	if addr, err := netip.ParseAddr(host); err == nil {
		return p.checkAddr(addr)
	}
	if numericHost(host) {
		return fmt.Errorf("%w: the host %q is an IP address written as a number; name the host", ErrUnsafeTarget, host)
	}
	r := p.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	addrs, err := r.LookupNetIP(lctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if err := p.checkAddr(a); err != nil {
			return err
		}
	}
	return nil
}

func (p Policy) checkAddr(a netip.Addr) error {
	if err := p.guardian().SafeAddr(a); err != nil {
		return fmt.Errorf("%w: %s is not a public address", ErrUnsafeTarget, a)
	}
	return nil
}

// numericHost reports whether a host that is not a dotted address is still a number some
// resolvers read as an address: 2130706433, 0x7f000001, 017700000001, 127.1.
func numericHost(h string) bool {
	parts := strings.Split(strings.ToLower(h), ".")
	if len(parts) > 4 {
		return false
	}
	for _, p := range parts {
		digits := "0123456789"
		if strings.HasPrefix(p, "0x") {
			p, digits = p[2:], "0123456789abcdef"
		}
		if p == "" || strings.Trim(p, digits) != "" {
			return false
		}
	}
	return true
}

// Client returns the HTTP client the calls are made with: timeout per attempt, the address
// check in the dialer, no proxy, no redirects.
func (p Policy) Client(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout}
	if !p.AllowInsecure {
		dialer.Control = p.guardian().Safe
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSClientConfig:       &tls.Config{RootCAs: p.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		// A redirect is answered as it is (a webhook delivery counts it as a failure).
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
