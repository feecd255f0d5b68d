package certificates

import (
	"cmp"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/templates"
)

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
		// Description is the event's, as the certificate's credential describes it.
		Description string `json:"description,omitempty"`
		// Locale is the event's language as the certificate was issued: its PDF, its emails
		// and its credential's texts speak it. Absent from certificates issued before
		// languages, which speak English.
		Locale string `json:"locale,omitempty"`
	} `json:"event"`
	Issuer struct {
		Name    string `json:"name"`
		Website string `json:"website,omitempty"`
		Logo    string `json:"logo,omitempty"`
		// Color is the branding's primary colour: it takes the place of the template's accent.
		Color string `json:"color,omitempty"`
		// Email sender details, so that resending says what the first email said.
		EmailFromName string `json:"emailFromName,omitempty"`
		EmailReplyTo  string `json:"emailReplyTo,omitempty"`
		// Signatories sign the certificate as they did when it was issued, until regenerate.
		Signatories []SnapshotSignatory `json:"signatories,omitempty"`
	} `json:"issuer"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// SnapshotSignatory is a signatory of the branding as a certificate was issued with it.
type SnapshotSignatory struct {
	Name  string `json:"name"`
	Title string `json:"title,omitempty"`
	Image string `json:"image,omitempty"` // data URI of the signature
}

// snapshotFrom freezes what a certificate shows: template, recipient, event, issuer.
func snapshotFrom(src source) (json.RawMessage, error) {
	var snap Snapshot
	t := src.Template
	snap.Template.ID, snap.Template.Name, snap.Template.PageSize, snap.Template.Orientation, snap.Template.Layout =
		t.ID, t.Name, t.PageSize, t.Orientation, t.Layout
	a := src.Attendee
	snap.Recipient.FirstName, snap.Recipient.LastName, snap.Recipient.Email = a.FirstName, a.LastName, a.Email
	snap.Event.Name, snap.Event.Date, snap.Event.Location = src.Event.Name, src.Event.EventDate.UTC(), store.Deref(src.Event.Location)
	snap.Event.Description = store.Deref(src.Event.Description)
	snap.Event.Locale = src.Event.Locale
	b := src.Branding
	// The account's name stands in for an unset issuer name: nothing a recipient receives
	// leaves the issuer unnamed (the PDF's signature, the email, the credential).
	snap.Issuer.Name = cmp.Or(store.Deref(b.IssuerName), src.AccountName)
	snap.Issuer.Website, snap.Issuer.Logo = store.Deref(b.Website), store.Deref(b.Logo)
	snap.Issuer.Color = store.Deref(b.PrimaryColor)
	snap.Issuer.EmailFromName, snap.Issuer.EmailReplyTo = store.Deref(b.EmailFromName), store.Deref(b.EmailReplyTo)
	for _, sg := range b.Signatories {
		snap.Issuer.Signatories = append(snap.Issuer.Signatories, SnapshotSignatory{Name: sg.Name, Title: sg.Title, Image: store.Deref(sg.SignatureImage)})
	}
	snap.Metadata = a.Metadata
	return json.Marshal(snap)
}

func snapshotOf(c domain.Certificate) Snapshot {
	var snap Snapshot
	_ = json.Unmarshal(c.Snapshot, &snap) // written by snapshotFrom
	return snap
}

// PDF renders a certificate from its snapshot.
func (s *Service) PDF(c domain.Certificate) ([]byte, error) {
	t, d, err := s.renderInput(c)
	if err != nil {
		return nil, err
	}
	return render.PDF(t, d)
}

// PNG renders a certificate's page from its snapshot.
func (s *Service) PNG(c domain.Certificate) ([]byte, error) {
	t, d, err := s.renderInput(c)
	if err != nil {
		return nil, err
	}
	return render.PNG(t, d, render.PreviewDPI)
}

// ShareCard draws a certificate's share card (1200x630 PNG): its page, its event's name and its
// issuer, on the issuer's colour, whatever the template's orientation, under label (what it is:
// "Certificate", or "Revoked certificate").
func (s *Service) ShareCard(c domain.Certificate, label string) ([]byte, error) {
	t, d, err := s.renderInput(c)
	if err != nil {
		return nil, err
	}
	pic, err := render.ShareCardPicture(t, d)
	if err != nil {
		return nil, err
	}
	snap := snapshotOf(c)
	return render.ShareCard(render.ShareCardInput{Picture: pic, Label: label, Name: snap.Event.Name,
		Issuer: d.IssuerName, BrandColor: snap.Issuer.Color})
}

func (s *Service) renderInput(c domain.Certificate) (render.Template, render.Data, error) {
	snap := snapshotOf(c)
	t, err := templates.ForRenderingIn(domain.Template{ID: snap.Template.ID, PageSize: snap.Template.PageSize,
		Orientation: snap.Template.Orientation, Layout: snap.Template.Layout}, snap.Event.Locale)
	if err != nil {
		return render.Template{}, render.Data{}, err
	}
	d := render.Data{
		Recipient:       render.Recipient{FirstName: snap.Recipient.FirstName, LastName: snap.Recipient.LastName, Email: snap.Recipient.Email},
		Event:           render.Event{Name: snap.Event.Name, Date: snap.Event.Date, Location: snap.Event.Location},
		Certificate:     render.Certificate{Number: c.Number, ExpiresAt: c.ExpiresAt},
		IssuerName:      snap.Issuer.Name,
		IssuerLogo:      snap.Issuer.Logo,
		BrandColor:      snap.Issuer.Color,
		Signatories:     make([]render.Signatory, 0, len(snap.Issuer.Signatories)),
		VerificationURL: s.links.Verification(c.VerificationCode),
		Metadata:        snap.Metadata,
	}
	for _, sg := range snap.Issuer.Signatories {
		d.Signatories = append(d.Signatories, render.Signatory{Name: sg.Name, Title: sg.Title, Image: sg.Image})
	}
	if c.IssuedAt != nil {
		d.Certificate.IssuedAt = *c.IssuedAt
	}
	return t, d, nil
}

// eventBody is the shape every outbox event is delivered in.
func eventBody(eventType string, at time.Time, data map[string]any) map[string]any {
	return map[string]any{"eventType": eventType, "timestamp": at.UTC().Format(time.RFC3339), "data": data}
}

// eventData is what every certificate event says of its certificate.
func eventData(c domain.Certificate) map[string]any {
	return map[string]any{"certificateId": c.ID, "certificateNumber": c.Number, "eventId": c.EventID,
		"attendeeId": c.AttendeeID, "status": c.Status, "verificationCode": c.VerificationCode}
}
