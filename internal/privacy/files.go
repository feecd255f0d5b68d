package privacy

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/riverqueue/river"

	"github.com/certhub/credentiald/internal/jobs"
)

// filesWorker deletes the files an erasure's emails left in the outbox folder (the .eml files
// written when SMTP_URL is unset, named <created>-<delivery id>.eml).
type filesWorker struct {
	river.WorkerDefaults[jobs.EraseEmailFiles]
	dir string
}

// FilesWorker is the worker of jobs.EraseEmailFiles over the outbox folder dir ("" when email
// goes out by SMTP: then no file was kept, and the job has nothing to do).
func FilesWorker(dir string) river.Worker[jobs.EraseEmailFiles] { return &filesWorker{dir: dir} }

func (w *filesWorker) Work(_ context.Context, job *river.Job[jobs.EraseEmailFiles]) error {
	if w.dir == "" {
		return nil
	}
	var errs []error
	for _, id := range job.Args.DeliveryIDs {
		matches, err := filepath.Glob(filepath.Join(w.dir, "*-"+id.String()+".eml"))
		if err != nil {
			return err
		}
		for _, m := range matches {
			if err := os.Remove(m); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
