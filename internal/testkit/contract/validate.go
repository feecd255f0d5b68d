// Package contract checks HTTP answers against openapi/v1.json. Every answer a test receives
// goes through Validate (the Client does it for every request): an answer the document does
// not describe is an error.
package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/testkit/coverage"
	"github.com/certhub/credentiald/openapi"
)

const apiPrefix = "/api/v1"

var (
	routerOnce sync.Once
	router     routers.Router
	doc        *openapi3.T
	routerErr  error
)

func load() error {
	routerOnce.Do(func() {
		for _, media := range []string{"application/pdf", "image/png", "image/svg+xml", "text/csv", "text/html"} {
			openapi3filter.RegisterBodyDecoder(media, openapi3filter.FileBodyDecoder)
		}
		if doc, routerErr = spec.Load(); routerErr != nil {
			return
		}
		// Route on the full path: a copy of the document whose paths carry their server's
		// path (the API's prefix, or the site root's for the pages).
		router, routerErr = gorillamux.NewRouter(spec.WithFullPaths(doc))
	})
	return routerErr
}

// Validate checks one exchange: the answer's status must be documented for the operation,
// its headers and body must match, an error body must carry one of the codes the response
// lists in x-error-codes, and a 204 must have no body. Paths outside the API and its
// operations at the site root are the service's infrastructure and are held to their own
// fixed shapes.
func Validate(req *http.Request, res *http.Response, body []byte) error {
	if err := load(); err != nil {
		return err
	}
	route, params, err := router.FindRoute(req)
	if err != nil && !strings.HasPrefix(req.URL.Path, apiPrefix+"/") {
		return validateInfrastructure(req, res, body)
	}
	if err != nil {
		// Not an operation: the answer must be the envelope's 404 or 405.
		if res.StatusCode != http.StatusNotFound && res.StatusCode != http.StatusMethodNotAllowed {
			return fmt.Errorf("%s %s is no operation of the contract, yet answered %d", req.Method, req.URL.Path, res.StatusCode)
		}
		return validateErrorBody(body, []string{"NOT_FOUND", "METHOD_NOT_ALLOWED"})
	}
	op := route.Operation
	key, response := documentedResponse(op, res.StatusCode)
	if response == nil {
		return fmt.Errorf("%s answered %d, which the contract does not document for it", op.OperationID, res.StatusCode)
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status:  res.StatusCode,
		Header:  res.Header,
		Body:    io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		return fmt.Errorf("%s %d does not match the contract: %w", op.OperationID, res.StatusCode, err)
	}
	if res.StatusCode == http.StatusNoContent && len(body) > 0 {
		return fmt.Errorf("%s answered 204 with a body of %d bytes", op.OperationID, len(body))
	}
	if codes := errorCodes(response); codes != nil {
		if err := validateErrorBody(body, codes); err != nil {
			return fmt.Errorf("%s %d: %w", op.OperationID, res.StatusCode, err)
		}
	}
	coverage.Record(coverage.Observation{OperationID: op.OperationID, Status: key})
	return nil
}

// documentedResponse finds the response the document gives for status: exact, then range, then default.
func documentedResponse(op *openapi3.Operation, status int) (string, *openapi3.Response) {
	for _, key := range []string{strconv.Itoa(status), fmt.Sprintf("%dXX", status/100), "default"} {
		if r := op.Responses.Value(key); r != nil && r.Value != nil {
			return key, r.Value
		}
	}
	return "", nil
}

func errorCodes(r *openapi3.Response) []string {
	raw, ok := r.Extensions["x-error-codes"].([]any)
	if !ok {
		return nil
	}
	codes := make([]string, 0, len(raw))
	for _, c := range raw {
		codes = append(codes, fmt.Sprint(c))
	}
	return codes
}

// validateErrorBody checks the envelope against the Error schema and the allowed codes.
func validateErrorBody(body []byte, codes []string) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("error body is not JSON: %w", err)
	}
	schema := doc.Components.Schemas["Error"].Value
	if err := schema.VisitJSON(v); err != nil {
		return fmt.Errorf("error body does not match the Error schema: %w", err)
	}
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &env)
	if !slices.Contains(codes, env.Error.Code) {
		return fmt.Errorf("error.code %q is not one the response documents (%s)", env.Error.Code, strings.Join(codes, ", "))
	}
	return nil
}

// validateInfrastructure holds the paths outside the API to their fixed answers.
func validateInfrastructure(req *http.Request, res *http.Response, body []byte) error {
	if strings.HasPrefix(req.URL.Path, "/assets/") && res.StatusCode == http.StatusOK {
		// The pages' style sheet, named by its content: site furniture like the icon.
		if res.Header.Get("Content-Type") != "text/css; charset=utf-8" || len(body) == 0 {
			return fmt.Errorf("%s answered %q, %d bytes", req.URL.Path, res.Header.Get("Content-Type"), len(body))
		}
		return nil
	}
	switch req.URL.Path {
	case "/openapi/v1.json":
		if res.StatusCode == http.StatusOK && !bytes.Equal(body, openapi.Document) {
			return errors.New("/openapi/v1.json is not the committed document byte for byte")
		}
	case "/docs":
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
			!strings.HasPrefix(res.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			return fmt.Errorf("/docs answered %d, %q, CSP %q", res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Content-Security-Policy"))
		}
		return nil
	case "/favicon.svg", "/favicon.ico":
		// The pages' icon: site furniture, like /docs, outside the API's contract.
		want := map[string]string{"/favicon.svg": "image/svg+xml", "/favicon.ico": "image/x-icon"}[req.URL.Path]
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != want || len(body) == 0 {
			return fmt.Errorf("%s answered %d, %q, %d bytes", req.URL.Path, res.StatusCode, res.Header.Get("Content-Type"), len(body))
		}
		return nil
	case "/healthz", "/readyz":
		var v struct {
			Status string `json:"status"`
		}
		if err := json.Unmarshal(body, &v); err != nil || v.Status == "" {
			return fmt.Errorf("%s answered %q, want a JSON status", req.URL.Path, body)
		}
		return nil
	default:
		if res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed {
			return validateErrorBody(body, []string{"NOT_FOUND", "METHOD_NOT_ALLOWED"})
		}
		return fmt.Errorf("%s is neither an operation of the contract nor a known infrastructure path", req.URL.Path)
	}
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		return fmt.Errorf("%s answered Content-Type %q", req.URL.Path, res.Header.Get("Content-Type"))
	}
	return nil
}

// Operation names the contract's operation that req calls, or fails when the contract
// documents none (a path or method it does not have).
func Operation(req *http.Request) (string, error) {
	if err := load(); err != nil {
		return "", err
	}
	route, _, err := router.FindRoute(req)
	if err != nil {
		return "", fmt.Errorf("%s %s is no operation of the contract: %w", req.Method, req.URL.Path, err)
	}
	return route.Operation.OperationID, nil
}
