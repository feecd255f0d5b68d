#!/usr/bin/env bash
# Every test, with the race detector, against TEST_DATABASE_URL (make test sets it). Most of
# the tests are internal/httpapi's, which as one test binary took 6 to 8 minutes on a loaded
# 2-core machine, too near go test's 10-minute timeout: its tests run as two binaries (names
# A to H, and the rest, about half the time each), beside the other packages'. Every test
# binary is built first, once, so the three runs share the build instead of racing to it.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
split='^Test[A-H]'

build_log=$(mktemp)
if ! $GO test -race -count=1 -run '^$' ./... >"$build_log" 2>&1; then
  cat "$build_log"
  rm -f "$build_log"
  exit 1
fi
rm -f "$build_log"

# Tests whose work is load rather than concurrency, or that bound the production build's CPU,
# run without the race detector, which multiplies costs up to twentyfold; under it they skip
# themselves (testkit.RaceDetector).
unraced='^(TestAVenueOfRecipientsBehindOneAddressOpensItsPages|TestPoisonPresentationsCostMillisecondsOfCPU)$'
# The application's browser tests (internal/httpapi/app_*_browser_test.go) go at Chromium's
# pace, not the server's concurrency, which the other tests race: they run in that run too, so
# that the rest of internal/httpapi stays far from go test's timeout.
app='^TestTheApplication'

others=$($GO list ./... | grep -v '/internal/httpapi$')
# shellcheck disable=SC2086 # a list of packages
$GO test -race -count=1 $others &
a=$!
$GO test -race -count=1 -run "$split" ./internal/httpapi &
b=$!
$GO test -race -count=1 -skip "$split|$app" ./internal/httpapi &
c=$!
# Alongside: the three runs above leave the cores idle a third of the time (waiting on
# PostgreSQL and on each other's locks), which this run's build of its binary takes.
$GO test -count=1 -run "$unraced|$app" ./internal/httpapi &
d=$!
rc=0
for p in $a $b $c $d; do
  wait "$p" || rc=1
done
exit $rc
