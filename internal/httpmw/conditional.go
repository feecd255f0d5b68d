package httpmw

import (
	"bytes"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/etag"
)

// taggedResources are the operations that read one resource of the account: their answer
// carries a strong ETag of the representation sent, and If-None-Match with it answers 304.
// The tag is a digest of the body itself, so whatever changes what is sent changes it (a
// certificate whose expiry passed says "expired" and has another tag), and nothing that does
// not changes it.
var taggedResources = map[string]bool{
	"getAttendee": true, "getBadge": true, "getBranding": true, "getBulkGenerationJob": true, "getCertificate": true,
	"getCredits": true, "getEvent": true, "getEventRegistration": true, "getMe": true, "getTemplate": true,
}

// ConditionalGET tags the 200 answers of taggedResources and answers 304, without a body, to
// a request whose If-None-Match names the tag. The answer is held until the handler returns
// (single resources are small); any other answer passes as written.
func ConditionalGET(ops Operations) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.Method != http.MethodGet || !taggedResources[ops[routeKey(req.Method, c.Path())].ID] {
				return next(c)
			}
			res := c.Response()
			held := &heldAnswer{ResponseWriter: res.Writer}
			res.Writer = held
			err := next(c)
			res.Writer = held.ResponseWriter
			if held.status == 0 {
				return err // nothing written: the error handler answers through the real writer
			}
			if held.status == http.StatusOK {
				tag := etag.Of("resource", held.body.String())
				res.Header().Set("ETag", tag)
				if etag.Matches(req.Header.Get("If-None-Match"), tag) {
					h := res.Header()
					h.Del(echo.HeaderContentType)
					h.Del(echo.HeaderContentLength)
					held.ResponseWriter.WriteHeader(http.StatusNotModified)
					return err
				}
			}
			held.ResponseWriter.WriteHeader(held.status)
			if _, werr := held.ResponseWriter.Write(held.body.Bytes()); werr != nil && err == nil {
				err = werr
			}
			return err
		}
	}
}

// heldAnswer keeps an answer's status and body instead of sending them.
type heldAnswer struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (h *heldAnswer) WriteHeader(status int) {
	if h.status == 0 {
		h.status = status
	}
}

func (h *heldAnswer) Write(b []byte) (int, error) {
	if h.status == 0 {
		h.status = http.StatusOK
	}
	return h.body.Write(b)
}
