// Package certificates issues certificates and carries out what follows: the snapshot a
// certificate is rendered from, the outbox events, the delivery email with its PDF.
package certificates

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/email"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/templates"
)

// Service issues and manages certificates.
type Service struct {
	store   *store.Store
	siteURL string
	now     func() time.Time
	kick    func() // wakes the email worker
}

// New returns the service. siteURL roots verification links; kick, when set, wakes the email
// worker after a message was recorded.
func New(s *store.Store, siteURL string, now func() time.Time, kick func()) *Service {
	if now == nil {
		now = time.Now
	}
	if kick == nil {
		kick = func() {}
	}
	return &Service{store: s, siteURL: strings.TrimSuffix(siteURL, "/"), now: now, kick: kick}
}

// SetKick sets the function that wakes the email worker (it is built after the service).
func (s *Service) SetKick(kick func()) { s.kick = kick }

// Now is the service's clock.
func (s *Service) Now() time.Time { return s.now() }

// GenerateParams asks for one certificate.
type GenerateParams struct {
	AccountID, EventID, AttendeeID, TemplateID uuid.UUID
	SendEmail                                  bool
	ExpiresAt                                  *time.Time
	Draft                                      bool
	// Also writes, in the issuing transaction, the caller's record of the outcome.
	Also func(ctx context.Context, tx *store.Tx, c store.Certificate) error
}

// Generate issues one certificate (see store.IssueCertificate for the rules).
func (s *Service) Generate(ctx context.Context, p GenerateParams) (store.Certificate, error) {
	now := s.now()
	if p.ExpiresAt != nil && !p.ExpiresAt.After(now) {
		return store.Certificate{}, apperr.Invalid("body.expiresAt", "must be in the future")
	}
	sent := false
	c, err := s.store.IssueCertificate(ctx, store.Issue{AccountID: p.AccountID, EventID: p.EventID, AttendeeID: p.AttendeeID,
		TemplateID: p.TemplateID, Now: now, ExpiresAt: p.ExpiresAt, Draft: p.Draft, Snapshot: s.snapshot, Also: p.Also,
		Effects: func(ctx context.Context, tx *store.Tx, src store.IssueSource, c store.Certificate) error {
			if err := tx.Outbox(ctx, c.AccountID, "certificate.issued", now, eventBody("certificate.issued", now, eventData(c))); err != nil {
				return err
			}
			if !p.SendEmail {
				return nil
			}
			sent = true
			_, err := s.recordEmail(ctx, tx, snapshotOf(c), c)
			return err
		}})
	if err != nil {
		return store.Certificate{}, err
	}
	if sent {
		s.kick()
	}
	return c, nil
}

// Get returns a certificate of the account.
func (s *Service) Get(ctx context.Context, accountID, id uuid.UUID) (store.Certificate, error) {
	return s.store.FindCertificate(ctx, accountID, id, s.now())
}

// ListOfEvent returns a page of an event's certificates; another account's event is 404.
func (s *Service) ListOfEvent(ctx context.Context, accountID, eventID uuid.UUID, p store.Page) ([]store.Certificate, int, error) {
	if err := s.store.RequireEvent(ctx, accountID, eventID, "path.id"); err != nil {
		return nil, 0, err
	}
	return s.store.ListEventCertificates(ctx, accountID, eventID, p, s.now())
}

// Credits returns the account's credit figures for this month.
func (s *Service) Credits(ctx context.Context, accountID uuid.UUID) (store.Credits, error) {
	return s.store.Credits(ctx, accountID, s.now())
}

// VerificationURL is the public page of a certificate.
func (s *Service) VerificationURL(code string) string { return s.siteURL + "/verify/" + code }

