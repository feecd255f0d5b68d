package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"testing"
)

// Client sends requests to a running service and fails the test on any answer the contract
// does not describe. There is no unvalidated way to send a request through it.
type Client struct {
	t    testing.TB
	base string
	http *http.Client
	// Header is sent with every request (for example Authorization).
	Header http.Header
}

// NewClient returns a client for the service at base (scheme and host). It does not follow
// redirects: a 302 is an answer of the contract, validated like any other.
func NewClient(t testing.TB, base string) *Client {
	noRedirects := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Client{t: t, base: base, http: &http.Client{CheckRedirect: noRedirects}, Header: http.Header{}}
}

// WithBearer returns a copy of the client that sends token as its credential.
func (c *Client) WithBearer(token string) *Client {
	cp := *c
	cp.Header = c.Header.Clone()
	cp.Header.Set("Authorization", "Bearer "+token)
	return &cp
}

// Response is a validated answer with its body read.
type Response struct {
	*http.Response
	Body []byte
}

// JSON decodes the body into v, failing the test when it cannot.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// Do sends req and validates the answer against the contract.
func (c *Client) Do(req *http.Request) *Response {
	c.t.Helper()
	for k, vs := range c.Header {
		if req.Header.Get(k) == "" {
			req.Header[k] = vs
		}
	}
	// Keep a copy of the request body: the validator may read it again.
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatalf("%s %s: reading the answer: %v", req.Method, req.URL, err)
	}
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	if err := Validate(req, res, body); err != nil {
		c.t.Fatalf("contract violation: %s %s -> %d %s\n%v", req.Method, req.URL.Path, res.StatusCode, truncate(body), err)
	}
	return &Response{Response: res, Body: body}
}

// Request builds a request; body, when not nil, is sent as JSON (or as is, for []byte).
func (c *Client) Request(method, path string, body any) *http.Request {
	c.t.Helper()
	var r io.Reader
	contentType := ""
	switch b := body.(type) {
	case nil:
	case []byte:
		r, contentType = bytes.NewReader(b), "application/json"
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		r, contentType = bytes.NewReader(buf), "application/json"
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		c.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

// Get, Post, Put and Delete send a request and validate the answer.
func (c *Client) Get(path string) *Response {
	c.t.Helper()
	return c.Do(c.Request(http.MethodGet, path, nil))
}

func (c *Client) Post(path string, body any) *Response {
	c.t.Helper()
	return c.Do(c.Request(http.MethodPost, path, body))
}

func (c *Client) Put(path string, body any) *Response {
	c.t.Helper()
	return c.Do(c.Request(http.MethodPut, path, body))
}

func (c *Client) Delete(path string) *Response {
	c.t.Helper()
	return c.Do(c.Request(http.MethodDelete, path, nil))
}

// Upload posts a multipart/form-data body with one file field and validates the answer.
func (c *Client) Upload(path, field, filename string, content []byte) *Response {
	c.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, field, filename))
	h.Set("Content-Type", "text/csv")
	part, err := w.CreatePart(h)
	if err != nil {
		c.t.Fatal(err)
	}
	_, _ = part.Write(content)
	if err := w.Close(); err != nil {
		c.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, c.base+path, &buf)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	return c.Do(req)
}

func truncate(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}
