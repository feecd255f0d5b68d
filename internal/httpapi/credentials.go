package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/vc"
)

// The verifiable credentials: the signed forms of a credential under /api/v1/verify, and the
// issuer's documents at the site root (/issuers/{accountId}/...), where did:web resolution and
// the credentials' status entries look for them. All are public and answered to any origin.

// cacheSigned lets verifiers keep a signed document for five minutes at most: a revocation
// (the status list) or a new key (the DID document, the JWK Set) reaches them within that.
const cacheSigned = vc.StatusListCacheControl

func (s *Server) GetVerifiableCredential(ctx context.Context, req api.GetVerifiableCredentialRequestObject) (api.GetVerifiableCredentialResponseObject, error) {
	a, err := s.verification.SignedCredential(ctx, req.Code, credentials.FormDataIntegrity, ifNoneMatch(req.Params.IfNoneMatch))
	switch {
	case err != nil:
		return nil, err
	case a.NotModified:
		return api.GetVerifiableCredential304Response(notModified(a, cacheSigned)), nil
	}
	return api.GetVerifiableCredential200ApplicationvcResponse{Body: bytes.NewReader(a.Body), ContentLength: int64(len(a.Body)),
		Headers: api.GetVerifiableCredential200ResponseHeaders{ETag: &a.ETag, CacheControl: new(cacheSigned)}}, nil
}

func (s *Server) GetVerifiableCredentialJwt(ctx context.Context, req api.GetVerifiableCredentialJwtRequestObject) (api.GetVerifiableCredentialJwtResponseObject, error) {
	a, err := s.verification.SignedCredential(ctx, req.Code, credentials.FormJWT, ifNoneMatch(req.Params.IfNoneMatch))
	switch {
	case err != nil:
		return nil, err
	case a.NotModified:
		return api.GetVerifiableCredentialJwt304Response(notModified(a, cacheSigned)), nil
	}
	return api.GetVerifiableCredentialJwt200ApplicationvcJwtResponse{Body: bytes.NewReader(a.Body), ContentLength: int64(len(a.Body)),
		Headers: api.GetVerifiableCredentialJwt200ResponseHeaders{ETag: &a.ETag, CacheControl: new(cacheSigned)}}, nil
}

func (s *Server) GetIssuerDidDocument(ctx context.Context, req api.GetIssuerDidDocumentRequestObject) (api.GetIssuerDidDocumentResponseObject, error) {
	doc, err := s.credentials.DIDDocument(ctx, req.AccountId, ifNoneMatch(req.Params.IfNoneMatch))
	switch {
	case err != nil:
		return nil, err
	case doc.NotModified:
		return api.GetIssuerDidDocument304Response(issuerNotModified(doc.ETag)), nil
	}
	var body api.DIDDocument
	if err := convert(doc.Value, &body); err != nil {
		return nil, err
	}
	return api.GetIssuerDidDocument200ApplicationDidPlusJSONResponse{Body: body,
		Headers: api.GetIssuerDidDocument200ResponseHeaders{ETag: &doc.ETag, CacheControl: new(cacheSigned), AccessControlAllowOrigin: new("*")}}, nil
}

func (s *Server) GetIssuerJwks(ctx context.Context, req api.GetIssuerJwksRequestObject) (api.GetIssuerJwksResponseObject, error) {
	set, err := s.credentials.JWKSet(ctx, req.AccountId, ifNoneMatch(req.Params.IfNoneMatch))
	switch {
	case err != nil:
		return nil, err
	case set.NotModified:
		return api.GetIssuerJwks304Response(issuerNotModified(set.ETag)), nil
	}
	var body api.JWKSet
	if err := convert(set.Value, &body); err != nil {
		return nil, err
	}
	return api.GetIssuerJwks200ApplicationJwkSetPlusJSONResponse{Body: body,
		Headers: api.GetIssuerJwks200ResponseHeaders{ETag: &set.ETag, CacheControl: new(cacheSigned), AccessControlAllowOrigin: new("*")}}, nil
}

func (s *Server) GetIssuerStatusList(ctx context.Context, req api.GetIssuerStatusListRequestObject) (api.GetIssuerStatusListResponseObject, error) {
	l, err := s.credentials.StatusList(ctx, req.AccountId, req.List, ifNoneMatch(req.Params.IfNoneMatch))
	switch {
	case err != nil:
		return nil, err
	case l.NotModified:
		return api.GetIssuerStatusList304Response(issuerNotModified(l.ETag)), nil
	}
	return api.GetIssuerStatusList200ApplicationvcResponse{Body: bytes.NewReader(l.Body), ContentLength: int64(len(l.Body)),
		Headers: api.GetIssuerStatusList200ResponseHeaders{ETag: &l.ETag, CacheControl: new(cacheSigned), AccessControlAllowOrigin: new("*")}}, nil
}

func issuerNotModified(tag string) api.NotModifiedResponse {
	return api.NotModifiedResponse{Headers: api.NotModifiedResponseHeaders{ETag: &tag, CacheControl: new(cacheSigned), AccessControlAllowOrigin: new("*")}}
}

// convert turns a document into the contract's type of the same JSON.
func convert(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, to); err != nil {
		return fmt.Errorf("converting %T: %w", from, err)
	}
	return nil
}
