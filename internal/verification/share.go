package verification

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"github.com/certhub/credentiald/internal/apperr"
)

// Networks are the places a credential can be shared to, in the order the page offers them.
var Networks = []string{"linkedin", "x", "facebook", "email"}

// Share records a share of the credential to network and returns where to send the visitor.
// An unknown network is not found, like an unknown code.
func (s *Service) Share(ctx context.Context, code, network string, v Visitor) (string, error) {
	c, err := s.find(ctx, code)
	if err != nil {
		return "", err
	}
	target := s.ShareURL(c, network)
	if target == "" {
		e := apperr.New(apperr.NotFound, "No such network to share to: use linkedin, x, facebook or email.")
		e.Details = []apperr.Detail{{Field: "network", Message: "must be linkedin, x, facebook or email"}}
		return "", e
	}
	if v.counted() {
		s.Activity.record(c, s.now(), shared)
	}
	return target, nil
}

// CopiedLink records that the page's link was copied: a share.
func (s *Service) CopiedLink(ctx context.Context, code string, v Visitor) error {
	c, err := s.find(ctx, code)
	if err != nil {
		return err
	}
	if v.counted() {
		s.Activity.record(c, s.now(), shared)
	}
	return nil
}

// ShareURL is the address that shares c on network, or "" for a network not offered.
// LinkedIn's add-to-profile form takes months 1 to 12.
func (s *Service) ShareURL(c Credential, network string) string {
	page := s.links.Verification(c.Code)
	switch network {
	case "linkedin":
		q := url.Values{}
		q.Set("startTask", "CERTIFICATION_NAME")
		q.Set("name", c.Name)
		q.Set("organizationName", c.Issuer.Name)
		q.Set("issueYear", strconv.Itoa(c.IssuedAt.Year()))
		q.Set("issueMonth", strconv.Itoa(int(c.IssuedAt.Month())))
		if c.ExpiresAt != nil {
			q.Set("expirationYear", strconv.Itoa(c.ExpiresAt.Year()))
			q.Set("expirationMonth", strconv.Itoa(int(c.ExpiresAt.Month())))
		}
		q.Set("certUrl", page)
		q.Set("certId", c.certID())
		return "https://www.linkedin.com/profile/add?" + q.Encode()
	case "x":
		q := url.Values{}
		q.Set("text", c.Name+", issued by "+c.Issuer.Name)
		q.Set("url", page)
		return "https://x.com/intent/post?" + q.Encode()
	case "facebook":
		return "https://www.facebook.com/sharer/sharer.php?" + url.Values{"u": {page}}.Encode()
	case "email":
		subject := c.Name + ": " + c.RecipientName
		body := c.RecipientName + " holds \"" + c.Name + "\", issued by " + c.Issuer.Name + ". Verify it here:\n" + page
		// mailto wants %20 for spaces: some mail programs show a '+' as it is.
		return "mailto:?subject=" + mailtoEscape(subject) + "&body=" + mailtoEscape(body)
	}
	return ""
}

// certID is what identifies the credential to its holder's profile: its number, else its code.
func (c Credential) certID() string {
	if c.Number != "" {
		return c.Number
	}
	return c.Code
}

func mailtoEscape(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}
