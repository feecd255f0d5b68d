package credentials_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/vc"
)

// A revalidation that names the credential's ETag costs one query and no signature: a service
// whose secrets cannot open the issuer's key, and whose cache holds nothing, answers it 304,
// though it fails to answer the same request without the tag.
func TestAMatchingIfNoneMatchCostsOneQueryAndNoSignature(t *testing.T) {
	t.Parallel()
	w := newSigning(t)
	ctx := context.Background()
	refs := map[string]credentials.Ref{"certificate": w.certificate(t), "badge assertion": w.assertion(t)}
	cannotSign := credentials.New(w.st, testkit.SecretBox(t), site, w.clock.Now)
	for name, ref := range refs {
		for _, form := range []credentials.Form{credentials.FormDataIntegrity, credentials.FormJWT} {
			signed, err := w.creds.Credential(ctx, ref, form, "")
			require.NoError(t, err)
			require.NotEmpty(t, signed.ETag)

			w.queries.take()
			got, err := cannotSign.Credential(ctx, ref, form, `"other", W/`+signed.ETag)
			require.NoError(t, err, "%s %s", name, form)
			if diff := cmp.Diff(credentials.Signed{ETag: signed.ETag, NotModified: true}, got); diff != "" {
				t.Errorf("%s %s revalidated (-want +got):\n%s", name, form, diff)
			}
			if diff := cmp.Diff([]string{"CredentialVersion"}, w.queries.take()); diff != "" {
				t.Errorf("%s %s revalidated with (-want +got):\n%s", name, form, diff)
			}
			_, err = cannotSign.Credential(ctx, ref, form, "")
			require.ErrorContains(t, err, "opening issuer key", "%s %s: answering it in full signs", name, form)
		}
	}
}

