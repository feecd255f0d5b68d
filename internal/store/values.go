package store

// Deref is the value p points to, or T's zero value when p is nil: an optional field (nil:
// unset) read as a plain value.
func Deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}
