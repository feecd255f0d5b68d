package render

import "time"

// GalleryNames are the recipients every system template is shown with in the documentation
// (make docs) and tested with: a short Latin name, a long compound one, a Chinese name (set
// family name first) and a name that mixes scripts.
var GalleryNames = []Recipient{
	{FirstName: "Ada", LastName: "Lovelace"},
	{FirstName: "Maria Fernanda de los Ángeles", LastName: "García-Villanueva"},
	{FirstName: "小龙", LastName: "李"},
	{FirstName: "Jürgen", LastName: "鈴木"},
}

// GallerySample is the sample certificate of the gallery, for r.
func GallerySample(r Recipient) Data {
	expires := time.Date(2028, 11, 12, 0, 0, 0, 0, time.UTC)
	return Data{
		Recipient:       r,
		Event:           Event{Name: "Go Conference 2026", Date: time.Date(2026, 11, 12, 9, 0, 0, 0, time.UTC), Location: "Berlin"},
		Certificate:     Certificate{Number: "CERT-2026-000042", IssuedAt: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), ExpiresAt: &expires},
		IssuerName:      "Gophers e.V.",
		VerificationURL: "https://certs.example.org/verify/7K3M9QX2PB4TW8",
		Signatories: []Signatory{
			{Name: "Grace Hopper", Title: "Programme Chair"},
			{Name: "Alan Turing", Title: "Director"},
		},
	}
}
