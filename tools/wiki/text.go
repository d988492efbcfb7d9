package wiki

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on what the model may store and ask for. They bound the database
// and every answer, whatever a prompt-injected model tries.
const (
	maxSlugRunes   = 80
	maxTitleRunes  = 200
	maxBodyBytes   = 128 << 10 // one page's Markdown
	maxSourceBytes = 32 << 10  // one source's text
	maxSources     = 100       // sources of one page
	maxSourcesCall = 20        // sources one call adds
	maxRefRunes    = 500       // a source's reference (URL, file, note)
	maxPages       = 5000      // pages of one agent's wiki
	maxReadMany    = 10        // pages one wiki_read_many returns
	maxLinks       = 200       // links one page makes
	maxQueryTerms  = 16        // words of a search query kept
	maxTermRunes   = 64        // longest word of a search query kept
)

// maxWikiBytes bounds the page bodies and sources of one agent's wiki
// (a variable so that tests can lower it).
var maxWikiBytes int64 = 64 << 20

// errBadSlug is returned for a slug or title with no letter or digit.
var errBadSlug = errors.New("a page slug needs at least one letter or digit")

// Slug turns a title or a slug the model gave into the page's key: lower
// case letters and digits of any script, every other run of characters a
// single '-', at most 80 runes. Slugs are never used as file names (the
// wiki lives in the database only), but they are kept to this shape so
// that "../x", "x/../../y" and "X" all name one tidy key.
func Slug(s string) (string, error) {
	out := make([]rune, 0, 32)
	dash := false
	for _, r := range s {
		if len(out) > maxSlugRunes {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && len(out) > 0 {
				out = append(out, '-')
			}
			out = append(out, unicode.ToLower(r))
			dash = false
			continue
		}
		dash = true
	}
	if len(out) > maxSlugRunes {
		out = out[:maxSlugRunes]
	}
	slug := strings.TrimRight(string(out), "-")
	if slug == "" {
		return "", errBadSlug
	}
	return slug, nil
}

// cleanTitle trims a title and checks its length.
func cleanTitle(t string) (string, error) {
	t = strings.Join(strings.Fields(t), " ")
	if t == "" {
		return "", errors.New("title is required")
	}
	if utf8.RuneCountInString(t) > maxTitleRunes {
		return "", fmt.Errorf("title is longer than %d characters", maxTitleRunes)
	}
	return t, nil
}

// checkBody refuses a body over the page limit or not UTF-8.
func checkBody(body string) error {
	if len(body) > maxBodyBytes {
		return fmt.Errorf("page content is %d bytes; the most a page holds is %d", len(body), maxBodyBytes)
	}
	if !utf8.ValidString(body) {
		return errors.New("page content is not valid UTF-8")
	}
	return nil
}

// Links returns the slugs a body links to with [[Page name]] or
// [[slug|shown text]], in order of first appearance, without the page's
// own slug, at most maxLinks. Anything that does not close, or names no
// letter or digit, is plain text.
func Links(body, self string) []string {
	var out []string
	seen := map[string]bool{self: true}
	for len(out) < maxLinks {
		i := strings.Index(body, "[[")
		if i < 0 {
			break
		}
		body = body[i+2:]
		j := strings.Index(body, "]]")
		if j < 0 {
			break
		}
		target := body[:j]
		body = body[j+2:]
		if k := strings.IndexByte(target, '|'); k >= 0 {
			target = target[:k]
		}
		if k := strings.LastIndex(target, "[["); k >= 0 {
			target = target[k+2:] // "[[a [[b]]" links b
		}
		if strings.Contains(target, "\n") {
			continue
		}
		s, err := Slug(target)
		if err != nil || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// queryTerms are the words of a search query: runs of letters and digits
// (and '_'), at most maxQueryTerms of at most maxTermRunes each. Every FTS5
// operator, quote, column filter and parenthesis is dropped, so what the
// model types is searched for as text and never parsed as FTS5 syntax.
func queryTerms(q string) []string {
	var terms []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(q, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	}) {
		if utf8.RuneCountInString(f) > maxTermRunes {
			f = string([]rune(f)[:maxTermRunes])
		}
		f = strings.ToLower(f)
		if seen[f] {
			continue
		}
		seen[f] = true
		terms = append(terms, f)
		if len(terms) == maxQueryTerms {
			break
		}
	}
	return terms
}

// MatchExpr is the FTS5 MATCH expression for a query: each word a quoted
// string (a '"' inside doubled, though queryTerms leaves none), joined by
// op ("AND" or "OR"). An empty result means there is nothing to search.
// The expression is passed as a bound parameter, never spliced into SQL.
func MatchExpr(query, op string) string {
	terms := queryTerms(query)
	if op != "OR" {
		op = "AND"
	}
	for i, t := range terms {
		terms[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(terms, " "+op+" ")
}

// clip cuts s to at most n bytes on a rune boundary, saying so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n…[cut: " + fmt.Sprint(len(s)-cut) + " more bytes]"
}
