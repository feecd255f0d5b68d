package httpapi_test

import (
	"testing"

	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/verification"
)

// Credentials signed per second through the service path: find the code, read the entry, the
// certificate and the keys, build, open the key and sign. Each iteration signs (a fresh
// service, so its cache is empty); "Cached" is the same request answered from the cache.
func BenchmarkSignCredentialThroughTheService(b *testing.B) {
	s := newIssuing(b)
	c := s.issue(b, "Ada", "Lovelace", nil)
	env := s.env
	fresh := func() *verification.Service {
		signer := credentials.New(env.Store, env.Service.Secrets, env.Config.SiteURL.String(), nil)
		return verification.New(env.Store, env.Service.Certificates, verification.Options{SiteURL: env.Config.SiteURL.String(),
			Badges: env.Service.Badges, Credentials: signer})
	}
	for _, form := range []credentials.Form{credentials.FormDataIntegrity, credentials.FormJWT} {
		b.Run(string(form), func(b *testing.B) {
			for b.Loop() {
				if _, err := fresh().SignedCredential(b.Context(), c.Data.VerificationCode, form, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("Cached", func(b *testing.B) {
		v := fresh()
		for b.Loop() {
			if _, err := v.SignedCredential(b.Context(), c.Data.VerificationCode, credentials.FormDataIntegrity, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}