// A credential's ETag changes whenever its signed bytes would, and only validates the form it
// was given for.
func TestTheCredentialETagChangesWithWhatItSays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("form", func(t *testing.T) {
		t.Parallel()
		w := newSigning(t)
		ref := w.certificate(t)
		asJSON := w.sign(t, ref, credentials.FormDataIntegrity)
		asJWT := w.sign(t, ref, credentials.FormJWT)
		require.NotEqual(t, asJSON.ETag, asJWT.ETag)
		w.requireStale(t, ref, credentials.FormJWT, asJSON.ETag)
	})

	// Revoking sets the credential's bit in its status list and leaves its bytes as they
	// were; its tag moves all the same (revocation is part of its version), at the cost of one
	// signature.
	t.Run("revocation", func(t *testing.T) {
		t.Parallel()
		w := newSigning(t)
		ref := w.certificate(t)
		before := w.sign(t, ref, credentials.FormDataIntegrity)
		w.advance(time.Minute)
		_, err := w.certs.Revoke(ctx, w.account, ref.ID, nil, "issued_in_error")
		require.NoError(t, err)
		w.requireStale(t, ref, credentials.FormDataIntegrity, before.ETag)
		after := w.sign(t, ref, credentials.FormDataIntegrity)
		require.NotEqual(t, before.ETag, after.ETag)
	})

	// A key made at or before the time a credential was fixed signs it: a rotation by an
	// instance whose clock is behind the one that issued it changes its signer, and its tag.
	t.Run("key rotation", func(t *testing.T) {
		t.Parallel()
		w := newSigning(t)
		w.advance(time.Hour)
		ref := w.certificate(t)
		before := w.sign(t, ref, credentials.FormDataIntegrity)
		behind := credentials.New(w.st, w.box, site, func() time.Time { return w.clock.Now().Add(-30 * time.Minute) })
		rotated, err := behind.Rotate(ctx, w.account)
		require.NoError(t, err)
		w.requireStale(t, ref, credentials.FormDataIntegrity, before.ETag)
		after := w.sign(t, ref, credentials.FormDataIntegrity)
		require.NotEqual(t, before.ETag, after.ETag)
		keys, err := w.creds.IssuerKeys(ctx, w.account)
		require.NoError(t, err)
		proof, err := vc.VerifyDataIntegrity(after.Body, vc.NewDIDDocument(keys.DID, keys.Keys).PublicKey)
		require.NoError(t, err)
		require.Equal(t, rotated.VerificationMethod, proof.VerificationMethod)
	})

	// A rotation after a credential was fixed does not change its signer: it keeps its bytes
	// and its tag.
	t.Run("key rotation after issuing keeps the tag", func(t *testing.T) {
		t.Parallel()
		w := newSigning(t)
		ref := w.certificate(t)
		before := w.sign(t, ref, credentials.FormDataIntegrity)
		w.advance(time.Minute)
		_, err := w.creds.Rotate(ctx, w.account)
		require.NoError(t, err)
		after := w.sign(t, ref, credentials.FormDataIntegrity)
		require.Equal(t, before, after)
	})

	// A certificate speaks its event's language, frozen when it was issued; regenerated after
	// the event changed language, it speaks the new one, under a new tag.
	t.Run("locale", func(t *testing.T) {
		t.Parallel()
		w := newSigning(t)
		ref := w.certificate(t)
		before := w.sign(t, ref, credentials.FormDataIntegrity)
		w.advance(time.Minute)
		ev, err := w.st.FindEvent(ctx, w.account, w.event)
		require.NoError(t, err)
		_, err = w.st.UpdateEvent(ctx, w.account, w.event, domain.EventFields{Name: ev.Name, EventDate: ev.EventDate,
			TemplateID: ev.TemplateID, Locale: "de"}, w.clock.Now())
		require.NoError(t, err)
		_, err = w.certs.Regenerate(ctx, w.account, ref.ID)
		require.NoError(t, err)
		w.requireStale(t, ref, credentials.FormDataIntegrity, before.ETag)
		after := w.sign(t, ref, credentials.FormDataIntegrity)
		want := credentials.CertificateDescription("de", ev.Name, ev.EventDate, "Analytical Society")
		require.Equal(t, want, achievement(t, after).Description)
		require.NotEqual(t, want, achievement(t, before).Description)
	})

	// An assertion issued before its claims were frozen names its issuer as the branding and
	// the account name say now: renaming the account renames its issuer, under a new tag.
	t.Run("issuer rename", func(t *testing.T) {
		t.Parallel()
		w := newSigning(t)
		ref := w.assertion(t)
		testkit.SQLAt(t, w.dbURL, `UPDATE verifiable_credentials SET claims = NULL WHERE credential_id = $1`, ref.ID)
		before := w.sign(t, ref, credentials.FormDataIntegrity)
		require.Equal(t, "Analytical Society", issuer(t, before).Name)
		testkit.SQLAt(t, w.dbURL, `UPDATE accounts SET name = 'Differential Society' WHERE id = $1`, w.account)
		w.requireStale(t, ref, credentials.FormDataIntegrity, before.ETag)
		require.Equal(t, "Differential Society", issuer(t, w.sign(t, ref, credentials.FormDataIntegrity)).Name)
	})

	// Such an assertion takes its issuer from the branding too; a certificate, whose snapshot
	// froze its issuer, keeps its bytes and its tag.
	t.Run("branding", func(t *testing.T) {
		t.Parallel()
		w := newSigning(t)
		ref := w.assertion(t)
		certificate := w.certificate(t)
		testkit.SQLAt(t, w.dbURL, `UPDATE verifiable_credentials SET claims = NULL WHERE credential_id = $1`, ref.ID)
		before := w.sign(t, ref, credentials.FormDataIntegrity)
		certificateBefore := w.sign(t, certificate, credentials.FormDataIntegrity)
		w.advance(time.Minute)
		name, website := "Gophers Berlin", "https://gophers.example.org"
		_, err := w.st.PutBranding(ctx, w.account, domain.Branding{IssuerName: &name, Website: &website}, w.clock.Now())
		require.NoError(t, err)
		w.requireStale(t, ref, credentials.FormDataIntegrity, before.ETag)
		after := issuer(t, w.sign(t, ref, credentials.FormDataIntegrity))
		require.Equal(t, vc.Profile{ID: after.ID, Type: after.Type, Name: name, URL: website}, after)
		require.Equal(t, certificateBefore, w.sign(t, certificate, credentials.FormDataIntegrity))
	})
}

// sign answers ref's credential in form, and checks that its tag revalidates it.
func (w signing) sign(t *testing.T, ref credentials.Ref, form credentials.Form) credentials.Signed {
	t.Helper()
	signed, err := w.creds.Credential(context.Background(), ref, form, "")
	require.NoError(t, err)
	require.NotEmpty(t, signed.Body)
	again, err := w.creds.Credential(context.Background(), ref, form, signed.ETag)
	require.NoError(t, err)
	require.True(t, again.NotModified, "the tag just given does not revalidate")
	return signed
}

// requireStale checks that tag no longer revalidates ref's credential in form.
func (w signing) requireStale(t *testing.T, ref credentials.Ref, form credentials.Form, tag string) {
	t.Helper()
	got, err := w.creds.Credential(context.Background(), ref, form, tag)
	require.NoError(t, err)
	require.False(t, got.NotModified, "%s still revalidates", tag)
	require.NotEqual(t, tag, got.ETag)
}

func credential(t *testing.T, s credentials.Signed) vc.OpenBadgeCredential {
	t.Helper()
	var c vc.OpenBadgeCredential
	require.NoError(t, json.Unmarshal(s.Body, &c))
	return c
}

func achievement(t *testing.T, s credentials.Signed) vc.Achievement {
	t.Helper()
	return credential(t, s).CredentialSubject.Achievement
}

func issuer(t *testing.T, s credentials.Signed) vc.Profile {
	t.Helper()
	return credential(t, s).Issuer
}
