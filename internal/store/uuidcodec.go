package store

import (
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
)

// pgx has no plan that writes a github.com/google/uuid UUID in PostgreSQL's binary format: it
// falls back to the value's driver.Valuer, whose string the uuid codec cannot write in binary
// either, so every UUID argument failed once, built an error with fmt.Errorf, and was then
// written as text. Under a 50,000-row import (three UUIDs a row, through COPY) that was three
// quarters of the server's CPU (make bench-http -profile). tryWrapGoogleUUID hands pgx the
// same 16 bytes as a pgtype.UUID, which it writes directly.

type googleUUIDEncodePlan struct{ next pgtype.EncodePlan }

func (p *googleUUIDEncodePlan) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *googleUUIDEncodePlan) Encode(value any, buf []byte) ([]byte, error) {
	return p.next.Encode(pgtype.UUID{Bytes: value.(uuid.UUID), Valid: true}, buf)
}

func tryWrapGoogleUUID(value any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
	if _, ok := value.(uuid.UUID); ok {
		return &googleUUIDEncodePlan{}, pgtype.UUID{}, true
	}
	return nil, nil, false
}

// registerUUID makes a connection's type map write uuid.UUID values directly.
func registerUUID(m *pgtype.Map) {
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{tryWrapGoogleUUID}, m.TryWrapEncodePlanFuncs...)
}
