package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/riverqueue/river/rivertype"
	"go.opentelemetry.io/otel/trace"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/analytics"
	"github.com/certhub/credentiald/internal/attendees"
	"github.com/certhub/credentiald/internal/auditlog"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/badges"
	"github.com/certhub/credentiald/internal/bulk"
	"github.com/certhub/credentiald/internal/certificates"
	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/email"
	"github.com/certhub/credentiald/internal/events"
	"github.com/certhub/credentiald/internal/httpapi"
	"github.com/certhub/credentiald/internal/idempotency"
	"github.com/certhub/credentiald/internal/jobqueue"
	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/members"
	"github.com/certhub/credentiald/internal/metrics"
	"github.com/certhub/credentiald/internal/outbound"
	"github.com/certhub/credentiald/internal/privacy"
	"github.com/certhub/credentiald/internal/ratelimit"
	"github.com/certhub/credentiald/internal/retention"
	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/sso"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/store/changefeed"
	"github.com/certhub/credentiald/internal/svgrecheck"
	"github.com/certhub/credentiald/internal/templates"
	"github.com/certhub/credentiald/internal/tracing"
	"github.com/certhub/credentiald/internal/verification"
	"github.com/certhub/credentiald/internal/wallet"
	"github.com/certhub/credentiald/internal/webhooks"
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
	// Credentials signs the verifiable credentials and keeps the issuer keys.
	Credentials *credentials.Service
	// Wallet delivers credentials into recipients' wallets.
	Wallet      *wallet.Service
	Idempotency *idempotency.Service
	// Members runs the account's members, their roles and invitations.
	Members *members.Service
	// SSO runs single sign-on: the accounts' providers and domains, and the sign-in.
	SSO *sso.Service
	// Retention keeps the accounts' retention and purges past it.
	Retention  *retention.Service
	Logger     *slog.Logger
	Email      *email.Worker
	Webhooks   *webhooks.Service
	Dispatcher *webhooks.Dispatcher
	// Jobs is the process's one River client, with every worker above registered; Serve starts
	// and stops it (unless RUN_WORKERS=false).
	Jobs *store.JobQueue
	// SVGRecheck checks the stored SVGs again after the upload check became stricter; Serve
	// queues it, and Jobs works it.
	SVGRecheck *svgrecheck.Service
	// Now is the service's clock (Overrides.Now, or the system's).
	Now func() time.Time
	// Secrets seals the secrets kept at rest (webhook signing secrets, TOTP secrets).
	Secrets *secretbox.Box
	// Metrics are what Serve exposes on METRICS_ADDR; nil when it is unset.
	Metrics *metrics.Registry
	issued  *metrics.Issuance // what commits issued and spent, for Metrics; nil without them
	store   *store.Store
	changes changefeed.Watchers // the lookups' caches
	closers []func()
}

// WatchChanges tells the lookups (public verification, GET /certificates/{id}) what changes
// in the database, from every instance, until ctx ends: while it listens they keep
// certificates in memory, and while the connection it listens on is lost they keep none (see
// changefeed.Watch). Serve runs it.
func (s *Service) WatchChanges(ctx context.Context) {
	changefeed.Watch(ctx, s.store, &loggedWatcher{Watcher: s.changes, ctx: ctx, logger: s.Logger}, changefeed.Options{Logger: s.Logger})
}

// Changes is told what changed, as WatchChanges tells it: for tests that change the database
// behind the service's back, or that play the listening part themselves.
func (s *Service) Changes() changefeed.Watcher { return s.changes }

// loggedWatcher tells the operator when listening for changes fails and when it resumes: a
// warning when it stops, the retries that fail after it at debug (an outage of the database
// is not a warning a second), and at info when it listens again.
type loggedWatcher struct {
	changefeed.Watcher
	ctx    context.Context
	logger *slog.Logger
	lost   bool // told Lost since the last Listening
}

func (w *loggedWatcher) Listening() {
	w.Watcher.Listening()
	w.lost = false
	w.logger.InfoContext(w.ctx, "listening for credential changes: the lookups keep certificates in memory")
}

func (w *loggedWatcher) Lost(err error) {
	w.Watcher.Lost(err)
	level := slog.LevelWarn
	if w.lost {
		level = slog.LevelDebug
	}
	w.lost = true
	w.logger.Log(w.ctx, level, "listening for credential changes failed: the lookups read the database until "+
		"it listens again (retried every second)", "error", err.Error())
}

