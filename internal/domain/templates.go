package domain

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Template is a certificate template: an account's own, or a read-only system template.
type Template struct {
	ID          uuid.UUID
	AccountID   *uuid.UUID // nil: a system template
	Name        string
	Description *string
	Active      bool
	PageSize    string
	Orientation string
	Layout      json.RawMessage
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// System reports whether the template is a read-only system template.
func (t Template) System() bool { return t.AccountID == nil }
