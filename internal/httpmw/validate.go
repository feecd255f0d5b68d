package httpmw

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"
	oapimw "github.com/oapi-codegen/echo-middleware"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/httperr"
	"github.com/certhub/credentiald/internal/spec"
)

// RequestValidator checks API requests against the contract: parameters, body, unknown
// fields. A mismatch answers 400 VALIDATION_ERROR with one detail per problem.
//
// kin-openapi validates an OpenAPI 3.1 document with a JSON Schema 2020-12 validator that it
// compiles afresh for every parameter and body of every request (marshalling the schema to JSON
// first): under load that was a large share of the server's CPU for a GET with one UUID in its
// path (docs/decisions/request-validator-split.md). For schemas that use none of JSON Schema's
// newer keywords its own validator is equivalent (kin-openapi falls back to it for such schemas
// itself) and costs no compilation, so the operations whose inputs use none of them are validated
// that way; the others (const, propertyNames, ...) keep the 2020-12 validator. Both report through
// collectDetails.
//
// Echo has matched the request to its operation before this runs, so the operation's route is
// looked up by Echo's route in a table made at start, not found again by kin-openapi's router
// (gorilla/mux trying each path's pattern in turn: a visible share of the server's CPU for
// an authenticated GET); the errors are turned into answers as oapi-codegen's middleware turns
// them, which stays the path for a request Echo matched to no operation of the document.
type RequestValidator struct {
	routes   map[string]*routers.Route
	opts     *oapimw.Options
	fallback echo.MiddlewareFunc
}

func NewRequestValidator(doc *openapi3.T) *RequestValidator {
	full := spec.WithFullPaths(doc)
	v := &RequestValidator{opts: validatorOptions()}
	v.fallback = oapimw.OapiRequestValidatorWithOptions(full, v.opts) // (it drops the document's servers)
	legacy := *full
	legacy.OpenAPI = "3.0.3" // only the version: openapi3filter picks its schema validator by it
	v.routes = operationRoutes(full, &legacy)
	return v
}

// route is the request's operation, nil when Echo matched it to none of the document's (or
// its parameters are not one path segment each).
func (v *RequestValidator) route(c echo.Context) *routers.Route {
	route := v.routes[routeKey(c.Request().Method, c.Path())]
	if route == nil || !segmentParams(c) {
		return nil
	}
	return route
}

// Middleware validates every request before its handler runs.
func (v *RequestValidator) Middleware(next echo.HandlerFunc) echo.HandlerFunc {
	unmatched := v.fallback(next)
	return func(c echo.Context) error {
		route := v.route(c)
		if route == nil {
			return unmatched(c)
		}
		if he := validateRoute(c, route, v.opts); he != nil {
			return v.opts.ErrorHandler(c, he)
		}
		return next(c)
	}
}

// ExplainRefusals is for the public routes, which skip the validator for speed. Before the
// handler runs, it refuses a declared parameter whose text breaks the text rules, as the
// validator does first (refuseUnreadableText: the handlers check their inputs' shapes, not
// their bytes). When the generated wrapper refused a parameter it could not bind (a malformed
// UUID), the request is validated then, so that the 400 names the parameter and the fix like
// every other one. The wrapper binds parameters before anything reads the body.
func (v *RequestValidator) ExplainRefusals(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !plainParameters(c) {
			if route := v.route(c); route != nil {
				if he := refuseUnreadableText(c.Request(), route, pathParams(c)); he != nil {
					return v.opts.ErrorHandler(c, he)
				}
			}
		}
		err := next(c)
		var he *echo.HTTPError
		if err == nil || !errors.As(err, &he) || he.Code != http.StatusBadRequest || he.Internal != nil ||
			!strings.HasPrefix(fmt.Sprint(he.Message), "Invalid format for parameter ") {
			return err
		}
		if route := v.route(c); route != nil {
			if ve := validateRoute(c, route, v.opts); ve != nil {
				return v.opts.ErrorHandler(c, ve)
			}
		}
		return err
	}
}

