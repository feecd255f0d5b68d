# credentiald: `make help` lists the targets.
GO          ?= go
REDOCLY     ?= npx --yes @redocly/cli@2.77.0
PG_TEST_DIR ?= .data/postgres-test
COVERAGE_DIR = .data/contract-coverage
# oasdiff lives in a module of its own (internal/tools/oasdiff): see the comment in its go.mod.
OASDIFF     = $(GO) -C internal/tools/oasdiff run github.com/oasdiff/oasdiff
# golangci-lint too (internal/tools/golangci-lint), built into bin/ and run from the root.
GOLANGCI_LINT = bin/golangci-lint
CONTRACT_RELEASED = openapi/released/v1.json
CONTRACT_BASE     ?= $(CONTRACT_RELEASED)
CONTRACT_REVISION ?= openapi/v1.json
CLIENT_TS   = test/client-ts
APP         = web/app

.DEFAULT_GOAL := help
.PHONY: help run build test bench bench-http fuzz generate lint check contract-gate release-contract client-ts app contract-coverage docs screenshots catalogs clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

run: build ## Serve the API (a private PostgreSQL under .data/ when DATABASE_URL is unset)
	exec ./bin/credentiald serve

build: ## Build the binaries into bin/
	$(GO) build -o bin/credentiald ./cmd/credentiald

test: ## Run every test, with the race detector, against a real PostgreSQL (private cluster unless TEST_DATABASE_URL is set); first checks the tools it needs (test/prereqs.sh)
	@bash test/prereqs.sh
	@rm -rf $(COVERAGE_DIR)
	@if [ -n "$$TEST_DATABASE_URL" ]; then \
		GO="$(GO)" bash test/run.sh ; \
	else \
		url=$$($(GO) run ./cmd/devtool pg-start -dir $(PG_TEST_DIR)) || exit 1; \
		TEST_DATABASE_URL=$$url GO="$(GO)" bash test/run.sh ; rc=$$?; \
		$(GO) run ./cmd/devtool pg-stop -dir $(PG_TEST_DIR); \
		exit $$rc; \
	fi
	@$(GO) run ./cmd/devtool contract-coverage | head -1

FUZZTIME ?= 3m
FUZZ_TARGETS = ./internal/render:FuzzRenderAnyText ./internal/render:FuzzCheckImage ./internal/attendees:FuzzParseCSV ./internal/httpmw:FuzzRequestBodies \
	./internal/vc:FuzzBoundedCanonicalize ./internal/rdfc:FuzzCanonicalFormIsStable

fuzz: ## Fuzz each target for FUZZTIME (default 3m); `make test` runs their seed corpora, and a crasher lands in the package's testdata/fuzz
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; echo "fuzz $$name ($$pkg) for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

bench: ## Run the benchmarks (speed and memory are measured here, never in tests)
	@url=$${TEST_DATABASE_URL:-$$($(GO) run ./cmd/devtool pg-start -dir $(PG_TEST_DIR))} && \
		TEST_DATABASE_URL=$$url $(GO) test -run '^$$' -bench . -benchmem ./...

BENCH_HTTP_FLAGS ?=

bench-http: build ## Load the server binary over HTTP beside a bare Echo + pgx server on a fresh durable PostgreSQL, print rates, p50/p99 and ratios (a few minutes; BENCH_HTTP_FLAGS=-profile writes CPU profiles)
	$(GO) run ./cmd/devtool bench-http -bin bin/credentiald $(BENCH_HTTP_FLAGS)
	$(GO) test -run '^$$' -bench '^BenchmarkPDFBesideBareMaroto$$' -benchtime 200x ./internal/render

docs: ## Render the system templates' previews and generated badge images into docs/ (shown in the README)
	@$(GO) run ./cmd/devtool template-previews -out docs
	@$(GO) run ./cmd/devtool badge-previews -out docs

screenshots: ## Take the verification page's screenshots in docs/ with Chromium (shown in the README)
	@url=$${TEST_DATABASE_URL:-$$($(GO) run ./cmd/devtool pg-start -dir $(PG_TEST_DIR))} && \
		UPDATE_SCREENSHOTS=1 TEST_DATABASE_URL=$$url $(GO) test -count=1 -run '^(TestVerificationPageInABrowser|TestBadgePageInABrowser|TestTheWalletPageInABrowser|TestTheVerificationPageInGermanAndJapaneseInABrowser)$$' ./internal/httpapi

contract-coverage: ## Print which operations and documented responses the last `make test` observed
	@$(GO) run ./cmd/devtool contract-coverage

