package domain

import (
	"time"

	"github.com/google/uuid"
)

// Account is an organisation using the service.
type Account struct {
	ID        uuid.UUID
	Name      string
	Plan      string
	CreatedAt time.Time
}

// User is a person who signs in to an account.
type User struct {
	ID        uuid.UUID
	AccountID uuid.UUID
	Email     string
	Name      string
	Role      string
}

// Client is where a request comes from: the client's address and its User-Agent.
type Client struct {
	IP, UserAgent string
}
