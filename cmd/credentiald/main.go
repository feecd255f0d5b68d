// Command credentiald serves the credential issuing API and carries the operator commands.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/app"
	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/logging"
	"github.com/certhub/credentiald/internal/outbound"
	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/sso"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/webhooks"
)

const usage = `usage: credentiald [command]

commands:
  serve                 serve the API (the default)
  migrate               apply the database migrations and exit
  account create        create an account with its owner
      -email E -name N -account-name A [-plan free|pro|business|unlimited]
      the plan is SIGNUP_PLAN's (free unless set) when -plan is left out
      the password is read from $CREDENTIALD_PASSWORD, or from standard input
  account set-plan      change an account's plan
      -account ID -plan P
  account sso-domain add
      -account ID -domain D
                        verify a single sign-on domain for an account without its DNS record (the
                        operator vouches that the domain is the account's)
  secrets rotate        seal every secret kept at rest under SECRETS_KEY (those sealed under a key
                        of SECRETS_KEY_PREVIOUS, and TOTP secrets stored in plain; issuer keys too)
  keys rotate           start signing an account's new credentials with a new issuer key; the
      -account ID       retired key stays in the DID document, and what it signed keeps verifying

Configuration comes from the environment; see docs/operations.md.`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "credentiald:", describe(err))
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	cfg, err := config.FromOS()
	if err != nil {
		return err
	}
	logger, stopLog := logging.NewBuffered(os.Stderr, cfg.LogLevel)
	defer func() { _ = stopLog() }()
	cmd := "serve"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return app.Serve(ctx, cfg, logger, nil)
	case "migrate":
		_, closeDB, err := app.Database(ctx, cfg, logger)
		if err != nil {
			return err
		}
		closeDB()
		fmt.Fprintln(stdout, "migrations applied")
		return nil
	case "account":
		if len(args) == 0 {
			return fmt.Errorf("account: want create, set-plan or sso-domain add\n%s", usage)
		}
		box, st, closeDB, err := sealedStore(ctx, cfg, logger)
		if err != nil {
			return err
		}
		defer closeDB()
		// An account is created with its issuer key, sealed under SECRETS_KEY; without -plan it
		// is on SIGNUP_PLAN, as a registered one is.
		svc := accounts.New(st, nil, accounts.WithIssuerKeys(credentials.New(st, box, cfg.SiteURL.String(), nil)),
			accounts.WithSignupPlan(cfg.SignupPlan))
		switch args[0] {
		case "create":
			return accountCreate(ctx, svc, args[1:], stdin, stdout)
		case "set-plan":
			return accountSetPlan(ctx, svc, args[1:], stdout)
		case "sso-domain":
			if len(args) < 2 || args[1] != "add" {
				return fmt.Errorf("account sso-domain: want add\n%s", usage)
			}
			return accountSSODomainAdd(ctx, sso.New(st, nil, box, outbound.Policy{}, cfg.SiteURL.String()), args[2:], stdout)
		}
		return fmt.Errorf("account %s: unknown command\n%s", args[0], usage)
	case "secrets":
		if len(args) != 1 || args[0] != "rotate" {
			return fmt.Errorf("secrets: want rotate\n%s", usage)
		}
		return secretsRotate(ctx, cfg, logger, stdout)
	case "keys":
		if len(args) == 0 || args[0] != "rotate" {
			return fmt.Errorf("keys: want rotate\n%s", usage)
		}
		return keysRotate(ctx, cfg, logger, args[1:], stdout)
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q\n%s", cmd, usage)
}

func accountCreate(ctx context.Context, svc *accounts.Service, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("account create", flag.ContinueOnError)
	email := fs.String("email", "", "owner's email")
	name := fs.String("name", "", "owner's name")
	accountName := fs.String("account-name", "", "account (organisation) name")
	plan := fs.String("plan", "", "plan: free, pro, business or unlimited (default: SIGNUP_PLAN, free unless set)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	password := os.Getenv("CREDENTIALD_PASSWORD")
	if password == "" {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && line == "" {
			return fmt.Errorf("account create: no password: set CREDENTIALD_PASSWORD or pipe it on standard input")
		}
		password = strings.TrimRight(line, "\r\n")
	}
	acc, usr, err := svc.Create(ctx, accounts.CreateParams{Email: *email, Password: password, Name: *name, AccountName: *accountName, Plan: *plan})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "account %s (%s, plan %s) created with owner %s <%s>\n", acc.ID, acc.Name, acc.Plan, usr.Name, usr.Email)
	return nil
}

