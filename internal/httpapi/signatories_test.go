package httpapi_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/pdftext"
)

// signaturePNG draws a dark scribble on a transparent 300 x 100 image, as a scanned signature.
func signaturePNG(t *testing.T) string {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 300, 100))
	for x := 10; x < 290; x++ {
		y := 50 + int(30*math.Sin(float64(x)/14)*math.Cos(float64(x)/53))
		for dy := -2; dy <= 2; dy++ {
			img.Set(x, y+dy, color.NRGBA{20, 20, 60, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

// pdfImages counts the image objects of a PDF.
func pdfImages(b []byte) int { return bytes.Count(b, []byte("/Subtype /Image")) }

// The branding's signatories sign the system templates: in previews at once, and in a
// certificate as it was issued until it is regenerated.
func TestSignatoriesFromTheBrandingSignCertificates(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	var list struct{ Data []struct{ ID, Name string } }
	s.acct.Client.Get("/api/v1/system-templates").JSON(t, &list)
	classic := ""
	for _, st := range list.Data {
		if st.Name == "Classic" {
			classic = st.ID
		}
	}
	preview := "/api/v1/templates/" + classic + "/preview"
	before := s.acct.Client.Post(preview, nil)
	beforeText, err := pdftext.Text(before.Body)
	require.NoError(t, err, "preview without signatories: the PDF's text")
	require.Equal(t, 200, before.StatusCode, "preview without signatories: status")
	require.NotContains(t, beforeText, "Grace Hopper", "preview without signatories")

	sig := signaturePNG(t)
	res := s.acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Analytical Society", "signatories": []map[string]any{
		{"name": " Grace Hopper ", "title": "Programme Chair", "signatureImage": sig},
		{"name": "Alan Turing", "title": "Head of Examinations"},
	}})
	var b struct {
		Data struct {
			Signatories []struct {
				Name           string
				Title          *string
				SignatureImage *string
			}
		}
	}
	res.JSON(t, &b)
	require.Equal(t, 200, res.StatusCode, "put: status (body %s)", res.Body)
	require.Len(t, b.Data.Signatories, 2, "put: b.Data.Signatories")
	require.Equal(t, "Grace Hopper", b.Data.Signatories[0].Name, "put: b.Data.Signatories[0].Name")
	require.Equal(t, sig, *b.Data.Signatories[0].SignatureImage, "put: *b.Data.Signatories[0].SignatureImage")
	require.Nil(t, b.Data.Signatories[1].SignatureImage, "put: b.Data.Signatories[1].SignatureImage")
	require.Equal(t, "Head of Examinations", *b.Data.Signatories[1].Title, "put: *b.Data.Signatories[1].Title")
	if got := s.acct.Client.Get("/api/v1/branding"); !bytes.Equal(got.Body, res.Body) {
		t.Fatalf("get says otherwise than put:\n%s\n%s", got.Body, res.Body)
	}

	// The preview shows both, with their titles, and the first one's signature image.
	res = s.acct.Client.Post(preview, nil)
	text, err := pdftext.Text(res.Body)
	require.NoError(t, err, "preview with signatories: the PDF's text")
	require.True(t, containsAll(text, "Grace Hopper", "Programme Chair", "Alan Turing", "Head of Examinations"), "preview with signatories: want Grace Hopper, Programme Chair, Alan Turing and Head of Examinations in:\n%s", text)
	// (An image with transparency is two image objects in a PDF: the colours and the mask.)
	if n, was := pdfImages(res.Body), pdfImages(before.Body); n <= was {
		t.Fatalf("the preview holds %d images, %d before the signature image", n, was)
	}
	// The PNG preview draws them: the second signature's place was empty before.
	pngOf := func() image.Image {
		req := s.acct.Client.Request(http.MethodPost, preview, nil)
		req.Header.Set("Accept", "image/png")
		img, err := png.Decode(bytes.NewReader(s.acct.Client.Do(req).Body))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	withBoth := pngOf()

	// A certificate issued now keeps them, whatever the branding says later, until regenerate.
	c := s.issueOn(t, classic, "Ada", "Lovelace")
	download := "/api/v1/certificates/" + c.Data.ID + "/download"
	text, _ = pdftext.Text(s.acct.Client.Get(download).Body)
	if !containsAll(text, "Ada Lovelace", "Grace Hopper", "Programme Chair", "Alan Turing", "Head of Examinations") {
		t.Fatalf("issued PDF:\n%s", text)
	}
	s.acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Analytical Society", "signatories": []map[string]any{
		{"name": "Katherine Johnson", "title": "Dean"}}})
	text, _ = pdftext.Text(s.acct.Client.Get(download).Body)
	require.True(t, containsAll(text, "Grace Hopper", "Alan Turing"), "the PDF changed with the branding before regenerate: want Grace Hopper and Alan Turing in:\n%s", text)
	require.NotContains(t, text, "Katherine", "the PDF changed with the branding before regenerate")
	text, _ = pdftext.Text(s.acct.Client.Post(preview, nil).Body)
	require.True(t, containsAll(text, "Katherine Johnson", "Dean"), "the preview does not follow the branding: want Katherine Johnson and Dean in:\n%s", text)
	require.NotContains(t, text, "Grace Hopper", "the preview does not follow the branding")
	require.NotContains(t, text, "Alan Turing", "the preview does not follow the branding")
	withOne := pngOf()
	if n := differingPixels(withBoth, withOne, secondSignature(withOne.Bounds())); n < 200 {
		t.Fatalf("the PNG's second signature is the same with and without a second signatory (%d pixels differ)", n)
	}
	if res := s.acct.Client.Post("/api/v1/certificates/"+c.Data.ID+"/regenerate", nil); res.StatusCode != 200 {
		t.Fatalf("regenerate: %d %s", res.StatusCode, res.Body)
	}
	text, _ = pdftext.Text(s.acct.Client.Get(download).Body)
	require.True(t, containsAll(text, "Katherine Johnson", "Dean"), "the regenerated PDF: want Katherine Johnson and Dean in:\n%s", text)
	require.NotContains(t, text, "Grace Hopper", "the regenerated PDF")

	// An empty list clears them: the Classic template signs with the issuer's name again.
	res = s.acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Analytical Society"})
	if !strings.Contains(string(res.Body), `"signatories":[]`) {
		t.Fatalf("omitted signatories were kept: %s", res.Body)
	}
}

