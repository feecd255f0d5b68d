package httpmw

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/apperr"
)

// The domain names the inputs at fault in its own terms (attendeeIds[1], expiresAt, eventId);
// where the operation takes them (`path.`, `query.` or `body.`, as error.details[].field says
// it) is the contract's business, so the edge qualifies each field once, per operation.

// fieldAliases are the operations whose contract calls an input otherwise than the domain:
// the event whose lists they read is the path's {id}, and an attendee import's fields are
// parts of its multipart form ("file"), which the contract names without a location.
var fieldAliases = map[string]map[string]string{
	"listEventAttendees":     {"eventId": "path.id"},
	"listEventCertificates":  {"eventId": "path.id"},
	"listBulkGenerationJobs": {"eventId": "path.id"},
	"importAttendees":        {"file": "file"},
}

// FieldLocations maps each operation, by the name the generated strict server gives it
// (ListEventAttendees for listEventAttendees), to the location-qualified name of each input's
// first segment that is not in the body: its path and query parameters, and its aliases.
type FieldLocations map[string]map[string]string

func FieldLocationsOf(doc *openapi3.T) (FieldLocations, error) {
	locs := FieldLocations{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			names := map[string]string{}
			for _, params := range []openapi3.Parameters{item.Parameters, op.Parameters} {
				for _, p := range params {
					if v := p.Value; v != nil && (v.In == openapi3.ParameterInPath || v.In == openapi3.ParameterInQuery) {
						names[v.Name] = v.In + "." + v.Name
					}
				}
			}
			for domain, contract := range fieldAliases[op.OperationID] {
				names[domain] = contract
			}
			locs[generatedName(op.OperationID)] = names
		}
	}
	// The strict middleware is told the generated name; one it does not know would put every
	// field of that operation in the body, so a name derived otherwise stops the start.
	methods := reflect.TypeFor[api.StrictServerInterface]()
	for i := range methods.NumMethod() {
		if _, ok := locs[methods.Method(i).Name]; !ok {
			return nil, fmt.Errorf("httpmw: the operation %s of the generated server is not one of the document's", methods.Method(i).Name)
		}
	}
	return locs, nil
}

// generatedName is the name oapi-codegen gives an operation id: its first letter upper-cased.
func generatedName(operationID string) string {
	r, size := utf8.DecodeRuneInString(operationID)
	return string(unicode.ToUpper(r)) + operationID[size:]
}

// qualify rewrites the fields of err's details, if it is an application error, as the
// operation takes them: a first segment that names a path or query parameter (or an alias)
// becomes that, anything else is in the body.
func (l FieldLocations) qualify(operationID string, err error) error {
	e, ok := apperr.As(err)
	if !ok {
		return err
	}
	names := l[operationID]
	for i, d := range e.Details {
		if d.Field == "" {
			continue
		}
		end := strings.IndexAny(d.Field, ".[")
		if end < 0 {
			end = len(d.Field)
		}
		at, ok := names[d.Field[:end]]
		if !ok {
			at = "body." + d.Field[:end]
		}
		e.Details[i].Field = at + d.Field[end:]
	}
	return err
}

// Middleware qualifies the fields of every error an operation's handler returns.
func (l FieldLocations) Middleware(f api.StrictHandlerFunc, operationID string) api.StrictHandlerFunc {
	return func(c echo.Context, request any) (any, error) {
		res, err := f(c, request)
		if err != nil {
			err = l.qualify(operationID, err)
		}
		return res, err
	}
}
