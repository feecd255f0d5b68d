package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// The repository's root, from this package's folder (where go test runs).
const docsRoot = "../.."

// Every relative link and image of the README and of docs/ points at a file that exists, and
// every #anchor into a Markdown file names a heading there, as GitHub makes its anchors.
func TestDocsLinksResolve(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(docsRoot)
	if err != nil {
		t.Fatal(err)
	}
	files := documentationFiles(t, root)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) (map[string]bool, error) {
		if a, ok := anchors[path]; ok {
			return a, nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		anchors[path] = markdownAnchors(string(b))
		return anchors[path], nil
	}
	checked := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		for _, l := range markdownLinks(string(b)) {
			if isExternal(l.target) {
				continue
			}
			checked++
			where := fmt.Sprintf("%s:%d: %s", rel, l.line, l.target)
			rawPath, fragment, _ := strings.Cut(l.target, "#")
			path, err := url.PathUnescape(rawPath)
			if err != nil {
				t.Errorf("%s: the path is not a valid URL path: %v", where, err)
				continue
			}
			target := file
			if path != "" {
				if strings.HasPrefix(path, "/") {
					t.Errorf("%s: an absolute path; write it relative to %s", where, rel)
					continue
				}
				target = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
			}
			if r, err := filepath.Rel(root, target); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				t.Errorf("%s: points outside the repository", where)
				continue
			}
			info, err := os.Stat(target)
			if err != nil {
				t.Errorf("%s: no such file", where)
				continue
			}
			if fragment == "" || info.IsDir() || !strings.EqualFold(filepath.Ext(target), ".md") {
				continue
			}
			fragment, err = url.PathUnescape(fragment)
			if err != nil {
				t.Errorf("%s: the anchor is not valid: %v", where, err)
				continue
			}
			a, err := anchorsOf(target)
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			if !a[fragment] {
				t.Errorf("%s: %s has no heading with the anchor #%s (it has: %s)", where, filepath.Base(target), fragment, strings.Join(sortedKeys(a), ", "))
			}
		}
	}
	if checked == 0 {
		t.Fatal("found no relative link to check: is the parser broken?")
	}
}

// The README's map of docs/ names every document there.
func TestDocsMapListsEveryDocument(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(docsRoot)
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	for _, l := range markdownLinks(string(readme)) {
		path, _, _ := strings.Cut(l.target, "#")
		linked[filepath.Clean(filepath.FromSlash(path))] = true
	}
	for _, file := range documentationFiles(t, root) {
		rel, _ := filepath.Rel(root, file)
		if rel != "README.md" && !linked[rel] {
			t.Errorf("README.md does not link %s: add it to the map of docs/", filepath.ToSlash(rel))
		}
	}
}

// Anchors are made as GitHub makes them: the heading's text, lower-cased, punctuation dropped,
// each space a hyphen, and -1, -2... after a repeated one.
func TestDocsAnchorsFollowGitHubRules(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		doc  string
		want []string
	}{
		{"# credentiald\n", []string{"credentiald"}},
		{"## Over HTTP: `make bench-http`\n", []string{"over-http-make-bench-http"}},
		{"## Following `POST /certificates/generate`\n", []string{"following-post-certificatesgenerate"}},
		{"### Faces, fitting, bold CJK ###\n", []string{"faces-fitting-bold-cjk"}},
		{"## The documentation's links\n", []string{"the-documentations-links"}},
		{"## See [the API](api.md) and *more*\n", []string{"see-the-api-and-more"}},
		{"## Über die `GOGC`-Wahl\n", []string{"über-die-gogc-wahl"}},
		{"## snake_case  twice\n", []string{"snake_case--twice"}},
		{"## Tests\n## Tests\n## Tests\n", []string{"tests", "tests-1", "tests-2"}},
		{"Setext\n======\n\nAnother\n-------\n", []string{"setext", "another"}},
		{"```sh\n# 0. not a heading\n```\n## After\n", []string{"after"}},
		{"<a name=\"kept\"></a>\n", []string{"kept"}},
	} {
		got := sortedKeys(markdownAnchors(c.doc))
		want := append([]string(nil), c.want...)
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%q: anchors %q, want %q", c.doc, got, want)
		}
	}
}

// The links the parser finds: inline links and images (code spans and fenced blocks skipped),
// reference definitions, and the href and src of HTML tags.
func TestDocsLinksAreFoundWhereMarkdownHasThem(t *testing.T) {
	t.Parallel()
	doc := "See [a](a.md#x) and ![b](docs/b.png \"title\"), [c `d`](<c d.md>).\n" +
		"Not `[e](e.md)` nor:\n```md\n[f](f.md)\n```\n" +
		"[g]: g.md\n<img src=\"h.png\"> [i\n(wrapped)](i.md)\n"
	var got []string
	for _, l := range markdownLinks(doc) {
		got = append(got, fmt.Sprintf("%d:%s", l.line, l.target))
	}
	want := []string{"1:a.md#x", "1:docs/b.png", "1:c d.md", "6:g.md", "7:h.png", "8:i.md"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("links %q, want %q", got, want)
	}
}

// documentationFiles lists README.md and the Markdown files of docs/ and docs/decisions/.
func documentationFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{filepath.Join(root, "README.md")}
	for _, pattern := range []string{"docs/*.md", "docs/decisions/*.md"} {
		m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(pattern)))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

