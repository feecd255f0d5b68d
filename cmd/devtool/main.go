// Command devtool holds the development tasks the Makefile runs: a private PostgreSQL cluster
// for tests, and the contract coverage report.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/certhub/credentiald/cmd/devtool/loadbench"
	"github.com/certhub/credentiald/internal/embeddedpg"
	"github.com/certhub/credentiald/internal/testkit/coverage"
)

const usage = `usage: devtool <command>
  pg-start -dir DIR   start (or reuse) a private PostgreSQL cluster and print its URL
  pg-stop -dir DIR    stop that cluster
  contract-coverage   print which operations and responses the last test run observed
  template-previews -out DIR   render each system template as DIR/template-NAME.png (and lang-NAME.png, German and Japanese)
  badge-previews -out DIR      render generated badge images for three names as DIR/badge-*.png
  api-docs -page FILE          write the API reference page (Redoc and the document inline) and its Go file
  bench-http -bin FILE [-bench-dir DIR] [-profile] [-phase 3s] [-works issue,lookup,import,job]
                               the HTTP load benchmark (make bench-http): the server binary against a bare
                               Echo + pgx server on a fresh durable cluster; -profile writes CPU profiles
                               of the server under each load into DIR; -works runs only the loads named`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "devtool:", err)
		os.Exit(1)
	}
}

func run(cmd string, args []string) error {
	fs := flag.NewFlagSet(cmd, flag.ExitOnError)
	dir := fs.String("dir", ".data/postgres-test", "cluster folder")
	ephemeral := fs.Bool("ephemeral", true, "fsync off (test clusters)")
	out := fs.String("out", "docs", "folder for template previews")
	page := fs.String("page", "gen/docs/index.html", "the API reference page to write")
	specFile := fs.String("spec", "openapi/v1.json", "the OpenAPI document")
	bundle := fs.String("bundle", "docs/api/node_modules/redoc/bundles/redoc.standalone.js", "Redoc's standalone script")
	bin := fs.String("bin", "bin/credentiald", "the server binary (bench-http)")
	benchDir := fs.String("bench-dir", ".data/bench-http", "the work folder of bench-http")
	profile := fs.Bool("profile", false, "bench-http: write CPU profiles of the server under load")
	phase := fs.Duration("phase", 3*time.Second, "bench-http: one phase of load")
	prepared := fs.Int("prepare", 200_000, "bench-http: certificates issued to the account before the loads (0: an empty database)")
	statements := fs.Bool("statements", false, "bench-http: print where PostgreSQL's time goes in each load (pg_stat_statements)")
	works := fs.String("works", "", "bench-http: only these loads, comma-separated (issue, latency, lookup, verify, page, import, job; latency is the issuance at half the bare rate in an open loop, and comes with issue); empty: all")
	covDir := fs.String("coverage-dir", coverage.DefaultDir(), "where test runs record observed responses")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch cmd {
	case "pg-start":
		c, err := embeddedpg.Start(ctx, *dir, embeddedpg.Options{Ephemeral: *ephemeral})
		if err != nil {
			return err
		}
		fmt.Println(c.URL())
		return nil
	case "pg-stop":
		return embeddedpg.StopDir(ctx, *dir)
	case "contract-coverage":
		report, err := coverage.Report(*covDir)
		if err != nil {
			return err
		}
		fmt.Print(report)
		return nil
	case "template-previews":
		return templatePreviews(*out)
	case "badge-previews":
		return badgePreviews(*out)
	case "bench-http":
		return loadbench.Run(ctx, loadbench.Options{Binary: *bin, Dir: *benchDir, Profile: *profile, Statements: *statements, Phase: *phase, Prepared: *prepared,
			Works: strings.FieldsFunc(*works, func(r rune) bool { return r == ',' })})
	case "api-docs":
		return apiDocs(*specFile, *bundle, *page)
	default:
		return fmt.Errorf("unknown command %q\n%s", cmd, usage)
	}
}
