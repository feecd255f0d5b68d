#!/usr/bin/env bash
# What `make test` needs beyond Go, checked before any test runs: a fresh clone either gets
# what can be installed without privileges (the independent verifiers' npm packages, from
# their lock files) or stops here saying what is missing and how to install it. Nothing is
# skipped silently: with this check passed, no test skips for want of a tool.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
have() { command -v "$1" >/dev/null 2>&1; }

if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! have initdb && [ -z "${TEST_DATABASE_URL:-}" ]; then
  missing+=("PostgreSQL (apt-get install postgresql), or set TEST_DATABASE_URL")
fi
if ! have redis-server && [ -z "${TEST_REDIS_URL:-}" ]; then
  missing+=("redis-server, for the shared rate limiter's tests (apt-get install redis-server), or set TEST_REDIS_URL")
fi
if [ -z "${CHROMIUM_PATH:-}" ] && ! have chromium && ! have chromium-browser && ! have google-chrome-stable && ! have headless-shell; then
  missing+=("Chromium, for the verification page's browser tests (apt-get install chromium), or set CHROMIUM_PATH")
fi
if ! have node || ! have npm; then
  missing+=("Node.js and npm, for the independent verifiers in test/vc-verify (apt-get install nodejs npm)")
fi
if ! have promtool; then
  missing+=("promtool, which lints the scraped /metrics (apt-get install prometheus)")
fi
if ! have gcc; then
  missing+=("gcc, which the race detector and sqlc need (apt-get install gcc)")
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "make test needs, and this machine lacks:" >&2
  for m in "${missing[@]}"; do echo "  - $m" >&2; done
  exit 1
fi

# The npm packages of the tests (the independent verifiers; axe-core, which the browser tests
# run in the pages): installed from their lock files when missing or out of date.
for dir in test/vc-verify test/a11y; do
  lock=$dir/package-lock.json
  stamp=$dir/node_modules/.package-lock.json
  if [ ! -f "$stamp" ] || [ "$lock" -nt "$stamp" ]; then
    echo "installing the npm packages of $dir (npm ci)" >&2
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >&2
  fi
done
