// Package svgrecheck checks the SVGs stored before a stricter upload check again, and
// replaces each one that fails today's check by its rasterisation as a PNG (the contract's
// "SVGs stored before a stricter upload check are checked again by a migration job; one that
// fails is rasterised to PNG"). The stored images are the branding's logos and signature
// images, the badges' images and the images of the templates' layouts; a certificate's
// snapshot keeps its images as issued (they are only drawn, by a renderer that fetches and runs
// nothing).
//
// The work is a River job (jobs.RecheckSVGs) in bounded batches: each job reads a few rows
// after a key, rasterises at most a few images, writes the rows that change only if they still
// hold what it read, and queues the next batch's job in the same transaction; the last one
// records the check's version as finished (svg_rechecks). Each start queues the first job
// (Enqueue) until then, unique in River, so the recheck runs once per version of the check, and
// resumes where its last batch committed after a restart. A batch worked twice changes
// nothing the second time: what it replaced passes.
package svgrecheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/store"
)

// The stages of the recheck, in their order.
const (
	stageBranding  = "branding"
	stageBadges    = "badges"
	stageTemplates = "templates"
)

var nextStage = map[string]string{stageBranding: stageBadges, stageBadges: stageTemplates}

// A batch reads at most rowsPerBatch rows (a template's layout may be 3 MB) and rasterises at
// most rasterisedPerBatch images (up to a second of CPU each; see render's svgWorkBudget), so
// that a job takes seconds and its memory stays bounded.
const (
	rowsPerBatch       = 16
	rasterisedPerBatch = 8
)

// The limits of each place an image is stored in (the contract's): a rasterisation is scaled
// down until it fits its place's.
const (
	maxImageBytes      = accounts.MaxLogoBytes // logos, badge images, a template's images
	maxSignatureBytes  = accounts.MaxSignatureImageBytes
	maxBackgroundBytes = 2 << 20
)

// Service runs the recheck.
type Service struct {
	store  *store.Store
	now    func() time.Time
	logger *slog.Logger
}

// New returns the recheck over st, on the clock now (nil: the system's).
func New(st *store.Store, now func() time.Time, logger *slog.Logger) *Service {
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &Service{store: st, now: now, logger: logger}
}

// Enqueue queues the recheck under today's check (render.SVGCheckVersion) unless it has
// finished; a process calls it when it starts. River keeps the job unique, so instances that
// start together queue it once.
func (s *Service) Enqueue(ctx context.Context) error {
	done, err := s.store.SVGRecheckFinished(ctx, render.SVGCheckVersion)
	if err != nil || done {
		return err
	}
	_, err = store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		return struct{}{}, tx.InsertJob(ctx, jobs.RecheckSVGs{Version: render.SVGCheckVersion})
	})
	return err
}

// Worker is the River worker of the recheck's jobs.
func (s *Service) Worker() river.Worker[jobs.RecheckSVGs] { return &worker{s: s} }

type worker struct {
	river.WorkerDefaults[jobs.RecheckSVGs]
	s *Service
}

// Timeout leaves a batch room for its rasterisations, each bounded by render's deadline.
func (w *worker) Timeout(*river.Job[jobs.RecheckSVGs]) time.Duration { return 2 * time.Minute }

func (w *worker) Work(ctx context.Context, job *river.Job[jobs.RecheckSVGs]) error {
	return w.s.runBatch(ctx, job.Args, job.Attempt >= job.MaxAttempts)
}

// batch is what one job found and decided.
type batch struct {
	checked, replaced, rasterised int
	last                          uuid.UUID // the key of the last row judged
	full                          bool      // rows may follow
}