// operationRoutes maps each operation, by method and Echo route, to its kin-openapi route: in
// the legacy copy of the document (kin-openapi's own validator) when its inputs use no JSON
// Schema 2020-12 keyword, in the full one otherwise.
func operationRoutes(full, legacy *openapi3.T) map[string]*routers.Route {
	plain := plainOperations(full)
	routes := map[string]*routers.Route{}
	for path, item := range full.Paths.Map() {
		for method, op := range item.Operations() {
			key := routeKey(method, EchoRoute(path))
			doc := full
			if plain[key] {
				doc = legacy
			}
			routes[key] = &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: filePartsAsBytes(op)}
		}
	}
	return routes
}

// filePartsAsBytes returns op, or, when its multipart form has file parts (the properties
// with a contentMediaType), a copy whose form the validator reads with each file part as
// bytes, whatever Content-Type the part carries. kin-openapi decodes a part by its own type
// otherwise: a part typed text/csv (what browsers send for a .csv file) went through its CSV
// reader, which refused a UTF-16 file, a row with a cell too many or a file over the size
// limit cut mid-row as "wrong number of fields", before the operation could say what is wrong
// with the file. The operation reads the part itself, and judges its encoding, size and
// content. The copy keeps the contentMediaType, so that a request that is no form is still
// told which file to send.
func filePartsAsBytes(op *openapi3.Operation) *openapi3.Operation {
	if op.RequestBody == nil || op.RequestBody.Value == nil {
		return op
	}
	media := op.RequestBody.Value.Content.Get(echo.MIMEMultipartForm)
	if media == nil || media.Schema == nil || media.Schema.Value == nil {
		return op
	}
	form := *media.Schema.Value
	form.Properties = maps.Clone(form.Properties)
	encoding := maps.Clone(media.Encoding)
	files := false
	for name, p := range form.Properties {
		if p == nil || p.Value == nil || p.Value.ContentMediaType == "" {
			continue
		}
		file := *p.Value
		file.Format = "binary" // kin-openapi reads a binary part that names no encoding's type as it is
		form.Properties[name] = &openapi3.SchemaRef{Value: &file}
		if enc := encoding[name]; enc != nil {
			plain := *enc
			plain.ContentType = ""
			encoding[name] = &plain
		}
		files = true
	}
	if !files {
		return op
	}
	asBytes := *media
	asBytes.Schema, asBytes.Encoding = &openapi3.SchemaRef{Value: &form}, encoding
	body := *op.RequestBody.Value
	body.Content = maps.Clone(body.Content)
	body.Content[echo.MIMEMultipartForm] = &asBytes
	o := *op
	o.RequestBody = &openapi3.RequestBodyRef{Value: &body}
	return &o
}

// segmentParams reports whether each of the route's parameters is one non-empty path segment,
// as the document's path templates (and kin-openapi's router) read them. Echo also matches an
// empty parameter, and lets a route's last one run over slashes; such a request goes the
// router's way, which answers it 404 as before.
func segmentParams(c echo.Context) bool {
	for _, v := range c.ParamValues()[:len(c.ParamNames())] {
		if v == "" || strings.Contains(v, "/") {
			return false
		}
	}
	return true
}

// validateRoute validates the request against its operation, as oapi-codegen's
// ValidateRequestFromContext does once its router found the route.
func validateRoute(c echo.Context, route *routers.Route, opts *oapimw.Options) *echo.HTTPError {
	params := pathParams(c)
	if !plainParameters(c) {
		if he := refuseUnreadableText(c.Request(), route, params); he != nil {
			return he
		}
	}
	if he := refuseUnknownQuery(c.Request(), route); he != nil {
		return he
	}
	if he := refuseNullDefaults(c.Request(), route.Operation); he != nil {
		return he
	}
	err := openapi3filter.ValidateRequest(c.Request().Context(), &openapi3filter.RequestValidationInput{
		Request: c.Request(), PathParams: params, Route: route, Options: &opts.Options, ParamDecoder: opts.ParamDecoder})
	if err == nil {
		return nil
	}
	var me openapi3.MultiError
	if errors.As(err, &me) {
		return opts.MultiErrorHandler(me)
	}
	switch e := err.(type) {
	case *openapi3filter.RequestError:
		line, _, _ := strings.Cut(e.Error(), "\n")
		return &echo.HTTPError{Code: http.StatusBadRequest, Message: line, Internal: err}
	case *openapi3filter.SecurityRequirementsError:
		for _, err := range e.Errors {
			if he, ok := err.(*echo.HTTPError); ok {
				return he
			}
		}
		return &echo.HTTPError{Code: http.StatusForbidden, Message: e.Error(), Internal: err}
	default:
		return &echo.HTTPError{Code: http.StatusInternalServerError, Message: fmt.Sprintf("error validating request: %s", err), Internal: err}
	}
}

