package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
)

// IdempotencyClaim takes a key for a request, identified by its fingerprint, from Now until
// Now+Lease; a completed answer is kept until Now+Keep.
type IdempotencyClaim struct {
	AccountID   uuid.UUID
	Key         string
	Fingerprint []byte
	Now         time.Time
	Lease, Keep time.Duration
}

// IdempotencyRecord is what holds a key: the request's fingerprint and, once it succeeded, its
// answer (nil while it runs).
type IdempotencyRecord struct {
	Fingerprint []byte
	Response    *domain.StoredResponse
}

// ClaimIdempotencyKey takes a key in one statement: true when it was free (or its record had
// expired, or its holder's lease lapsed with the same request); false when another record
// holds it (FindIdempotencyKey reads it).
func (d queries) ClaimIdempotencyKey(ctx context.Context, c IdempotencyClaim) (bool, error) {
	n, err := d.q.ClaimIdempotencyKey(ctx, db.ClaimIdempotencyKeyParams{AccountID: c.AccountID, Key: c.Key,
		Fingerprint: c.Fingerprint, Now: c.Now, LockedUntil: c.Now.Add(c.Lease), ExpiresAt: c.Now.Add(c.Keep)})
	return n == 1, mapError(err)
}

// FindIdempotencyKey reads the record that holds a key. ErrNotFound: none does.
func (d queries) FindIdempotencyKey(ctx context.Context, accountID uuid.UUID, key string) (IdempotencyRecord, error) {
	row, err := d.q.GetIdempotencyKey(ctx, db.GetIdempotencyKeyParams{AccountID: accountID, Key: key})
	if err != nil {
		return IdempotencyRecord{}, mapError(err)
	}
	rec := IdempotencyRecord{Fingerprint: row.Fingerprint}
	if row.ResponseStatus != nil {
		h := map[string][]string{}
		if err := json.Unmarshal(row.ResponseHeaders, &h); err != nil {
			return IdempotencyRecord{}, err
		}
		rec.Response = &domain.StoredResponse{Status: int(*row.ResponseStatus), Header: h, Body: row.ResponseBody}
	}
	return rec, nil
}

// CompleteIdempotencyKey remembers a request's answer under its key.
func (d queries) CompleteIdempotencyKey(ctx context.Context, accountID uuid.UUID, key string, fingerprint []byte, r domain.StoredResponse) error {
	h, err := json.Marshal(r.Header)
	if err != nil {
		return err
	}
	status := int32(r.Status)
	return mapError(d.q.CompleteIdempotencyKey(ctx, db.CompleteIdempotencyKeyParams{AccountID: accountID, Key: key,
		Fingerprint: fingerprint, ResponseStatus: &status, ResponseBody: r.Body, ResponseHeaders: h}))
}

// ReleaseIdempotencyKey forgets the running request that holds a key.
func (d queries) ReleaseIdempotencyKey(ctx context.Context, accountID uuid.UUID, key string, fingerprint []byte) error {
	return mapError(d.q.ReleaseIdempotencyKey(ctx, db.ReleaseIdempotencyKeyParams{AccountID: accountID, Key: key, Fingerprint: fingerprint}))
}

// DeleteExpiredIdempotencyKeys deletes the keys whose time is over at now and returns how
// many.
func (d queries) DeleteExpiredIdempotencyKeys(ctx context.Context, now time.Time) (int, error) {
	n, err := d.q.DeleteExpiredIdempotencyKeys(ctx, now)
	return int(n), mapError(err)
}
