package site

import (
	"bytes"
	"compress/gzip"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/certhub/credentiald/internal/memory"
	"github.com/certhub/credentiald/internal/verification"
)

// keptPagesBudget bounds the bytes of the public verification pages kept, compressed: some
// 10,000 pages of 3 KB.
const keptPagesBudget = 32 << 20

// keptPages keeps the public verification pages of certificates as they were sent, gzip
// compressed, by everything they show (pageKey): a page asked again is written as it is,
// without its view, its rendering or its compression. A change to what a page shows makes
// another key, so a page kept is never stale; what is no longer asked goes out least recently
// used first. The recipient's page (with a token) and badges' pages are never kept: the first
// carries the token and the wallet, and a badge's page shows the badge as it is now, which its
// assertion's dates do not follow.
type keptPages struct {
	lru  *lru.Cache[string, keptPage]
	used atomic.Int64
}

// keptPage is a page as sent: its Content-Security-Policy and its body, gzip compressed.
type keptPage struct {
	csp string
	gz  []byte
}

func newKeptPages() *keptPages {
	k := &keptPages{}
	// The count only bounds the map; the budget of bytes is what evicts (put).
	l, err := lru.NewWithEvict(keptPagesBudget/1024, func(_ string, p keptPage) {
		k.used.Add(-int64(len(p.gz)))
		memory.Hold(-int64(len(p.gz)))
	})
	if err != nil {
		panic(err) // a positive size never fails
	}
	k.lru = l
	return k
}

func (k *keptPages) get(key string) (keptPage, bool) { return k.lru.Get(key) }

// put keeps p under key (a page made twice at once is kept once), then forgets the least
// recently used pages past the budget.
func (k *keptPages) put(key string, p keptPage) {
	if ok, _ := k.lru.ContainsOrAdd(key, p); ok {
		return
	}
	k.used.Add(int64(len(p.gz)))
	memory.Hold(int64(len(p.gz)))
	for k.used.Load() > keptPagesBudget {
		if _, _, ok := k.lru.RemoveOldest(); !ok {
			return
		}
	}
}

// pageKey names everything a public certificate page may show: every field of the credential
// (TestPageKeyNamesEveryFieldOfTheCredential holds it to all of them), its status at this time
// among them, the page's language, and the path and the query parameters its language links
// repeat. The language's catalog and the page's markup are the binary's. A change made to the
// database behind the service's back (which moves no updated_at) still makes another key.
func pageKey(c verification.Credential, l lang, path, kept string) string {
	var b strings.Builder
	b.Grow(256 + len(c.Name) + len(c.Issuer.Name) + len(path) + len(kept))
	add := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
			b.WriteByte(0)
		}
	}
	str := func(p *string) string {
		if p == nil {
			return "\x01"
		}
		return "=" + *p
	}
	at := func(t *time.Time) string {
		if t == nil {
			return "-"
		}
		return strconv.FormatInt(t.UnixNano(), 36)
	}
	add(strconv.FormatBool(c.Erased), string(c.Kind), c.ID.String(), c.AccountID.String(), c.EventID.String(), c.AttendeeID.String(), c.Code, c.Number,
		c.Name, str(c.Description), c.RecipientName, c.RecipientFirstName, string(c.Status), at(&c.IssuedAt),
		at(c.ExpiresAt), at(c.RevokedAt), str(c.RevocationReason), str(c.ReasonCode), at(c.EventDate), c.EventLocation,
		c.Locale, c.Issuer.Name, str(c.Issuer.Website), c.Issuer.Color, strconv.FormatBool(c.Issuer.HasLogo),
		at(&c.UpdatedAt), string(l), path, kept)
	return b.String()
}

var gzipWriters = sync.Pool{New: func() any { w, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression); return w }}

// compress returns html gzip compressed.
func compress(html []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(html) / 3)
	w := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(w)
	w.Reset(&out)
	_, _ = w.Write(html) // a bytes.Buffer takes everything
	_ = w.Close()
	return bytes.Clone(out.Bytes()) // exactly its length: what the budget counts is what is held
}

var gzipReaders sync.Pool

// decompress returns what compress made of a page, for a client that takes no gzip.
func decompress(gz []byte) ([]byte, error) {
	r, _ := gzipReaders.Get().(*gzip.Reader)
	var err error
	if r == nil {
		r, err = gzip.NewReader(bytes.NewReader(gz))
	} else {
		err = r.Reset(bytes.NewReader(gz))
	}
	if err != nil {
		return nil, err
	}
	defer gzipReaders.Put(r)
	return io.ReadAll(r)
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip (RFC 9110 12.5.3): named,
// or by "*", with a weight above zero.
func acceptsGzip(header string) bool {
	star := false
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "x-gzip" && coding != "*" {
			continue
		}
		weight := 1.0
		for p := range strings.SplitSeq(params, ";") {
			if name, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(strings.TrimSpace(name), "q") {
				if w, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					weight = w
				}
			}
		}
		if coding != "*" {
			return weight > 0 // gzip named: its own weight decides, whatever "*" says
		}
		star = weight > 0
	}
	return star
}