// pathParams are the request's path parameters by name, unescaped.
func pathParams(c echo.Context) map[string]string {
	names := c.ParamNames()
	if len(names) == 0 {
		return nil
	}
	params := make(map[string]string, len(names))
	escaped := c.Request().URL.RawPath != "" // Echo matched the escaped path: its values are escaped too
	for i, v := range c.ParamValues()[:len(names)] {
		if escaped {
			if unescaped, err := url.PathUnescape(v); err == nil {
				v = unescaped
			}
		}
		params[names[i]] = v
	}
	return params
}

// plainParameters reports whether the request's query and path parameters are printable ASCII
// with no percent escape (see plainText): nothing refuseUnreadableText could refuse, told
// without looking the operation up.
func plainParameters(c echo.Context) bool {
	if !plainText(c.Request().URL.RawQuery) {
		return false
	}
	for _, v := range c.ParamValues()[:len(c.ParamNames())] {
		if !plainText(v) {
			return false
		}
	}
	return true
}

// refuseUnreadableText answers 400 naming each path or query parameter the operation declares
// whose text breaks the rules of a body's text (textProblem): bytes that are not UTF-8, U+0000,
// another control character. A body's strings are checked before the validator reads them
// (CheckJSONText); a parameter's text reached the handler as sent, and PostgreSQL cannot take
// U+0000 (a search for it answered 500 INTERNAL). A parameter the operation does not declare
// is not looked at: a public route ignores it (refuseUnknownQuery refuses it on the others).
func refuseUnreadableText(req *http.Request, route *routers.Route, params map[string]string) *echo.HTTPError {
	var query url.Values
	var details []apperr.Detail
	for _, declared := range []openapi3.Parameters{route.PathItem.Parameters, route.Operation.Parameters} {
		for _, p := range declared {
			if p.Value == nil {
				continue
			}
			var values []string
			switch p.Value.In {
			case openapi3.ParameterInPath:
				values = []string{params[p.Value.Name]}
			case openapi3.ParameterInQuery:
				if query == nil {
					query = req.URL.Query()
				}
				values = query[p.Value.Name]
			}
			for _, v := range values {
				if msg := textProblem(v); msg != "" {
					details = append(details, apperr.Detail{Field: p.Value.In + "." + p.Value.Name, Message: msg})
					break
				}
			}
		}
	}
	if len(details) == 0 {
		return nil
	}
	return &echo.HTTPError{Code: http.StatusBadRequest,
		Internal: &apperr.Error{Code: apperr.ValidationError, Message: "The request is not valid.", Details: details}}
}

func validatorOptions() *oapimw.Options {
	return &oapimw.Options{
		DoNotValidateServers: true,
		Options: openapi3filter.Options{
			MultiError: true,
			// Credentials are checked by the authentication middleware, not here.
			AuthenticationFunc: func(context.Context, *openapi3filter.AuthenticationInput) error { return nil },
		},
		MultiErrorHandler: func(me openapi3.MultiError) *echo.HTTPError {
			return &echo.HTTPError{Code: 400, Internal: validationError(me)}
		},
		ErrorHandler: func(c echo.Context, he *echo.HTTPError) error {
			if he.Internal == nil {
				he.Internal = validationError(he)
			}
			return he
		},
	}
}

