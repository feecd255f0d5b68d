package main

import (
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	dbfiles "github.com/certhub/credentiald/db"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/templates"
)

// sampleLogo is a simple mark standing in for an issuer's logo in the documentation.
const sampleLogo = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 120">
<polygon points="60,6 107,33 107,87 60,114 13,87 13,33" fill="#1F2A44"/>
<polygon points="60,24 91,42 91,78 60,96 29,78 29,42" fill="#C9A227"/>
<circle cx="60" cy="60" r="14" fill="#FFFFFF"/></svg>`

// templatePreviews renders every system template with sample data into dir, for the README.
func templatePreviews(dir string) error {
	files, err := fs.Glob(dbfiles.SystemTemplates, "system-templates/*.json")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	expires := time.Date(2028, 11, 12, 0, 0, 0, 0, time.UTC)
	data := render.Data{
		Recipient:       render.Recipient{FirstName: "Łukasz", LastName: "Żółć"},
		Event:           render.Event{Name: "Go Conference 2026", Date: time.Date(2026, 11, 12, 9, 0, 0, 0, time.UTC), Location: "Berlin"},
		Certificate:     render.Certificate{Number: "CERT-2026-000042", IssuedAt: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), ExpiresAt: &expires},
		IssuerName:      "Gophers e.V.",
		IssuerLogo:      "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(sampleLogo)),
		VerificationURL: "https://certs.example.org/verify/7K3M9QX2PB4TW8",
	}
	for _, f := range files {
		t, err := store.SystemTemplate(f)
		if err != nil {
			return err
		}
		tmpl, err := templates.ForRendering(t)
		if err != nil {
			return err
		}
		png, err := render.PNG(tmpl, data, 110)
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		name := filepath.Join(dir, "template-"+strings.TrimSuffix(filepath.Base(f), ".json")+".png")
		if err := os.WriteFile(name, png, 0o644); err != nil {
			return err
		}
		fmt.Println(name)
	}
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
