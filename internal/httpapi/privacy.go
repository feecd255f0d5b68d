package httpapi

import (
	"context"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/privacy"
)

func (s *Server) EraseAttendee(ctx context.Context, req api.EraseAttendeeRequestObject) (api.EraseAttendeeResponseObject, error) {
	r, err := s.privacy.EraseAttendee(ctx, principal(ctx).AccountID, req.Id)
	if err != nil {
		return nil, err
	}
	return api.EraseAttendee200JSONResponse{Body: api.ErasureEnvelope{Data: erasure(r)}}, nil
}

func (s *Server) ErasePerson(ctx context.Context, req api.ErasePersonRequestObject) (api.ErasePersonResponseObject, error) {
	list, err := s.privacy.ErasePerson(ctx, principal(ctx).AccountID, string(req.Body.Email))
	if err != nil {
		return nil, err
	}
	out := make([]api.Erasure, len(list))
	for i, r := range list {
		out[i] = erasure(r)
	}
	return api.ErasePerson200JSONResponse{Body: api.ErasureListEnvelope{Data: out}}, nil
}

func erasure(r privacy.Result) api.Erasure {
	return api.Erasure{AttendeeId: r.AttendeeID, CredentialsRevoked: r.CredentialsRevoked, RowsErased: r.RowsErased}
}

func (s *Server) ExportAttendeeData(ctx context.Context, req api.ExportAttendeeDataRequestObject) (api.ExportAttendeeDataResponseObject, error) {
	x, err := s.privacy.Export(ctx, principal(ctx).AccountID, req.Id)
	if err != nil {
		return nil, err
	}
	return api.ExportAttendeeData200JSONResponse{Body: api.AttendeeExportEnvelope{Data: api.AttendeeExport{
		Attendee: attendee(x.Attendee), Certificates: convertAll(x.Certificates, s.certificate),
		Assertions: convertAll(x.Assertions, badgeAssertion), EmailDeliveries: convertAll(x.EmailDeliveries, emailDelivery),
		WalletOffers: convertAll(x.WalletOffers, walletOffer)}}}, nil
}
