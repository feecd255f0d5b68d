package verification

import "testing"

// A share card's label speaks the credential's language for each kind and status; a
// credential without a locale (issued before languages) keeps the English words.
func TestTheShareCardLabelSpeaksTheCredentialsLanguage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind         Kind
		status       Status
		locale, want string
	}{
		{KindCertificate, Valid, "", "Certificate"},
		{KindBadge, Revoked, "", "Revoked badge"},
		{KindCertificate, Expired, "en", "Expired certificate"},
		{KindCertificate, Valid, "de", "Zertifikat"},
		{KindBadge, Revoked, "de", "Widerrufenes Abzeichen"},
		{KindCertificate, Expired, "fr", "Certificat expiré"},
		{KindBadge, Valid, "pl", "Odznaka"},
		{KindCertificate, Revoked, "ja", "取り消された証明書"},
		{KindBadge, Expired, "zh-Hans", "已过期的徽章"},
	} {
		if got := shareLabel(Credential{Kind: tc.kind, Status: tc.status, Locale: tc.locale}); got != tc.want {
			t.Errorf("%s %s in %q: %q, want %q", tc.status, tc.kind, tc.locale, got, tc.want)
		}
	}
}