// Snapshot is what a certificate is rendered from, frozen at issuance until regenerate.
type Snapshot struct {
	Template struct {
		ID          uuid.UUID       `json:"id"`
		Name        string          `json:"name"`
		PageSize    string          `json:"pageSize"`
		Orientation string          `json:"orientation"`
		Layout      json.RawMessage `json:"layout"`
	} `json:"template"`
	Recipient struct {
		FirstName string `json:"firstName"`
		LastName  string `json:"lastName"`
		Email     string `json:"email"`
	} `json:"recipient"`
	Event struct {
		Name     string    `json:"name"`
		Date     time.Time `json:"date"`
		Location string    `json:"location,omitempty"`
	} `json:"event"`
	Issuer struct {
		Name    string `json:"name"`
		Website string `json:"website,omitempty"`
		Logo    string `json:"logo,omitempty"`
		// Email sender details, so that resending says what the first email said.
		EmailFromName string `json:"emailFromName,omitempty"`
		EmailReplyTo  string `json:"emailReplyTo,omitempty"`
	} `json:"issuer"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

func (s *Service) snapshot(src store.IssueSource, _ store.Certificate) (json.RawMessage, error) {
	var snap Snapshot
	t := src.Template
	snap.Template.ID, snap.Template.Name, snap.Template.PageSize, snap.Template.Orientation, snap.Template.Layout =
		t.ID, t.Name, t.PageSize, t.Orientation, t.Layout
	a := src.Attendee
	snap.Recipient.FirstName, snap.Recipient.LastName, snap.Recipient.Email = a.FirstName, a.LastName, a.Email
	snap.Event.Name, snap.Event.Date, snap.Event.Location = src.Event.Name, src.Event.EventDate.UTC(), deref(src.Event.Location)
	b := src.Branding
	snap.Issuer.Name, snap.Issuer.Website, snap.Issuer.Logo = deref(b.IssuerName), deref(b.Website), deref(b.Logo)
	snap.Issuer.EmailFromName, snap.Issuer.EmailReplyTo = deref(b.EmailFromName), deref(b.EmailReplyTo)
	snap.Metadata = a.Metadata
	return json.Marshal(snap)
}

func snapshotOf(c store.Certificate) Snapshot {
	var snap Snapshot
	_ = json.Unmarshal(c.Snapshot, &snap) // written by snapshot above
	return snap
}

// PDF renders a certificate from its snapshot.
func (s *Service) PDF(c store.Certificate) ([]byte, error) {
	t, d, err := s.renderInput(c)
	if err != nil {
		return nil, err
	}
	return render.PDF(t, d)
}

// PNG renders a certificate's page from its snapshot.
func (s *Service) PNG(c store.Certificate) ([]byte, error) {
	t, d, err := s.renderInput(c)
	if err != nil {
		return nil, err
	}
	return render.PNG(t, d, render.PreviewDPI)
}

func (s *Service) renderInput(c store.Certificate) (render.Template, render.Data, error) {
	snap := snapshotOf(c)
	t, err := templates.ForRendering(store.Template{PageSize: snap.Template.PageSize, Orientation: snap.Template.Orientation, Layout: snap.Template.Layout})
	if err != nil {
		return render.Template{}, render.Data{}, err
	}
	d := render.Data{
		Recipient:       render.Recipient{FirstName: snap.Recipient.FirstName, LastName: snap.Recipient.LastName, Email: snap.Recipient.Email},
		Event:           render.Event{Name: snap.Event.Name, Date: snap.Event.Date, Location: snap.Event.Location},
		Certificate:     render.Certificate{Number: c.Number, ExpiresAt: c.ExpiresAt},
		IssuerName:      snap.Issuer.Name,
		IssuerLogo:      snap.Issuer.Logo,
		VerificationURL: s.VerificationURL(c.VerificationCode),
		Metadata:        snap.Metadata,
	}
	if c.IssuedAt != nil {
		d.Certificate.IssuedAt = *c.IssuedAt
	}
	return t, d, nil
}

// linkMarker stands in the recorded body for the verification link: the link carries a
// recipient token, made when the email is sent, so that the token never rests in the database
// (only its hash does, on the certificate).
const linkMarker = "[[verification-link]]"

// recordEmail records the delivery email of a certificate in tx.
func (s *Service) recordEmail(ctx context.Context, tx *store.Tx, snap Snapshot, c store.Certificate) (store.EmailDelivery, error) {
	issuer := cmp.Or(snap.Issuer.Name, "The organisers")
	body := fmt.Sprintf("Hello %s,\n\nyour certificate for %s is attached (%s).\n\nAnyone can verify it at:\n%s\n\n%s\n",
		c.FirstName, snap.Event.Name, c.Number, linkMarker, issuer)
	m := store.OutboundEmail{AccountID: c.AccountID, Kind: "certificate", CertificateID: &c.ID, ToAddress: c.Email,
		ToName: strings.TrimSpace(c.FirstName + " " + c.LastName), FromName: cmp.Or(snap.Issuer.EmailFromName, snap.Issuer.Name),
		Subject: "Your certificate: " + snap.Event.Name, BodyText: body}
	if snap.Issuer.EmailReplyTo != "" {
		rt := snap.Issuer.EmailReplyTo
		m.ReplyTo = &rt
	}
	return tx.Email(ctx, m)
}

// eventBody is the shape every outbox event is delivered in.
func eventBody(eventType string, at time.Time, data any) map[string]any {
	return map[string]any{"eventType": eventType, "timestamp": at.UTC().Format(time.RFC3339), "data": data}
}

func eventData(c store.Certificate) map[string]any {
	return map[string]any{"certificateId": c.ID, "certificateNumber": c.Number, "eventId": c.EventID,
		"attendeeId": c.AttendeeID, "status": c.Status, "verificationCode": c.VerificationCode}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// PrepareEmail completes a certificate's delivery email as it is sent: a fresh recipient token
// goes into its link (its hash onto the certificate, replacing an earlier one), and the PDF is
// rendered from the snapshot and attached.
func (s *Service) PrepareEmail(ctx context.Context, d *store.EmailDelivery) ([]email.Attachment, error) {
	if d.Kind != "certificate" || d.CertificateID == nil {
		return nil, nil
	}
	c, err := s.store.FindCertificate(ctx, d.AccountID, *d.CertificateID, s.now())
	if err != nil {
		return nil, err
	}
	if c.Status == "revoked" || c.Status == "draft" {
		return nil, &email.PermanentError{Err: fmt.Errorf("certificate %s is %s", c.Number, c.Status)}
	}
	pdf, err := s.PDF(c)
	if err != nil {
		return nil, err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, err
	}
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	hash := sha256.Sum256([]byte(token))
	if err := s.store.SetRecipientToken(ctx, c.ID, hash[:]); err != nil {
		return nil, err
	}
	d.BodyText = strings.ReplaceAll(d.BodyText, linkMarker, s.VerificationURL(c.VerificationCode)+"?t="+token)
	return []email.Attachment{{Name: c.Number + ".pdf", ContentType: "application/pdf", Data: pdf}}, nil
}

// Revoke revokes a certificate and writes certificate.revoked; revoking a revoked one answers
// it unchanged, with no second event.
func (s *Service) Revoke(ctx context.Context, accountID, id uuid.UUID, reason *string, code string) (store.Certificate, error) {
	if code == "" {
		code = "other"
	}
	if reason != nil && strings.TrimSpace(*reason) == "" {
		reason = nil
	}
	return s.revoke(ctx, accountID, id, reason, code)
}

func (s *Service) revoke(ctx context.Context, accountID, id uuid.UUID, reason *string, code string) (store.Certificate, error) {
	now := s.now().UTC()
	return s.store.RevokeCertificate(ctx, store.Revocation{AccountID: accountID, ID: id, Reason: reason, ReasonCode: code, Now: now,
		Effects: func(ctx context.Context, tx *store.Tx, c store.Certificate) error {
			data := eventData(c)
			data["revokedAt"], data["reason"], data["reasonCode"] = now.Format(time.RFC3339), reason, code
			return tx.Outbox(ctx, c.AccountID, "certificate.revoked", now, eventBody("certificate.revoked", now, data))
		}})
}

// Delete removes a draft; an issued certificate is never erased: it is revoked with reason
// code deleted_by_issuer and kept.
func (s *Service) Delete(ctx context.Context, accountID, id uuid.UUID) error {
	deleted, err := s.store.DeleteDraft(ctx, accountID, id)
	if err != nil || deleted {
		return err
	}
	_, err = s.revoke(ctx, accountID, id, nil, "deleted_by_issuer")
	return err
}

// Regenerate re-renders a certificate from the current attendee and template data.
func (s *Service) Regenerate(ctx context.Context, accountID, id uuid.UUID) (store.Certificate, error) {
	return s.store.RegenerateCertificate(ctx, accountID, id, s.now(), s.snapshot)
}

// Download renders a certificate's PDF; a draft is not issued and answers 409.
func (s *Service) Download(ctx context.Context, accountID, id uuid.UUID) (store.Certificate, []byte, error) {
	c, err := s.Get(ctx, accountID, id)
	if err != nil {
		return c, nil, err
	}
	if c.Status == "draft" {
		return c, nil, apperr.New(apperr.Conflict, "A draft is not issued; issue it to download its PDF.")
	}
	pdf, err := s.PDF(c)
	return c, pdf, err
}

// Send records the delivery email of a certificate (link with a fresh recipient token, PDF
// attached when sent).
func (s *Service) Send(ctx context.Context, accountID, id uuid.UUID) (store.EmailDelivery, error) {
	d, err := s.store.SendCertificate(ctx, accountID, id, s.now(), func(ctx context.Context, tx *store.Tx, c store.Certificate) (store.EmailDelivery, error) {
		return s.recordEmail(ctx, tx, snapshotOf(c), c)
	})
	if err == nil {
		s.kick()
	}
	return d, err
}

// SendBulk records the delivery emails of an event's valid certificates (or of those named).
func (s *Service) SendBulk(ctx context.Context, accountID, eventID uuid.UUID, ids []uuid.UUID, onlyUnsent bool) (queued, skipped int, err error) {
	if err := s.store.RequireEvent(ctx, accountID, eventID, "body.eventId"); err != nil {
		return 0, 0, err
	}
	queued, skipped, err = s.store.SendCertificates(ctx, accountID, eventID, ids, onlyUnsent, s.now(),
		func(ctx context.Context, tx *store.Tx, c store.Certificate) (store.EmailDelivery, error) {
			return s.recordEmail(ctx, tx, snapshotOf(c), c)
		})
	if err == nil && queued > 0 {
		s.kick()
	}
	return queued, skipped, err
}

// Deliveries lists the account's certificate and badge emails.
func (s *Service) Deliveries(ctx context.Context, accountID uuid.UUID, f store.EmailFilter, p store.Page) ([]store.EmailDelivery, int, error) {
	return s.store.ListCredentialEmails(ctx, accountID, f, p)
}
