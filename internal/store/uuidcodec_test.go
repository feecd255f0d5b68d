package store

import (
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
)

// A uuid.UUID is written in binary, its 16 bytes as they are, by the wrapper's plan: not by
// pgx's driver.Valuer plan, which fails in binary, builds an error and goes through text.
func TestGoogleUUIDsAreWrittenInBinaryDirectly(t *testing.T) {
	id := uuid.Must(uuid.NewV7())
	plain, wrapped := pgtype.NewMap(), pgtype.NewMap()
	registerUUID(wrapped)
	if _, ok := wrapped.PlanEncode(pgtype.UUIDOID, pgtype.BinaryFormatCode, id).(*googleUUIDEncodePlan); !ok {
		t.Fatalf("plan %T, want the wrapper's", wrapped.PlanEncode(pgtype.UUIDOID, pgtype.BinaryFormatCode, id))
	}
	for _, v := range []any{id, &id} {
		buf, err := wrapped.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, v, nil)
		if err != nil || string(buf) != string(id[:]) {
			t.Fatalf("%T: %x, %v; want %x", v, buf, err, id[:])
		}
	}
	encode := func(m *pgtype.Map) func() {
		return func() { _, _ = m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, id, make([]byte, 0, 64)) }
	}
	before, after := testing.AllocsPerRun(100, encode(plain)), testing.AllocsPerRun(100, encode(wrapped))
	if after >= before {
		t.Fatalf("allocations per UUID: %v with the wrapper, %v without", after, before)
	}
	t.Logf("allocations per UUID written: %v without the wrapper, %v with it", before, after)
}
