package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/apperr"
)

// StoredResponse is the answer remembered under an idempotency key.
type StoredResponse struct {
	Status int
	Header http.Header
	Body   []byte
}

// ClaimIdempotencyKey takes a key for a request with fingerprint for lease. It returns nil when
// the request may run; the stored answer when the same request already succeeded; 422
// IDEMPOTENCY_KEY_REUSED for another request's key; 409 IDEMPOTENCY_IN_PROGRESS while the
// first request still runs (or its lease has not lapsed).
func (s *Store) ClaimIdempotencyKey(ctx context.Context, accountID uuid.UUID, key string, fingerprint []byte, lease time.Duration) (*StoredResponse, error) {
	n, err := s.q.ClaimIdempotencyKey(ctx, db.ClaimIdempotencyKeyParams{AccountID: accountID, Key: key, Fingerprint: fingerprint, LeaseSeconds: lease.Seconds()})
	if err != nil {
		return nil, fmt.Errorf("claiming an idempotency key: %w", mapError(err))
	}
	if n == 1 {
		return nil, nil
	}
	row, err := s.q.GetIdempotencyKey(ctx, db.GetIdempotencyKeyParams{AccountID: accountID, Key: key})
	if errors.Is(err, pgx.ErrNoRows) {
		// Released between the two statements: the caller may try again.
		return nil, apperr.New(apperr.IdempotencyInProgress, "A request with this Idempotency-Key is being processed; retry shortly.")
	} else if err != nil {
		// Any other failure is the database's, not a running request: never a 409.
		return nil, fmt.Errorf("reading a held idempotency key: %w", mapError(err))
	}
	if string(row.Fingerprint) != string(fingerprint) {
		e := apperr.New(apperr.IdempotencyKeyReused, "This Idempotency-Key was used with another request within the last 24 hours; use a new key.")
		e.Details = []apperr.Detail{{Field: "header.Idempotency-Key", Message: "was used with another method, path or body"}}
		return nil, e
	}
	if row.ResponseStatus == nil {
		return nil, apperr.New(apperr.IdempotencyInProgress, "A request with this Idempotency-Key is still being processed; retry shortly.")
	}
	h := http.Header{}
	_ = json.Unmarshal(row.ResponseHeaders, &h)
	return &StoredResponse{Status: int(*row.ResponseStatus), Header: h, Body: row.ResponseBody}, nil
}

// CompleteIdempotencyKey remembers a request's successful answer under its key.
func (s *Store) CompleteIdempotencyKey(ctx context.Context, accountID uuid.UUID, key string, fingerprint []byte, r StoredResponse) error {
	h, err := json.Marshal(r.Header)
	if err != nil {
		return err
	}
	status := int32(r.Status)
	return mapError(s.q.CompleteIdempotencyKey(ctx, db.CompleteIdempotencyKeyParams{AccountID: accountID, Key: key,
		Fingerprint: fingerprint, ResponseStatus: &status, ResponseBody: r.Body, ResponseHeaders: h}))
}

// ReleaseIdempotencyKey forgets a request that did not succeed.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, accountID uuid.UUID, key string, fingerprint []byte) error {
	return mapError(s.q.ReleaseIdempotencyKey(ctx, db.ReleaseIdempotencyKeyParams{AccountID: accountID, Key: key, Fingerprint: fingerprint}))
}