// runBatch judges one batch of args's stage and writes what it decided, with the next batch's
// job, in one transaction. A job of an older check's version does nothing: the start queues
// today's.
func (s *Service) runBatch(ctx context.Context, args jobs.RecheckSVGs, lastTry bool) error {
	if args.Version != render.SVGCheckVersion {
		return nil
	}
	stage := args.Stage
	if stage == "" {
		stage = stageBranding
	}
	j := judge{lastTry: lastTry}
	var writes []func(tx *store.Tx) (bool, error)
	var b batch
	now := s.now()
	switch stage {
	case stageBranding:
		rows, err := s.store.BrandingImagesAfter(ctx, args.After, rowsPerBatch)
		if err != nil {
			return err
		}
		b.full = len(rows) == rowsPerBatch
		for _, r := range rows {
			next := r
			changed := false
			if r.Logo != nil {
				logo, ok, err := j.image(*r.Logo, maxImageBytes)
				if err != nil {
					return err
				}
				if ok {
					next.Logo, changed = &logo, true
				}
			}
			sigs, ok, err := j.json(r.Signatories, func(string) int { return maxSignatureBytes })
			if err != nil {
				return err
			}
			if ok {
				next.Signatories, changed = sigs, true
			}
			if changed {
				old := r
				writes = append(writes, func(tx *store.Tx) (bool, error) { return tx.ReplaceBrandingImages(ctx, old, next, now) })
			}
			b.last = r.AccountID
			if j.rasterised >= rasterisedPerBatch {
				b.full = true
				break
			}
		}
	case stageBadges:
		rows, err := s.store.BadgeImagesAfter(ctx, args.After, rowsPerBatch)
		if err != nil {
			return err
		}
		b.full = len(rows) == rowsPerBatch
		for _, r := range rows {
			img, ok, err := j.image(r.Image, maxImageBytes)
			if err != nil {
				return err
			}
			if ok {
				old := r
				writes = append(writes, func(tx *store.Tx) (bool, error) { return tx.ReplaceBadgeImage(ctx, old.ID, old.Image, img, now) })
			}
			b.last = r.ID
			if j.rasterised >= rasterisedPerBatch {
				b.full = true
				break
			}
		}
	case stageTemplates:
		rows, err := s.store.TemplateLayoutsAfter(ctx, args.After, rowsPerBatch)
		if err != nil {
			return err
		}
		b.full = len(rows) == rowsPerBatch
		for _, r := range rows {
			layout, ok, err := j.json(r.Layout, func(parent string) int {
				if parent == "background" {
					return maxBackgroundBytes
				}
				return maxImageBytes
			})
			if err != nil {
				return err
			}
			if ok {
				old := r
				writes = append(writes, func(tx *store.Tx) (bool, error) {
					return tx.ReplaceTemplateLayout(ctx, old.ID, old.Layout, layout, now)
				})
			}
			b.last = r.ID
			if j.rasterised >= rasterisedPerBatch {
				b.full = true
				break
			}
		}
	default:
		return fmt.Errorf("svg recheck: unknown stage %q", stage)
	}
	b.checked, b.rasterised = j.checked, j.rasterised
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		for _, write := range writes {
			ok, err := write(tx)
			if err != nil {
				return struct{}{}, err
			}
			if ok {
				b.replaced++
			}
		}
		switch {
		case b.full:
			return struct{}{}, tx.InsertJob(ctx, jobs.RecheckSVGs{Version: args.Version, Stage: stage, After: b.last})
		case nextStage[stage] != "":
			return struct{}{}, tx.InsertJob(ctx, jobs.RecheckSVGs{Version: args.Version, Stage: nextStage[stage]})
		}
		return struct{}{}, tx.FinishSVGRecheck(ctx, args.Version, now)
	})
	if err != nil {
		return fmt.Errorf("svg recheck of %s after %s: %w", stage, args.After, err)
	}
	if b.replaced > 0 {
		s.logger.WarnContext(ctx, "stored SVGs that fail today's upload check were replaced by PNGs",
			"stage", stage, "rows_replaced", b.replaced, "svgs_checked", b.checked, "check_version", args.Version)
	}
	if !b.full && nextStage[stage] == "" {
		s.logger.InfoContext(ctx, "every stored SVG was checked again", "check_version", args.Version)
	}
	return nil
}

// judge decides the images of one batch, counting what it checked and rasterised.
type judge struct {
	lastTry             bool
	checked, rasterised int
}

// image is what uri becomes: ok when it is an SVG that fails today's check, replaced by its
// PNG of at most maxBytes.
func (j *judge) image(uri string, maxBytes int) (string, bool, error) {
	if !strings.HasPrefix(uri, "data:image/svg+xml") {
		return "", false, nil
	}
	j.checked++
	png, replace, err := render.RecheckSVG(uri, maxBytes, j.lastTry)
	if replace {
		j.rasterised++
	}
	return png, replace, err
}

// json is doc with every SVG image among its strings judged, each within the limit of the
// object it sits in (limit is given that object's key in its parent: "background" for a
// template's background); ok when one was replaced.
func (j *judge) json(doc json.RawMessage, limit func(parent string) int) (json.RawMessage, bool, error) {
	if !bytes.Contains(doc, []byte("data:image/svg+xml")) {
		return nil, false, nil
	}
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber() // numbers are written back as they were read
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false, fmt.Errorf("svg recheck: reading a stored JSON document: %w", err)
	}
	changed := false
	var walk func(v any, parent string) (any, error)
	walk = func(v any, parent string) (any, error) {
		switch v := v.(type) {
		case string:
			png, ok, err := j.image(v, limit(parent))
			if err != nil || !ok {
				return v, err
			}
			changed = true
			return png, nil
		case map[string]any:
			for k, item := range v {
				key := k // what the item holds sits in the object under k
				if _, isString := item.(string); isString {
					key = parent // a string sits in this object, under parent
				}
				w, err := walk(item, key)
				if err != nil {
					return nil, err
				}
				v[k] = w
			}
		case []any:
			for i, item := range v {
				w, err := walk(item, parent)
				if err != nil {
					return nil, err
				}
				v[i] = w
			}
		}
		return v, nil
	}
	out, err := walk(v, "")
	if err != nil || !changed {
		return nil, false, err
	}
	b, err := json.Marshal(out)
	return b, err == nil, err
}
