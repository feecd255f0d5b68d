package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	dbfiles "github.com/certhub/credentiald/db"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/templates"
)

// sampleLogo is a simple mark standing in for an issuer's logo in the documentation.
const sampleLogo = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 120">
<polygon points="60,6 107,33 107,87 60,114 13,87 13,33" fill="#1F2A44"/>
<polygon points="60,24 91,42 91,78 60,96 29,78 29,42" fill="#C9A227"/>
<circle cx="60" cy="60" r="14" fill="#FFFFFF"/></svg>`

// templatePreviews renders every system template with sample data into dir, for the README:
// template-NAME.png with a Latin name, and gallery-NAME.png, the same template for each of
// render.GalleryNames side by side.
func templatePreviews(dir string) error {
	files, err := fs.Glob(dbfiles.SystemTemplates, "system-templates/*.json")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	logo := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(sampleLogo))
	for _, f := range files {
		t, err := store.SystemTemplate(f)
		if err != nil {
			return err
		}
		tmpl, err := templates.ForRendering(t)
		if err != nil {
			return err
		}
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		d := render.GallerySample(render.Recipient{FirstName: "Łukasz", LastName: "Żółć"})
		d.IssuerLogo = logo
		img, err := render.Image(tmpl, d, 110)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if err := write(filepath.Join(dir, "template-"+base+".png"), encodePNG(render.Paletted(img))); err != nil {
			return err
		}
		var pages []*image.RGBA
		for _, r := range render.GalleryNames {
			d := render.GallerySample(r)
			d.IssuerLogo = logo
			img, err := render.Image(tmpl, d, 56)
			if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			pages = append(pages, img)
		}
		if err := write(filepath.Join(dir, "gallery-"+base+".png"), contactSheet(pages)); err != nil {
			return err
		}
		if err := languagePreview(dir, base, t, logo); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	return nil
}

// languageSamples are the certificates of the language gallery: German, the longest of the
// languages, with a long name; Japanese, in other faces. What an account would type itself
// (event, signatories' titles) is typed in the language too.
var languageSamples = []struct {
	locale    string
	recipient render.Recipient
	event     string
	titles    [2]string
}{
	{"de", render.Recipient{FirstName: "Friederike", LastName: "Müller-Lüdenscheidt"}, "Gophertage 2026", [2]string{"Programmleitung", "Direktorin"}},
	{"ja", render.Recipient{FirstName: "太郎", LastName: "山田"}, "Go カンファレンス 2026", [2]string{"プログラム委員長", "理事長"}},
}

// languagePreview renders a system template for each of languageSamples, side by side, as
// DIR/lang-NAME.png: the template's fixed words and dates in the event's language.
func languagePreview(dir, base string, t domain.Template, logo string) error {
	var pages []*image.RGBA
	for _, s := range languageSamples {
		tmpl, err := templates.ForRenderingIn(t, s.locale)
		if err != nil {
			return err
		}
		d := render.GallerySample(s.recipient)
		d.IssuerLogo, d.Event.Name = logo, s.event
		for i := range d.Signatories {
			d.Signatories[i].Title = s.titles[i]
		}
		img, err := render.Image(tmpl, d, 72)
		if err != nil {
			return err
		}
		pages = append(pages, img)
	}
	return write(filepath.Join(dir, "lang-"+base+".png"), contactSheet(pages))
}

// contactSheet sets pages two by two on a light grey ground.
func contactSheet(pages []*image.RGBA) []byte {
	const gap = 16
	w, h := pages[0].Bounds().Dx(), pages[0].Bounds().Dy()
	rows := (len(pages) + 1) / 2
	sheet := image.NewRGBA(image.Rect(0, 0, 2*w+3*gap, rows*h+(rows+1)*gap))
	draw.Draw(sheet, sheet.Bounds(), image.NewUniform(color.RGBA{0xE5, 0xE7, 0xEB, 255}), image.Point{}, draw.Src)
	for i, p := range pages {
		x, y := gap+(i%2)*(w+gap), gap+(i/2)*(h+gap)
		draw.Draw(sheet, image.Rect(x, y, x+w, y+h), p, image.Point{}, draw.Src)
	}
	return encodePNG(render.Paletted(sheet))
}

// encodePNG encodes a preview as compactly as the encoder can: previews live in the repository.
func encodePNG(img image.Image) []byte {
	var buf bytes.Buffer
	_ = (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, img)
	return buf.Bytes()
}

func write(name string, b []byte) error {
	if err := os.WriteFile(name, b, 0o644); err != nil {
		return err
	}
	fmt.Println(name)
	return nil
}

// sampleBadges are generated badge images for three names of different lengths.
var sampleBadges = []struct {
	file string
	art  render.BadgeArt
}{
	{"badge-short.png", render.BadgeArt{Name: "Speaker", Issuer: "Gophers e.V.", Color: "#1F6FEB"}},
	{"badge-medium.png", render.BadgeArt{Name: "Certified Kubernetes Workshop Facilitator", Issuer: "Cloud Native Academy", Color: "#8A5A00"}},
	{"badge-long.png", render.BadgeArt{Name: "Distinguished Contributor to Open Source Infrastructure and Community 2026", Issuer: "Open Source Foundation of Northern Europe", Color: "#7B1FA2"}},
}

// badgePreviews renders the generated images of sampleBadges into dir, for the README.
func badgePreviews(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, b := range sampleBadges {
		img, err := render.BadgePNG(b.art, 400)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, b.file), img, 0o644); err != nil {
			return err
		}
		fmt.Println(filepath.Join(dir, b.file))
	}
	return nil
}