// Bad signatories answer 400 naming the field and saying how to fix it; nothing is stored.
func TestBadSignatoriesAreRefusedWithHowToFix(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	sig := signaturePNG(t)
	one := func(fields map[string]any) map[string]any {
		return map[string]any{"signatories": []map[string]any{fields}}
	}
	brokenPNG := "data:image/png;base64," + base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 64)...))
	// One byte over 128 KiB decoded: within the contract's length, so the service says why.
	bigPNG := "data:image/png;base64," + base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 128<<10-7)...))
	hugePNG := bigPNG + strings.Repeat("A", 40)
	for _, c := range []struct {
		name    string
		body    map[string]any
		field   string
		message string // part of the detail's message
	}{
		{"three signatories", map[string]any{"signatories": []map[string]any{{"name": "A"}, {"name": "B"}, {"name": "C"}}},
			"body.signatories", "maximum number of items is 2"},
		{"no name", one(map[string]any{"title": "Dean"}), "body.signatories[0].name", "missing"},
		{"blank name", one(map[string]any{"name": "   "}), "body.signatories[0].name", "must not be empty"},
		{"name too long", one(map[string]any{"name": strings.Repeat("Ł", 121)}), "body.signatories[0].name", "120"},
		{"title on two lines", one(map[string]any{"name": "Grace Hopper", "title": "Chair\nBoard"}), "body.signatories[0].title", "one line"},
		{"image not a data URI", one(map[string]any{"name": "Grace Hopper", "signatureImage": "https://example.org/sig.png"}),
			"body.signatories[0].signatureImage", "data URI"},
		{"image a GIF", one(map[string]any{"name": "Grace Hopper", "signatureImage": "data:image/gif;base64,R0lGODlh"}),
			"body.signatories[0].signatureImage", "PNG or SVG"},
		{"image a broken PNG", one(map[string]any{"name": "Grace Hopper", "signatureImage": brokenPNG}),
			"body.signatories[0].signatureImage", "not a valid PNG"},
		{"image an SVG without svg", one(map[string]any{"name": "Grace Hopper", "signatureImage": "data:image/svg+xml;base64," +
			base64.StdEncoding.EncodeToString([]byte("<html>no</html>"))}), "body.signatories[0].signatureImage", "SVG"},
		{"image an SVG that uses its own ancestor", one(map[string]any{"name": "Grace Hopper", "signatureImage": "data:image/svg+xml;base64," +
			base64.StdEncoding.EncodeToString([]byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><g id="a"><use href="#a"/></g></svg>`))}),
			"body.signatories[0].signatureImage", "<use> elements"},
		{"image over 128 KiB", one(map[string]any{"name": "Grace Hopper", "signatureImage": bigPNG}),
			"body.signatories[0].signatureImage", "at most 128 KiB decoded: scale the signature down"},
		{"image longer than the contract allows", one(map[string]any{"name": "Grace Hopper", "signatureImage": hugePNG}),
			"body.signatories[0].signatureImage", "maximum string length is 174790"},
		{"second one bad", map[string]any{"signatories": []map[string]any{{"name": "Grace Hopper", "signatureImage": sig}, {"name": "X", "signatureImage": brokenPNG}}},
			"body.signatories[1].signatureImage", "not a valid PNG"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := testkit.Fingerprint(t, env)
			res := acct.Client.Put("/api/v1/branding", c.body)
			e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
			found := false
			for _, d := range e.Error.Details {
				found = found || (d.Field == c.field && strings.Contains(d.Message, c.message))
			}
			if !found {
				t.Fatalf("want %s saying %q: %s", c.field, c.message, res.Body)
			}
			if after := testkit.Fingerprint(t, env); after != before {
				t.Fatal("the refused branding changed the database")
			}
		})
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// secondSignature is where the Classic template (A4 landscape) puts its second signature:
// its line, name and title lie between 65 % and 87 % of the page's width, 62 % and 76 % of its
// height.
func secondSignature(b image.Rectangle) image.Rectangle {
	return image.Rect(b.Dx()*65/100, b.Dy()*62/100, b.Dx()*87/100, b.Dy()*76/100)
}

func differingPixels(a, b image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ar, ag, ab, _ := a.At(x, y).RGBA()
			br, bg, bb, _ := b.At(x, y).RGBA()
			if ar != br || ag != bg || ab != bb {
				n++
			}
		}
	}
	return n
}

// issueOn issues a certificate to a new attendee of the event on the given template.
func (s issuing) issueOn(t *testing.T, template, first, last string) certificateBody {
	t.Helper()
	a := s.acct.Attendee(t, s.event, first, last, fmt.Sprintf("%s.%s@example.org", strings.ToLower(first), strings.ToLower(last)))
	body := s.generate(a, nil)
	body["templateId"] = template
	res := s.acct.Client.Post("/api/v1/certificates/generate", body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
	}
	var c certificateBody
	res.JSON(t, &c)
	return c
}
