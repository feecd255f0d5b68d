package httpmw

import (
	"context"
	"strconv"
	"strings"
)

type acceptKey struct{}

// withAccept keeps the request's Accept header for the handlers: the strict request objects
// carry no headers the contract does not declare.
func withAccept(ctx context.Context, accept string) context.Context {
	return context.WithValue(ctx, acceptKey{}, accept)
}

// Prefers reports whether the request's Accept header ranks media type a above b. Each is
// weighed by its most specific matching range (type/subtype, then type/*, then */*).
func Prefers(ctx context.Context, a, b string) bool {
	accept, _ := ctx.Value(acceptKey{}).(string)
	return quality(accept, a) > quality(accept, b)
}

func quality(accept, media string) float64 {
	if strings.TrimSpace(accept) == "" {
		return 1
	}
	typ, _, _ := strings.Cut(media, "/")
	best, bestSpecificity := 0.0, -1
	for _, part := range strings.Split(accept, ",") {
		fields := strings.Split(part, ";")
		rng := strings.ToLower(strings.TrimSpace(fields[0]))
		q := 1.0
		for _, p := range fields[1:] {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		specificity := -1
		switch rng {
		case media:
			specificity = 2
		case typ + "/*":
			specificity = 1
		case "*/*":
			specificity = 0
		}
		if specificity > bestSpecificity {
			best, bestSpecificity = q, specificity
		}
	}
	return best
}
