package jobs

import (
	"github.com/google/uuid"
	"github.com/riverqueue/river"
)

// RecheckSVGs checks the stored SVGs again under the upload check of Version
// (render.SVGCheckVersion), one batch a job: the rows of Stage ("branding", "badges",
// "templates"; "" is the first) after the key After. Each job queues the next batch's in the
// transaction that writes its own, so the work resumes where its last batch committed.
type RecheckSVGs struct {
	Version int       `json:"version"`
	Stage   string    `json:"stage,omitempty"`
	After   uuid.UUID `json:"after"`
}

// Kind is the job's kind in River.
func (RecheckSVGs) Kind() string { return "svg_recheck" }

// InsertOpts: unique by its arguments, so that each start queues the first batch at most once
// and a batch worked twice (its process died after its commit) queues its successor once. A
// failure (drawing ran out of time on a busy machine, the database was away) is retried on
// River's schedule.
func (RecheckSVGs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMaintenance, MaxAttempts: 10, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}
