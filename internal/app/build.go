package app

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/attendees"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/badges"
	"github.com/certhub/credentiald/internal/bulk"
	"github.com/certhub/credentiald/internal/certificates"
	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/email"
	"github.com/certhub/credentiald/internal/events"
	"github.com/certhub/credentiald/internal/httpapi"
	"github.com/certhub/credentiald/internal/idempotency"
	"github.com/certhub/credentiald/internal/ratelimit"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/templates"
	"github.com/certhub/credentiald/internal/verification"
)

// Service is the assembled service over an open store: the HTTP handler and the workers.
type Service struct {
	Handler      *echo.Echo
	Auth         *auth.Service
	Accounts     *accounts.Service
	Events       *events.Service
	Attendees    *attendees.Service
	Templates    *templates.Service
	Certificates *certificates.Service
	Bulk         *bulk.Service
	Badges       *badges.Service
	Verification *verification.Service
	Idempotency  *idempotency.Service
	Logger       *slog.Logger
	Email        *email.Worker
	closers      []func()
}

// Close releases what Build opened (the Redis connection, if any).
func (s *Service) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
}

// Overrides replace parts of the service; tests use them, production leaves them empty.
type Overrides struct {
	Now               func() time.Time
	Limiter           ratelimit.Limiter
	EmailSender       email.Sender
	StrictMiddlewares []api.StrictMiddlewareFunc
}

// Build assembles the service from the configuration.
func Build(ctx context.Context, cfg config.Config, st *store.Store, logger *slog.Logger, o Overrides) (*Service, error) {
	svc := &Service{Logger: logger, Accounts: accounts.New(st, o.Now), Events: events.New(st, o.Now), Attendees: attendees.New(st, o.Now),
		Templates:    templates.New(st, cfg.SiteURL.String(), o.Now),
		Certificates: certificates.New(st, cfg.SiteURL.String(), o.Now, nil),
		Badges:       badges.New(st, cfg.SiteURL.String(), o.Now, nil),
		Idempotency:  idempotency.New(st, o.Now)}
	var seed []byte
	if cfg.JWTSigningKey != "" {
		var err error
		if seed, err = auth.ParseSeed(cfg.JWTSigningKey); err != nil {
			return nil, fmt.Errorf("JWT_SIGNING_KEY: %w", err)
		}
	}
	site := cfg.SiteURL.String()
	keys, err := auth.NewKeyring(ctx, st, auth.KeyringOptions{Issuer: site, Audience: site + "/api/v1", Seed: seed, Now: o.Now})
	if err != nil {
		return nil, err
	}
	if svc.Auth, err = auth.NewService(ctx, st, keys, "credentiald ("+cfg.SiteURL.Host+")"); err != nil {
		return nil, err
	}

	limiter := o.Limiter
	if limiter == nil && cfg.RedisURL != "" {
		r, err := ratelimit.NewRedis(ctx, cfg.RedisURL)
		if err != nil {
			return nil, err
		}
		svc.closers = append(svc.closers, func() { _ = r.Close() })
		limiter = r
		logger.InfoContext(ctx, "rate limits shared through Redis")
	} else if limiter == nil {
		limiter = ratelimit.NewMemory(o.Now)
	}

	sender := o.EmailSender
	if sender == nil && cfg.SMTPURL != "" {
		if sender, err = email.NewSMTPSender(cfg.SMTPURL, nil); err != nil {
			return nil, err
		}
	} else if sender == nil {
		dir := filepath.Join(cfg.DataDir, "outbox")
		sender = email.FileSender{Dir: dir}
		logger.InfoContext(ctx, "SMTP_URL is unset: outbound email is written as .eml files", "dir", dir)
	}
	from, err := email.ParseFrom(cfg.MailFrom)
	if err != nil {
		svc.Close()
		return nil, err
	}
	svc.Email = &email.Worker{Store: st, Sender: sender, Logger: logger,
		Composer: email.Composer{From: from, Domain: cfg.SiteURL.Hostname()},
		Prepare:  svc.Certificates.PrepareEmail, Delivered: svc.Certificates.RecordSent, Now: o.Now}
	svc.Certificates.SetKick(svc.Email.Kick)
	svc.Badges.SetKick(svc.Email.Kick)
	if svc.Bulk, err = bulk.New(st, svc.Certificates, logger, bulk.Timing{}); err != nil {
		svc.Close()
		return nil, err
	}

	svc.Verification = verification.New(st, svc.Certificates, verification.Options{SiteURL: site, Now: o.Now, Logger: logger})
	svc.Handler, err = httpapi.New(httpapi.Options{
		Logger: logger, Readiness: st, Auth: svc.Auth, Accounts: svc.Accounts, Events: svc.Events, Attendees: svc.Attendees, Templates: svc.Templates, Certificates: svc.Certificates, Bulk: svc.Bulk, Verification: svc.Verification, Badges: svc.Badges, Idempotency: svc.Idempotency,
		Limiter: limiter, TrustedProxies: cfg.TrustedProxies, SignupEnabled: cfg.SignupEnabled,
		KickEmail: svc.Email.Kick, StrictMiddlewares: o.StrictMiddlewares,
	})
	if err != nil {
		svc.Close()
		return nil, err
	}
	return svc, nil
}
