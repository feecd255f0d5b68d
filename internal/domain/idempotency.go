package domain

// StoredResponse is the answer remembered under a key: status, the headers kept, the body.
type StoredResponse struct {
	Status int
	Header map[string][]string
	Body   []byte
}