func accountSetPlan(ctx context.Context, svc *accounts.Service, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("account set-plan", flag.ContinueOnError)
	id := fs.String("account", "", "account id")
	plan := fs.String("plan", "", "plan: free, pro, business or unlimited")
	if err := fs.Parse(args); err != nil {
		return err
	}
	accountID, err := uuid.Parse(*id)
	if err != nil {
		return fmt.Errorf("account set-plan: -account must be an account id (UUID)")
	}
	acc, err := svc.SetPlan(ctx, accountID, *plan)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "account %s is now on plan %s\n", acc.ID, acc.Plan)
	return nil
}

func accountSSODomainAdd(ctx context.Context, svc *sso.Service, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("account sso-domain add", flag.ContinueOnError)
	id := fs.String("account", "", "account id")
	name := fs.String("domain", "", "domain, like example.org")
	if err := fs.Parse(args); err != nil {
		return err
	}
	accountID, err := uuid.Parse(*id)
	if err != nil {
		return fmt.Errorf("account sso-domain add: -account must be an account id (UUID)")
	}
	if !sso.ValidDomain(*name) {
		return fmt.Errorf("account sso-domain add: -domain must be a domain name, like example.org")
	}
	d, err := svc.AddVerifiedDomain(ctx, accountID, *name)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "domain %s is verified for single sign-on of account %s\n", d.Domain, accountID)
	return nil
}

// sealedStore opens the secrets box and the database, as the commands that read or write
// sealed secrets need both.
func sealedStore(ctx context.Context, cfg config.Config, logger *slog.Logger) (*secretbox.Box, *store.Store, func(), error) {
	box, err := app.Secrets(cfg, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	st, closeDB, err := app.Database(ctx, cfg, logger)
	return box, st, closeDB, err
}

// secretsRotate reseals the secrets at rest under the current key: run it once every instance
// has the new SECRETS_KEY (and the old key in SECRETS_KEY_PREVIOUS); afterwards the old key can go.
func secretsRotate(ctx context.Context, cfg config.Config, logger *slog.Logger, stdout io.Writer) error {
	box, st, closeDB, err := sealedStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer closeDB()
	hooks, err := webhooks.ResealSecrets(ctx, st, box)
	if err != nil {
		return err
	}
	totp, err := auth.SealTOTPSecrets(ctx, st, box, true)
	if err != nil {
		return err
	}
	keys, err := credentials.ResealKeys(ctx, st, box)
	if err != nil {
		return err
	}
	ssoSecrets, err := sso.ResealSecrets(ctx, st, box)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "sealed under the current key: %d webhook signing secrets, %d TOTP secrets, %d issuer keys, %d single sign-on client secrets; every other secret already was\n", hooks, totp, keys, ssoSecrets)
	return nil
}

// keysRotate makes a new issuer key for an account and retires its current one.
func keysRotate(ctx context.Context, cfg config.Config, logger *slog.Logger, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("keys rotate", flag.ContinueOnError)
	id := fs.String("account", "", "account id")
	if err := fs.Parse(args); err != nil {
		return err
	}
	accountID, err := uuid.Parse(*id)
	if err != nil {
		return fmt.Errorf("keys rotate: -account must be an account id (UUID)")
	}
	box, st, closeDB, err := sealedStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer closeDB()
	r, err := credentials.New(st, box, cfg.SiteURL.String(), nil).Rotate(ctx, accountID)
	if err != nil {
		return err
	}
	if r.RetiredVerificationMethod != nil {
		fmt.Fprintf(stdout, "retired %s (still listed: what it signed keeps verifying)\n", *r.RetiredVerificationMethod)
	}
	fmt.Fprintf(stdout, "account %s now signs new credentials with %s\n", accountID, r.VerificationMethod)
	return nil
}

// describe shows an application error as its message and details, never a stack of causes.
func describe(err error) string {
	e, ok := apperr.As(err)
	if !ok {
		return err.Error()
	}
	s := e.Message
	for _, d := range e.Details {
		s += fmt.Sprintf("\n  %s: %s", d.Field, d.Message)
	}
	return s
}
