//go:build race

package testkit

// RaceDetector says whether the tests run with the race detector: a test whose work is load,
// not concurrency (hundreds of images encoded, at twenty times the cost under the detector),
// runs in `make test`'s pass without it (test/run.sh) and skips itself here.
const RaceDetector = true