// Close releases what Build opened (the Redis connection, if any).
func (s *Service) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
}

// Overrides replace parts of the service; tests use them, and Serve passes the one it starts
// itself (the tracer provider); otherwise production leaves them empty.
type Overrides struct {
	Now               func() time.Time
	Limiter           ratelimit.Limiter
	EmailSender       email.Sender
	StrictMiddlewares []api.StrictMiddlewareFunc
	// WebhookPolicy replaces the policy made from the configuration (tests trust their own
	// receiver's CA and allow it on loopback); WebhookTimeout the 10 s of an attempt.
	WebhookPolicy *webhooks.Policy
	// Resolver looks up the single sign-on domains' TXT records (tests answer from their own
	// DNS server); net.DefaultResolver when nil.
	Resolver       *net.Resolver
	WebhookTimeout time.Duration
	// TracerProvider traces the service (nil: no tracing). Serve sets it when the configuration
	// names an OTLP endpoint, having opened the store with its pgx tracer (StoreOptions).
	TracerProvider trace.TracerProvider
}

// prepareEmail completes a delivery email as it is sent: the certificate's link token and PDF,
// then a fresh wallet offer's link.
func (s *Service) prepareEmail(ctx context.Context, d *domain.EmailDelivery) ([]email.Attachment, error) {
	if err := s.Members.PrepareEmail(ctx, d); errors.Is(err, members.ErrInvitationNotPending) {
		return nil, &email.PermanentError{Err: err}
	} else if err != nil {
		return nil, err
	}
	if err := s.Auth.PrepareEmail(ctx, d); errors.Is(err, auth.ErrLinkNotUsable) {
		return nil, &email.PermanentError{Err: err}
	} else if err != nil {
		return nil, err
	}
	files, err := s.Certificates.PrepareEmail(ctx, d)
	if err != nil {
		return nil, err
	}
	return files, s.Wallet.PrepareEmail(ctx, d)
}