// plainOperations lists the operations (by method and Echo route) whose parameters and
// request bodies use no keyword that only JSON Schema 2020-12 validates.
func plainOperations(doc *openapi3.T) map[string]bool {
	plain := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			var schemas []*openapi3.SchemaRef
			for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
				if p.Value != nil {
					schemas = append(schemas, p.Value.Schema)
				}
			}
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				for _, mt := range op.RequestBody.Value.Content {
					schemas = append(schemas, mt.Schema)
				}
			}
			ok := true
			for _, sr := range schemas {
				if sr != nil && usesJSONSchema2020(sr) {
					ok = false
				}
			}
			plain[routeKey(method, EchoRoute(path))] = ok
		}
	}
	return plain
}

var errNewerKeyword = errors.New("a JSON Schema 2020-12 keyword")

// usesJSONSchema2020 reports whether the schema or any below it uses a keyword that
// kin-openapi's own validator does not check (the list it guards its fallback with), or an
// exclusive bound, whose form changed in 3.1.
func usesJSONSchema2020(sr *openapi3.SchemaRef) bool {
	err := sr.WalkSubtree(func(_ string, ref *openapi3.SchemaRef) error {
		s := ref.Value
		if s == nil {
			return nil
		}
		if s.Const != nil || len(s.PrefixItems) != 0 || s.Contains != nil || len(s.PatternProperties) != 0 ||
			len(s.DependentSchemas) != 0 || s.PropertyNames != nil || s.UnevaluatedItems.Has != nil ||
			s.UnevaluatedItems.Schema != nil || s.UnevaluatedProperties.Has != nil || s.UnevaluatedProperties.Schema != nil ||
			s.If != nil || s.Then != nil || s.Else != nil || len(s.DependentRequired) != 0 || len(s.Defs) != 0 ||
			s.ContentSchema != nil || s.ExclusiveMin.IsSet() || s.ExclusiveMax.IsSet() {
			return errNewerKeyword
		}
		return nil
	})
	return err != nil
}

// refuseUnknownQuery answers 400 naming each query parameter that an operation needing
// credentials does not declare, as unknown body fields are refused: a client's typo
// (`?serach=`, `?sort=` where there is none) must not silently answer everything. Public
// operations (no security requirement) ignore what they do not know, since shared links
// collect tracking parameters (utm_source, fbclid) that must keep working.
func refuseUnknownQuery(req *http.Request, route *routers.Route) *echo.HTTPError {
	op := route.Operation
	if req.URL.RawQuery == "" || op.Security == nil || len(*op.Security) == 0 {
		return nil
	}
	declared := map[string]bool{}
	for _, params := range []openapi3.Parameters{route.PathItem.Parameters, op.Parameters} {
		for _, p := range params {
			if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
				declared[p.Value.Name] = true
			}
		}
	}
	var details []apperr.Detail
	for _, name := range slices.Sorted(maps.Keys(req.URL.Query())) {
		if declared[name] {
			continue
		}
		msg := "is not a parameter of this operation, which takes none"
		if len(declared) > 0 {
			msg = "is not a parameter of this operation, which takes " + strings.Join(slices.Sorted(maps.Keys(declared)), ", ")
		}
		details = append(details, apperr.Detail{Field: "query." + name, Message: msg})
	}
	if len(details) == 0 {
		return nil
	}
	return &echo.HTTPError{Code: http.StatusBadRequest,
		Internal: &apperr.Error{Code: apperr.ValidationError, Message: "The request is not valid.", Details: details}}
}