generate: ## Regenerate gen/ from openapi/v1.json (oapi-codegen, the /docs page) and db/ (sqlc), and the pages' Go from their templ files
	$(GO) run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen -config oapi-codegen.yaml openapi/v1.json
	rm -f gen/db/*.go # sqlc never deletes: a query file or a batch query removed leaves no stale Go
	$(GO) run github.com/sqlc-dev/sqlc/cmd/sqlc generate
	rm -f internal/site/*_templ.go # templ never deletes: a page removed leaves no stale Go
	$(GO) run github.com/a-h/templ/cmd/templ generate -log-level warn -path internal/site
	@test -d docs/api/node_modules || (cd docs/api && npm ci --no-audit --no-fund)
	$(GO) run ./cmd/devtool api-docs -page gen/docs/index.html

lint: ## Lint the OpenAPI document, the SQL and the Go code (golangci-lint with the layer rules of .golangci.yml)
	$(REDOCLY) lint --config redocly.yaml --format=stylish openapi/v1.json
	$(GO) run github.com/sqlc-dev/sqlc/cmd/sqlc vet
	$(GO) -C internal/tools/golangci-lint build -o $(abspath $(GOLANGCI_LINT)) github.com/golangci/golangci-lint/v2/cmd/golangci-lint
	$(GOLANGCI_LINT) run ./...
	@GOLANGCI_LINT=$(GOLANGCI_LINT) bash test/layers-selftest.sh

contract-gate: ## Fail on any breaking change of openapi/v1.json against the released snapshot (oasdiff)
	@$(OASDIFF) breaking --fail-on ERR --color never --allow-external-refs=false \
		$(abspath $(CONTRACT_BASE)) $(abspath $(CONTRACT_REVISION)) || { \
		echo "contract-gate: refused $(CONTRACT_REVISION) against $(CONTRACT_BASE) (oasdiff says why above)."; \
		echo "A deliberate break: run 'make release-contract' and commit the snapshot in the same commit."; \
		exit 1; }

release-contract: ## Take openapi/v1.json as the released contract the gate compares with (commit the snapshot)
	cp openapi/v1.json $(CONTRACT_RELEASED)

client-ts: $(CLIENT_TS)/node_modules/.package-lock.json ## Generate a TypeScript client from the document and compile a program against it (tsc --strict)
	cd $(CLIENT_TS) && npm run --silent check

# npm ci again whenever the lock file changes (npm writes node_modules/.package-lock.json).
$(CLIENT_TS)/node_modules/.package-lock.json: $(CLIENT_TS)/package-lock.json
	cd $(CLIENT_TS) && npm ci --no-audit --no-fund

app: $(APP)/node_modules/.package-lock.json ## Build the application (web/app: types from the document, tsc, vitest, vite) into internal/webapp/dist
	cd $(APP) && npm run --silent check

$(APP)/node_modules/.package-lock.json: $(APP)/package-lock.json
	cd $(APP) && npm ci --no-audit --no-fund

check: generate lint contract-gate client-ts app catalogs ## Regenerate, lint, and fail if anything differs from what is committed
	@test -z "$$(gofmt -l cmd internal openapi db gen)" || { echo "gofmt needed:"; gofmt -l cmd internal openapi db gen; exit 1; }
	@$(GO) mod tidy && $(GO) -C internal/tools/oasdiff mod tidy && $(GO) -C internal/tools/golangci-lint mod tidy && \
		git diff --exit-code -- go.mod go.sum internal/tools/oasdiff/go.mod internal/tools/oasdiff/go.sum \
			internal/tools/golangci-lint/go.mod internal/tools/golangci-lint/go.sum || { echo "go.mod/go.sum are not tidy"; exit 1; }
	@git diff --exit-code --stat -- gen openapi db 'internal/site/*_templ.go' internal/webapp/dist || { echo "generated code differs from what is committed: run make generate (and make app) and commit"; exit 1; }
	@test -z "$$(git ls-files --others --exclude-standard gen 'internal/site/*_templ.go' internal/webapp/dist)" || { echo "untracked generated files:"; git ls-files --others --exclude-standard gen 'internal/site/*_templ.go' internal/webapp/dist; exit 1; }
	@echo "check: ok"

catalogs: ## Fail when a language's catalog (internal/locale/catalog) misses or adds an id, or drops a field, against English
	$(GO) test -count=1 -run '^TestCatalogsComplete$$' ./internal/locale

clean: ## Stop the test cluster and remove bin/ and .data/
	-$(GO) run ./cmd/devtool pg-stop -dir $(PG_TEST_DIR)
	rm -rf bin .data
