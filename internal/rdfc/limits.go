package rdfc

import (
	"crypto"
	"errors"
	"fmt"
)

// The default limits. The work limits leave about twice the room that the W3C suite's
// computable poison graphs need (test044 to 046: 468 Hash N-Degree Quads calls and 9,060 steps
// each) and stop its clique (test074, at least 3.6 million calls) in a few milliseconds;
// ordinary data needs a call or two per blank node whose first-degree hash is shared, and most
// of it none.
const (
	DefaultMaxQuads            = 100_000
	DefaultMaxBlankNodes       = 10_000
	DefaultMaxHashNDegreeCalls = 1_000
	DefaultMaxSteps            = 20_000
)

// Options are the hash algorithm and the limits of one canonicalization; a zero field takes its
// default.
type Options struct {
	// Hash is crypto.SHA256 (the default), crypto.SHA384 or crypto.SHA512.
	Hash                crypto.Hash
	MaxQuads            int
	MaxBlankNodes       int
	MaxHashNDegreeCalls int
	// MaxSteps bounds the work inside Hash N-Degree Quads that the calls alone do not: a call
	// on a blank node of many quads hashes each related blank node, and a blank node related
	// alike to k others tries k! permutations, most of them without a call.
	MaxSteps int
}

func (o Options) withDefaults() Options {
	for _, f := range []struct {
		v   *int
		def int
	}{
		{&o.MaxQuads, DefaultMaxQuads}, {&o.MaxBlankNodes, DefaultMaxBlankNodes},
		{&o.MaxHashNDegreeCalls, DefaultMaxHashNDegreeCalls}, {&o.MaxSteps, DefaultMaxSteps},
	} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
	if o.Hash == 0 {
		o.Hash = crypto.SHA256
	}
	return o
}

// Limit names what a LimitError counted.
type Limit string

// The limits.
const (
	LimitQuads            Limit = "quads"
	LimitBlankNodes       Limit = "blank nodes"
	LimitHashNDegreeCalls Limit = "Hash N-Degree Quads calls"
	LimitSteps            Limit = "Hash N-Degree Quads steps"
)

// ErrLimit matches every *LimitError (errors.Is); errors.As finds which limit it was.
var ErrLimit = errors.New("rdfc: limit")

// LimitError says that a dataset went over a limit; canonicalization stopped there. Over a
// work limit (Hash N-Degree Quads calls or steps), the dataset is what RDFC-1.0 §7.1 calls a
// poison dataset.
type LimitError struct {
	Limit Limit
	Max   int
}

func (e *LimitError) Error() string {
	if e.Work() {
		return fmt.Sprintf("rdfc: canonicalization needs more than %d %s (a poison dataset, RDFC-1.0 §7.1)", e.Max, e.Limit)
	}
	return fmt.Sprintf("rdfc: more than %d %s", e.Max, e.Limit)
}

// Is makes errors.Is(err, ErrLimit) true for every LimitError.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// Work reports whether the work counter stopped (rather than the size of the dataset).
func (e *LimitError) Work() bool { return e.Limit == LimitHashNDegreeCalls || e.Limit == LimitSteps }

// Stats is the work one canonicalization did.
type Stats struct {
	HashNDegreeCalls, Permutations, Steps int
}