// refuseNullDefaults answers 400 naming each field of a JSON body that is null where the
// contract gives a default and does not allow null. kin-openapi fills in a default for a null
// field as for an absent one, so `"sendEmail": null` would silently mean false; a client that
// sends null means something, and is told to leave the field out instead. The body is read
// here and put back for the validator and the handler.
func refuseNullDefaults(req *http.Request, op *openapi3.Operation) *echo.HTTPError {
	if op.RequestBody == nil || op.RequestBody.Value == nil || req.Body == nil || req.Body == http.NoBody ||
		!strings.HasPrefix(req.Header.Get(echo.HeaderContentType), echo.MIMEApplicationJSON) {
		return nil
	}
	media := op.RequestBody.Value.Content.Get(echo.MIMEApplicationJSON)
	if media == nil || media.Schema == nil || !hasDefault(media.Schema.Value, map[*openapi3.Schema]bool{}) {
		return nil
	}
	data, err := io.ReadAll(req.Body)
	if err != nil {
		// A body that stopped arriving or ran over its limit: the body limit's middleware
		// tells which.
		return &echo.HTTPError{Code: http.StatusBadRequest, Message: "the request body could not be read", Internal: err}
	}
	req.Body = io.NopCloser(bytes.NewReader(data))
	var body any
	if json.Unmarshal(data, &body) != nil {
		return nil // the validator says what is wrong with it
	}
	var details []apperr.Detail
	nullDefaults(media.Schema.Value, body, "body", &details)
	if len(details) == 0 {
		return nil
	}
	slices.SortFunc(details, func(a, b apperr.Detail) int { return strings.Compare(a.Field, b.Field) })
	details = slices.Compact(details)
	return &echo.HTTPError{Code: http.StatusBadRequest,
		Internal: &apperr.Error{Code: apperr.ValidationError, Message: "The request is not valid.", Details: details}}
}

// hasDefault reports whether s or a schema below it gives a property a default.
func hasDefault(s *openapi3.Schema, seen map[*openapi3.Schema]bool) bool {
	if s == nil || seen[s] {
		return false
	}
	seen[s] = true
	for _, p := range s.Properties {
		if p.Value != nil && (p.Value.Default != nil || hasDefault(p.Value, seen)) {
			return true
		}
	}
	for _, subs := range [][]*openapi3.SchemaRef{s.AllOf, s.OneOf, s.AnyOf} {
		for _, sub := range subs {
			if hasDefault(sub.Value, seen) {
				return true
			}
		}
	}
	return (s.Items != nil && hasDefault(s.Items.Value, seen)) ||
		(s.AdditionalProperties.Schema != nil && hasDefault(s.AdditionalProperties.Schema.Value, seen))
}

