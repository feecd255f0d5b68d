//go:build !race

package testkit

// RaceDetector says whether the tests run with the race detector (see race_on.go).
const RaceDetector = false
