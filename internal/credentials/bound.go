package credentials

import (
	"context"
	"fmt"
	"strings"
)

// Bound answers the credential of ref bound to a holder: the same credential (id, dates,
// status entry, achievement, as frozen when it was issued) with credentialSubject.id the
// holder's DID, signed anew at signedAt with the account's key active then, in form. It is the
// copy a wallet receives when its holder claims an offer; revoking the credential sets the
// status bit that both copies name. It is not cached: each claim signs once.
func (s *Service) Bound(ctx context.Context, ref Ref, holder string, form Form) ([]byte, error) {
	if !strings.HasPrefix(holder, "did:") {
		return nil, fmt.Errorf("credentials: holder %q is not a DID", holder)
	}
	v, err := s.version(ctx, ref)
	if err != nil {
		return nil, err
	}
	cred, err := s.unsigned(ctx, ref, v)
	if err != nil {
		return nil, err
	}
	cred.CredentialSubject.ID = holder
	keys, err := s.keys(ctx, ref.AccountID)
	if err != nil {
		return nil, err
	}
	signedAt := s.now()
	key, err := keyAtOf(keys, signedAt)
	if err != nil {
		return nil, err
	}
	signer, err := s.signer(ref.AccountID, cred.Issuer.ID, key)
	if err != nil {
		return nil, err
	}
	if form == FormJWT {
		token, err := signer.SignJWT(cred, signedAt)
		return []byte(token), err
	}
	return signer.SignDataIntegrity(cred, signedAt)
}
