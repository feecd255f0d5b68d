package httpapi

// deref is the value an optional field of a generated request points to, or T's zero value
// when the field was left out (nil): the handlers' own reading of an optional field, so that
// they need nothing of the store's.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