// nullDefaults adds a detail for each null in v, a value of schema s at field, that stands
// where s gives a default and no null.
func nullDefaults(s *openapi3.Schema, v any, field string, out *[]apperr.Detail) {
	if s == nil {
		return
	}
	// The branches of a oneOf (a template's content kinds) are walked alike: a property
	// that one branch gives a default is given none, and no null, by any other (callers
	// dedupe the details).
	for _, subs := range [][]*openapi3.SchemaRef{s.AllOf, s.OneOf, s.AnyOf} {
		for _, sub := range subs {
			nullDefaults(sub.Value, v, field, out)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for name, pv := range v {
			ps := s.Properties[name]
			if ps == nil || ps.Value == nil {
				continue
			}
			at := field + "." + name
			if pv == nil {
				if p := ps.Value; p.Default != nil && !p.Nullable && !p.Type.Includes(openapi3.TypeNull) {
					d, _ := json.Marshal(p.Default)
					*out = append(*out, apperr.Detail{Field: at, Message: fmt.Sprintf("must not be null: leave it out to take its default (%s)", d)})
				}
				continue
			}
			nullDefaults(ps.Value, pv, at, out)
		}
	case []any:
		if s.Items != nil {
			for i, iv := range v {
				nullDefaults(s.Items.Value, iv, field+"["+strconv.Itoa(i)+"]", out)
			}
		}
	}
}

// validationError turns kin-openapi's findings into a VALIDATION_ERROR with details.
func validationError(err error) *apperr.Error {
	var he *echo.HTTPError
	if errors.As(err, &he) && he.Code != 400 {
		return httperr.FromStatus(he.Code, err)
	}
	e := &apperr.Error{Code: apperr.ValidationError, Message: "The request is not valid.", Cause: err}
	collectDetails(err, "", &e.Details)
	if len(e.Details) == 0 {
		e.Details = []apperr.Detail{{Field: "request", Message: firstLine(err.Error())}}
	}
	return e
}

// collectDetails walks kin-openapi's error tree by concrete type: each RequestError names
// its input, and the JSON Schema leaves below it name the exact location and rule.
func collectDetails(err error, field string, out *[]apperr.Detail) {
	switch e := err.(type) {
	case nil:
	case openapi3.MultiError:
		for _, sub := range e {
			collectDetails(sub, field, out)
		}
	case *openapi3filter.RequestError:
		f := "body"
		if e.Parameter != nil {
			f = e.Parameter.In + "." + e.Parameter.Name
		}
		if e.Err == nil && e.RequestBody != nil && strings.HasPrefix(e.Reason, "header Content-Type has unexpected value") {
			*out = append(*out, apperr.Detail{Field: "header.Content-Type", Message: contentTypeMessage(e.Input.Request.Header.Get(echo.HeaderContentType), e.RequestBody)})
			return
		}
		if e.Err == nil {
			*out = append(*out, apperr.Detail{Field: f, Message: friendly(firstLine(e.Reason))})
			return
		}
		var pe *openapi3filter.ParseError
		if e.RequestBody != nil && errors.As(e.Err, &pe) &&
			strings.HasPrefix(e.Input.Request.Header.Get(echo.HeaderContentType), echo.MIMEMultipartForm) {
			// A form whose parts are not the operation's (a file sent under another field's
			// name): it is no JSON that failed, so say what the form must hold.
			*out = append(*out, apperr.Detail{Field: "body", Message: "does not hold the parts this operation takes: send the body as " +
				strings.Join(bodyForms(e.RequestBody), ", or as ")})
			return
		}
		collectDetails(e.Err, f, out)
	case *openapi3.SchemaError:
		// In 3.1 mode the JSON Schema 2020-12 leaf hides behind Unwrap; so do the nested
		// errors of kin-openapi's own validator, which it uses for schemas with references.
		// Both locate themselves from the root. A format validator's own error, though, is
		// about this error's location.
		inner := errors.Unwrap(e)
		if isSchemaErrorTree(inner) {
			collectDetails(inner, field, out)
			return
		}
		at := joinPointer(field, e.JSONPointer())
		var sl *spec.SingleLineError
		switch {
		case errors.As(inner, &sl):
			*out = append(*out, apperr.Detail{Field: at, Message: sl.Error()})
		case inner != nil:
			*out = append(*out, apperr.Detail{Field: at, Message: friendly(firstLine(inner.Error()))})
		case e.SchemaField == "properties" && unknownProperty(e.Reason) != "":
			// kin-openapi's own validator names an unknown field only in its reason.
			*out = append(*out, apperr.Detail{Field: at + "." + unknownProperty(e.Reason), Message: "is not a known field"})
		case e.SchemaField == "pattern" && e.Schema != nil:
			*out = append(*out, apperr.Detail{Field: at, Message: spec.PatternMessage(e.Schema.Pattern)})
		default:
			*out = append(*out, apperr.Detail{Field: at, Message: friendly(e.Reason)})
		}
	case *jsonschema.ValidationError:
		schemaLeaves(e, field, out)
	case *openapi3filter.ParseError:
		msg := "could not be parsed"
		if field == "body" {
			msg = "is not valid JSON, or not of the declared content type"
		}
		*out = append(*out, apperr.Detail{Field: field, Message: msg})
	default:
		if inner := errors.Unwrap(err); inner != nil {
			collectDetails(inner, field, out)
			return
		}
		if field == "" {
			field = "request"
		}
		*out = append(*out, apperr.Detail{Field: field, Message: friendly(firstLine(err.Error()))})
	}
}

// unknownProperty reads the field's name from kin-openapi's `property "x" is unsupported`.
func unknownProperty(reason string) string {
	rest, ok := strings.CutPrefix(reason, "property ")
	if !ok {
		return ""
	}
	quoted, ok := strings.CutSuffix(rest, " is unsupported")
	if !ok {
		return ""
	}
	name, err := strconv.Unquote(quoted)
	if err != nil {
		return ""
	}
	return name
}

// contentTypeMessage tells a request sent as got what the operation takes instead, read from
// its request body in the contract: the media types, and for a form the fields that carry files.
func contentTypeMessage(got string, body *openapi3.RequestBody) string {
	want := bodyForms(body)
	if got == "" {
		return "is missing: send the body as " + strings.Join(want, ", or as ")
	}
	return fmt.Sprintf("is %q: send the body as %s", got, strings.Join(want, ", or as "))
}

// bodyForms says in words each form a request body may take: its media types, and for a
// form the fields that carry files.
func bodyForms(body *openapi3.RequestBody) []string {
	var want []string
	for _, mt := range slices.Sorted(maps.Keys(body.Content)) {
		media := body.Content[mt]
		if mt != "multipart/form-data" || media.Schema == nil || media.Schema.Value == nil {
			want = append(want, mt)
			continue
		}
		var files []string
		props := media.Schema.Value.Properties
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if p := props[name].Value; p != nil && (p.ContentMediaType != "" || p.Format == "binary") {
				kind := "file"
				if p.ContentMediaType != "" {
					kind = p.ContentMediaType + " file"
				}
				files = append(files, fmt.Sprintf("the %s in the field %q", kind, name))
			}
		}
		if len(files) == 0 {
			want = append(want, mt)
			continue
		}
		want = append(want, mt+" with "+strings.Join(files, " and "))
	}
	return want
}