// Build assembles the service from the configuration.
func Build(ctx context.Context, cfg config.Config, st *store.Store, logger *slog.Logger, o Overrides) (*Service, error) {
	from, err := email.ParseFrom(cfg.MailFrom)
	if err != nil {
		return nil, err
	}
	svc := &Service{Logger: logger, Now: o.Now, store: st, Events: events.New(st, o.Now), Attendees: attendees.New(st, o.Now),
		Templates:    templates.New(st, cfg.SiteURL.String(), o.Now),
		Certificates: certificates.New(st, cfg.SiteURL.String(), o.Now),
		Badges:       badges.New(st, cfg.SiteURL.String(), from.Address, o.Now),
		Idempotency:  idempotency.New(st, o.Now)}
	if svc.Now == nil {
		svc.Now = time.Now
	}
	if svc.Secrets, err = Secrets(cfg, logger); err != nil {
		return nil, err
	}
	var seed []byte
	if cfg.JWTSigningKey != "" {
		if seed, err = auth.ParseSeed(cfg.JWTSigningKey); err != nil {
			return nil, fmt.Errorf("JWT_SIGNING_KEY: %w", err)
		}
	}
	site := cfg.SiteURL.String()
	keys, err := auth.NewKeyring(ctx, st, auth.KeyringOptions{Issuer: site, Audience: site + "/api/v1", Seed: seed, Now: o.Now})
	if err != nil {
		return nil, err
	}
	if svc.Auth, err = auth.NewService(ctx, st, keys, "credentiald ("+cfg.SiteURL.Host+")", svc.Secrets, auth.WithSiteURL(site)); err != nil {
		return nil, err
	}
	svc.Members = members.New(st, svc.Auth, site, o.Now)
	ssoPolicy := outbound.Policy{AllowInsecure: cfg.AllowLoopbackOutbound}
	if ssoPolicy.AllowInsecure {
		logger.WarnContext(ctx, "ALLOW_LOOPBACK_OUTBOUND is on: single sign-on providers may be called over http and at loopback and "+
			"private addresses. This is unsafe (a tenant can reach the service's own network): use it for local development only")
	}
	ssoOpts := []sso.Option{}
	if o.Now != nil {
		ssoOpts = append(ssoOpts, sso.WithClock(o.Now))
	}
	if o.Resolver != nil {
		ssoOpts = append(ssoOpts, sso.WithResolver(o.Resolver))
	}
	svc.SSO = sso.New(st, svc.Auth, svc.Secrets, ssoPolicy, site, ssoOpts...)

	if cfg.MetricsAddr != "" {
		svc.Metrics = metrics.New()
		svc.Metrics.Register(metrics.NewPoolCollector(func() metrics.PoolStats { return metrics.PoolStats(st.PoolStats()) }))
		svc.Metrics.Register(metrics.NewJobsCollector(countJobs(st), jobs.Queues))
		svc.issued = svc.Metrics.Issuance(store.KindCertificate, store.KindBadgeAssertion)
		svc.Certificates.ObserveGroups(svc.issued.Grouped)
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
	limiter = svc.Metrics.Limiter(limiter)

	sender := o.EmailSender
	outbox := "" // the folder of .eml files, when email is written there
	if sender == nil && cfg.SMTPURL != "" {
		if sender, err = email.NewSMTPSender(cfg.SMTPURL, nil); err != nil {
			return nil, err
		}
	} else if sender == nil {
		dir := filepath.Join(cfg.DataDir, "outbox")
		outbox = dir
		sender = email.FileSender{Dir: dir}
		logger.InfoContext(ctx, "SMTP_URL is unset: outbound email is written as .eml files", "dir", dir)
	}
	sender = svc.Metrics.EmailSender(tracing.EmailSender(sender, o.TracerProvider), o.Now)
	svc.Email = &email.Worker{Store: st, Sender: sender, Logger: logger,
		Composer: email.Composer{From: from, Domain: cfg.SiteURL.Hostname()},
		Prepare:  svc.prepareEmail, Delivered: svc.Certificates.RecordSent, Now: o.Now}
	if svc.Bulk, err = bulk.New(st, svc.Certificates, logger, bulk.Timing{}); err != nil {
		svc.Close()
		return nil, err
	}
	policy := webhooks.Policy{AllowInsecure: cfg.WebhookAllowInsecureTargets}
	if o.WebhookPolicy != nil {
		policy = *o.WebhookPolicy
	}
	if policy.AllowInsecure {
		logger.WarnContext(ctx, "WEBHOOK_ALLOW_INSECURE_TARGETS is on: webhooks may go to http URLs and to loopback and private "+
			"addresses. This is unsafe (a tenant can reach the service's own network): use it for local development only")
	}
	svc.Webhooks = webhooks.NewService(st, svc.Secrets, policy, o.Now)
	svc.Dispatcher = &webhooks.Dispatcher{Store: st, Secrets: svc.Secrets, Policy: policy, Logger: logger,
		Timeout: o.WebhookTimeout, Now: o.Now, Observer: svc.Metrics.WebhookObserver(),
		Tracer: tracing.Tracer(o.TracerProvider)}
	svc.SVGRecheck = svgrecheck.New(st, o.Now, logger)
	svc.Retention = retention.New(st, site, o.Now)
	svc.Credentials = credentials.New(st, svc.Secrets, site, o.Now)
	svc.Jobs, err = jobqueue.New(st, jobqueue.Workers{Bulk: svc.Bulk, Email: svc.Email, Webhooks: svc.Dispatcher,
		Idempotency: svc.Idempotency, SVGRecheck: svc.SVGRecheck, Credentials: svc.Credentials,
		ErasedFiles: privacy.FilesWorker(outbox), Retention: svc.Retention, PasswordResets: svc.Auth.PasswordResetWorker()}, logger, 0, jobPlugins(o.TracerProvider)...)
	if err != nil {
		svc.Close()
		return nil, fmt.Errorf("building the job queue: %w", err)
	}

	// An account is created with its first issuer key, so that no read ever makes one; a
	// registration is on SIGNUP_PLAN, which must be one of the plans before anything is served.
	svc.Accounts = accounts.New(st, o.Now, accounts.WithIssuerKeys(svc.Credentials), accounts.WithSignupPlan(cfg.SignupPlan))
	if err := svc.Accounts.CheckSignupPlan(ctx); err != nil {
		svc.Close()
		return nil, fmt.Errorf("SIGNUP_PLAN: %w", err)
	}
	svc.Wallet = wallet.New(st, svc.Secrets, svc.Credentials, site, o.Now)
	svc.Verification = verification.New(st, svc.Certificates, verification.Options{SiteURL: site, Now: o.Now, Logger: logger,
		Badges: svc.Badges, Credentials: svc.Credentials, LookupCache: cfg.LookupCacheSize})
	svc.Certificates.KeepRecords(cfg.LookupCacheSize)
	if svc.Metrics != nil {
		svc.Metrics.Register(metrics.NewLookupCacheCollector(func() []metrics.LookupCache {
			return []metrics.LookupCache{{Name: "verification", Stats: svc.Verification.LookupStats()},
				{Name: "certificates", Stats: svc.Certificates.RecordStats()}}
		}))
	}
	changes := changefeed.Watchers{svc.Verification.Watcher(), svc.Certificates.Watcher()}
	svc.changes = changes
	st.OnCommit(func(c changefeed.Committed) {
		if svc.issued != nil {
			svc.issued.Committed(c.Issued, c.CreditsSpent)
		}
		for _, ch := range c.Changed {
			changes.Changed(ch)
		}
	})
	svc.Handler, err = httpapi.New(httpapi.Options{
		Logger: logger, Readiness: st, Auth: svc.Auth, Accounts: svc.Accounts, Events: svc.Events, Attendees: svc.Attendees, Templates: svc.Templates, Certificates: svc.Certificates, Bulk: svc.Bulk, Verification: svc.Verification, Badges: svc.Badges, Webhooks: svc.Webhooks, Credentials: svc.Credentials, Wallet: svc.Wallet, Analytics: analytics.New(st, o.Now), Idempotency: svc.Idempotency,
		Members: svc.Members, SSO: svc.SSO, Retention: svc.Retention, AuditLog: auditlog.New(st), AuditWriter: st,
		Privacy: privacy.New(st, revokers{svc.Certificates, svc.Badges}, privacy.Sources{Attendees: svc.Attendees,
			Certificates: svc.Certificates, Badges: svc.Badges, Wallet: svc.Wallet}, o.Now),
		Limiter: limiter, TrustedProxies: cfg.TrustedProxies, SignupEnabled: cfg.SignupEnabled, RequireVerifiedEmail: cfg.RequireVerifiedEmail,
		Links:             links.New(site),
		StrictMiddlewares: withOperatorContact(o.StrictMiddlewares, cfg.OperatorContact), Metrics: svc.Metrics.Requests(), Tracer: tracing.Tracer(o.TracerProvider),
	})
	if err != nil {
		svc.Close()
		return nil, err
	}
	return svc, nil
}

// countJobs counts River's jobs in the store, for the metrics' collector.
func countJobs(st *store.Store) func(context.Context) ([]metrics.JobCount, error) {
	return func(ctx context.Context) ([]metrics.JobCount, error) {
		counts, err := st.CountJobs(ctx)
		out := make([]metrics.JobCount, len(counts))
		for i, c := range counts {
			out[i] = metrics.JobCount(c)
		}
		return out, err
	}
}

// StoreOptions are the store's options for tracing with tp: pgx's spans, and the trace context
// of the span that inserts a job kept in it. None when tp is nil.
func StoreOptions(tp trace.TracerProvider) []store.Option {
	if tp == nil {
		return nil
	}
	return []store.Option{store.WithTracer(tracing.QueryTracer(tp)), store.WithJobPlugins(tracing.JobPlugin(tp))}
}

// jobPlugins are the job client's plugins for tracing with tp: none when tp is nil.
func jobPlugins(tp trace.TracerProvider) []rivertype.Plugin {
	if tp == nil {
		return nil
	}
	return []rivertype.Plugin{tracing.JobPlugin(tp)}
}

// revokers revoke an erased person's credentials for privacy.Service: the certificates' and
// the badges' own revocations, in the erasure's transaction.
type revokers struct {
	certificates *certificates.Service
	badges       *badges.Service
}

func (r revokers) RevokeErasedCertificate(ctx context.Context, tx *store.Tx, accountID, id uuid.UUID, at time.Time) (bool, error) {
	return r.certificates.RevokeErased(ctx, tx, accountID, id, at)
}

func (r revokers) RevokeErasedAssertion(ctx context.Context, tx *store.Tx, accountID, badgeID, id uuid.UUID, at time.Time) (bool, error) {
	return r.badges.RevokeErased(ctx, tx, accountID, badgeID, id, at)
}