type markdownLink struct {
	target string
	line   int
}

var (
	inlineLink       = regexp.MustCompile(`\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+("[^"]*"|'[^']*'|\([^)]*\)))?\s*\)`)
	referenceLink    = regexp.MustCompile(`(?m)^ {0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)`)
	htmlLink         = regexp.MustCompile(`(?i)<(?:a|img|source)\b[^>]*?\s(?:href|src)\s*=\s*"([^"]*)"`)
	htmlAnchor       = regexp.MustCompile(`(?i)<a\b[^>]*?\s(?:name|id)\s*=\s*"([^"]*)"`)
	atxHeading       = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextLine       = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	markdownLinkText = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
)

// markdownLinks returns the link targets of a Markdown text with the line each starts on.
func markdownLinks(doc string) []markdownLink {
	text := withoutCode(doc)
	var links []markdownLink
	add := func(offset int, target string) {
		target = strings.TrimSuffix(strings.TrimPrefix(target, "<"), ">")
		links = append(links, markdownLink{target: target, line: 1 + strings.Count(text[:offset], "\n")})
	}
	type found struct {
		offset int
		target string
	}
	var all []found
	for _, re := range []*regexp.Regexp{inlineLink, referenceLink, htmlLink} {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			all = append(all, found{m[2], text[m[2]:m[3]]})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].offset < all[j].offset })
	for _, f := range all {
		add(f.offset, f.target)
	}
	return links
}

// withoutCode blanks fenced code blocks and code spans, keeping every line break and every
// other byte where it was, so that offsets still give line numbers.
func withoutCode(doc string) string {
	lines := strings.SplitAfter(doc, "\n")
	fence := ""
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		if fence == "" {
			if len(line)-len(trimmed) <= 3 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
				fence = trimmed[:3]
				lines[i] = blank(line)
			}
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), fence) {
			fence = ""
		}
		lines[i] = blank(line)
	}
	return blankCodeSpans(strings.Join(lines, ""))
}

// blankCodeSpans blanks each code span: a run of backticks up to the next run of as many.
func blankCodeSpans(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := backtickRun(b, i)
		end := -1
		for j := i + n; j < len(b); {
			if b[j] != '`' {
				j++
				continue
			}
			m := backtickRun(b, j)
			if m == n {
				end = j
				break
			}
			j += m
		}
		if end < 0 {
			i += n
			continue
		}
		for k := i; k < end+n; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
		i = end + n
	}
	return string(b)
}

func backtickRun(b []byte, i int) int {
	n := 0
	for i+n < len(b) && b[i+n] == '`' {
		n++
	}
	return n
}

func blank(line string) string {
	if strings.HasSuffix(line, "\n") {
		return strings.Repeat(" ", len(line)-1) + "\n"
	}
	return strings.Repeat(" ", len(line))
}

// markdownAnchors returns the anchors GitHub gives the headings of a Markdown text (and the
// names of its HTML anchors).
func markdownAnchors(doc string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	addHeading := func(text string) {
		slug := headingSlug(text)
		if n, ok := seen[slug]; ok {
			for {
				n++
				candidate := fmt.Sprintf("%s-%d", slug, n)
				if _, taken := seen[candidate]; !taken {
					seen[slug] = n
					slug = candidate
					break
				}
			}
		}
		seen[slug] = 0
		anchors[slug] = true
	}
	lines := strings.Split(withoutFences(doc), "\n")
	for i, line := range lines {
		if m := atxHeading.FindStringSubmatch(line); m != nil {
			addHeading(m[1])
			continue
		}
		if i > 0 && setextLine.MatchString(line) {
			prev := strings.TrimSpace(lines[i-1])
			if prev != "" && !strings.HasPrefix(prev, "|") && !strings.HasPrefix(prev, "#") &&
				!strings.HasPrefix(prev, "- ") && !strings.HasPrefix(prev, "* ") && !setextLine.MatchString(lines[i-1]) {
				addHeading(prev)
			}
		}
	}
	for _, m := range htmlAnchor.FindAllStringSubmatch(doc, -1) {
		anchors[m[1]] = true
	}
	return anchors
}

// withoutFences blanks fenced code blocks only (a heading's code spans are part of its text).
func withoutFences(doc string) string {
	lines := strings.Split(doc, "\n")
	fence := ""
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		if fence == "" {
			if len(line)-len(trimmed) <= 3 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
				fence = trimmed[:3]
				lines[i] = ""
			}
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), fence) {
			fence = ""
		}
		lines[i] = ""
	}
	return strings.Join(lines, "\n")
}

// headingSlug is GitHub's anchor for a heading: the text as rendered (links and images become
// their text, code spans lose their backticks, emphasis its asterisks), lower-cased; every
// character that is not a letter, a mark, a number, a connector such as '_', a space or a
// hyphen is dropped, and each space becomes a hyphen.
func headingSlug(heading string) string {
	text := markdownLinkText.ReplaceAllString(heading, "$1")
	text = strings.NewReplacer("`", "", "*", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsNumber(r) || unicode.Is(unicode.Pc, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isExternal reports whether a link leaves the repository: a URL with a scheme, or one that
// names a host.
func isExternal(target string) bool {
	if strings.HasPrefix(target, "//") {
		return true
	}
	u, err := url.Parse(target)
	return err == nil && u.Scheme != ""
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