// isSchemaErrorTree reports whether err, under any wrapping, holds further schema errors.
func isSchemaErrorTree(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		switch err.(type) {
		case openapi3.MultiError, *openapi3.SchemaError, *jsonschema.ValidationError:
			return true
		}
	}
	return false
}

var english = message.NewPrinter(language.English)

// schemaLeaves reports the innermost JSON Schema failures, one detail per offending field.
func schemaLeaves(ve *jsonschema.ValidationError, field string, out *[]apperr.Detail) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			schemaLeaves(c, field, out)
		}
		return
	}
	at := joinPointer(field, ve.InstanceLocation)
	switch k := ve.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			*out = append(*out, apperr.Detail{Field: at + "." + p, Message: "is not a known field"})
		}
	case *kind.Required:
		for _, p := range k.Missing {
			*out = append(*out, apperr.Detail{Field: at + "." + p, Message: "is required"})
		}
	case *kind.Pattern:
		*out = append(*out, apperr.Detail{Field: at, Message: spec.PatternMessage(k.Want)})
	case *kind.Format:
		msg := "must be a valid " + k.Want
		switch k.Want {
		case "uuid":
			msg = "must be a UUID" // as kin-openapi's own validator says it (friendly)
		case "date":
			msg = spec.DateMessage
		case "date-time":
			msg = spec.DateTimeMessage
		}
		var sl *spec.SingleLineError
		if errors.As(k.Err, &sl) {
			msg = sl.Error()
		}
		*out = append(*out, apperr.Detail{Field: at, Message: msg})
	default:
		*out = append(*out, apperr.Detail{Field: at, Message: friendly(ve.ErrorKind.LocalizedString(english))})
	}
}

// joinPointer appends a JSON location to a field name: body.rows[0].cols.
func joinPointer(field string, location []string) string {
	for _, p := range location {
		if _, err := strconv.Atoi(p); err == nil {
			field += "[" + p + "]"
		} else {
			field += "." + p
		}
	}
	return field
}

func friendly(msg string) string {
	if strings.Contains(msg, "doesn't match the format \"uuid\"") || strings.Contains(msg, "not a valid UUID") {
		return "must be a UUID"
	}
	if strings.Contains(msg, "value is required but missing") {
		return "is required"
	}
	// A format validator of the contract's says how to fix it in its own words.
	if rest, ok := strings.CutPrefix(msg, `string doesn't match the format "`); ok {
		if _, own, ok := strings.Cut(rest, `": `); ok {
			return own
		}
	}
	return msg
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}
