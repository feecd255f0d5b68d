package domain

import (
	"time"

	"github.com/google/uuid"
)

// OutboundEmail is a message to record for the email worker.
type OutboundEmail struct {
	AccountID        uuid.UUID
	Kind             string // certificate, badge, api_key_created, notice
	CertificateID    *uuid.UUID
	BadgeAssertionID *uuid.UUID
	ToAddress        string
	ToName           string
	FromName         string
	ReplyTo          *string
	Subject          string
	BodyText         string
	// Locale is the language the message is written in; its HTML part speaks it too.
	Locale string
}

// EmailDelivery is a recorded message and how its delivery went.
type EmailDelivery struct {
	OutboundEmail
	ID            uuid.UUID
	Status        EmailDeliveryStatus
	Attempts      int
	LastError     *string
	NextAttemptAt time.Time
	SentAt        *time.Time
	CreatedAt     time.Time
}

// EmailFilter narrows a list of credential deliveries.
type EmailFilter struct {
	EventID, CertificateID *uuid.UUID
	Status                 *EmailDeliveryStatus
}

// EmailDeliveryStatus is where an outbound email is.
type EmailDeliveryStatus string

// An email is queued until it is sent or has failed for good.
const (
	EmailQueued EmailDeliveryStatus = "queued"
	EmailSent   EmailDeliveryStatus = "sent"
	EmailFailed EmailDeliveryStatus = "failed"
)
