package httpmw

import (
	"mime"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/apperr"
)

// ReadableForm refuses a form body that cannot be read (a broken percent escape, a multipart
// body cut short) with 400 naming the body, before a generated handler reads it: the
// generated wrapper of an operation that takes a form hands the parse error back as it is,
// which the error handler can only answer as INTERNAL. The form is parsed once: the handler
// reads the parsed values. Other bodies pass untouched.
func ReadableForm(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Method != http.MethodPost && req.Method != http.MethodPut && req.Method != http.MethodPatch {
			return next(c)
		}
		media, _, _ := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
		if media != echo.MIMEApplicationForm && media != echo.MIMEMultipartForm {
			return next(c)
		}
		if _, err := c.FormParams(); err != nil {
			return apperr.Invalid("body", "The form cannot be read ("+err.Error()+"); send it URL-encoded as application/x-www-form-urlencoded.")
		}
		return next(c)
	}
}
