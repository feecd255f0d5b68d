package rdfc

import (
	"slices"
	"strconv"
)

// issuer is an identifier issuer (RDFC-1.0 §4.3): it gives blank nodes the identifiers prefix0,
// prefix1, ... in the order they are asked for, and remembers that order. Blank nodes are the
// canonicalization's indexes (0 to n-1), so an issuer is two small slices and a clone, made
// for every permutation tried, is two copies.
type issuer struct {
	prefix string
	issued []int32 // blank node -> its number, or -1
	order  []int32 // blank nodes, in the order they were issued
}

func newIssuer(prefix string, nodes int) *issuer {
	issued := make([]int32, nodes)
	for i := range issued {
		issued[i] = -1
	}
	return &issuer{prefix: prefix, issued: issued}
}

// issue is the Issue Identifier algorithm (§4.5); it returns the identifier's number.
func (i *issuer) issue(n int32) int32 {
	if v := i.issued[n]; v >= 0 {
		return v
	}
	v := int32(len(i.order))
	i.issued[n] = v
	i.order = append(i.order, n)
	return v
}

func (i *issuer) has(n int32) bool { return i.issued[n] >= 0 }

// id is the identifier issued to n, which must have one.
func (i *issuer) id(n int32) string { return i.prefix + strconv.Itoa(int(i.issued[n])) }

// appendID appends "_:" and the identifier issued to n, which must have one.
func (i *issuer) appendID(b []byte, n int32) []byte {
	b = append(b, "_:"...)
	b = append(b, i.prefix...)
	return strconv.AppendInt(b, int64(i.issued[n]), 10)
}

func (i *issuer) clone() *issuer {
	return &issuer{prefix: i.prefix, issued: slices.Clone(i.issued), order: slices.Clone(i.order)}
}

// nextPermutation rearranges p into the next permutation in lexicographic order and reports
// whether there was one; starting from a sorted list it visits every distinct permutation once.
func nextPermutation(p []int32) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	slices.Reverse(p[i+1:])
	return true
}
