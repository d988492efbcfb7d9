package ui

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func TestServesPageAndAssetsWithCSP(t *testing.T) {
	h := New()
	for path, want := range map[string]string{"/": "text/html", "/ui/views.js": "text/javascript", "/ui/app.css": "text/css", "/ui/theme.js": "text/javascript", "/ui/logo.svg": "image/svg+xml"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:18789"+path, nil)
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, rec.Code)
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, want) {
			t.Errorf("GET %s content type %q, want %s", path, ct, want)
		}
		csp := rec.Header().Get("Content-Security-Policy")
		for _, part := range []string{"script-src 'self'", "default-src 'none'", "connect-src 'self' ws://127.0.0.1:18789 wss://127.0.0.1:18789", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, part) {
				t.Errorf("GET %s: CSP %q lacks %q", path, csp, part)
			}
		}
	}
}

// svgNamespace is the one URL the files may name: it is an XML namespace
// (in the logo and the icons' data: URLs), never fetched.
const svgNamespace = "http://www.w3.org/2000/svg"

func TestPageHasNoInlineScriptAndNoCDN(t *testing.T) {
	body, err := static.ReadFile("static/index.html")
	if err != nil {
		t.Fatal(err)
	}
	page := string(body)
	// Two scripts, both files: the theme (classic, so it applies before the
	// first paint) and the shell module.
	if strings.Count(page, "<script") != 2 || !strings.Contains(page, `<script type="module" src="ui/views.js"></script>`) ||
		!strings.Contains(page, `<script src="ui/theme.js"></script>`) {
		t.Errorf("the page must load exactly two external scripts, ui/theme.js and ui/views.js")
	}
	if regexp.MustCompile(`<script[^>]*>[^<]+</script>|<style|\sstyle=|\son[a-z]+=`).MatchString(page) {
		t.Errorf("inline script, style or event handler in the page")
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Errorf("the page names another host")
	}
	entries, err := static.ReadDir("static")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		body, _ := static.ReadFile("static/" + e.Name())
		text := strings.ReplaceAll(string(body), svgNamespace, "")
		for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "http://", "https://", "setAttribute('style'"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s contains %q", e.Name(), bad)
			}
		}
		// Only the theme choice lives in localStorage; the token stays in
		// sessionStorage.
		if strings.Contains(text, "localStorage") && (e.Name() != "theme.js" || strings.Count(text, "'openclaw.control.theme'") != 1 ||
			regexp.MustCompile(`localStorage\.setItem\((?:[^K]|K[^E])`).MatchString(text)) {
			t.Errorf("%s uses localStorage for something other than the theme", e.Name())
		}
	}
}

// TestLogoIsInert: the logo is also served on its own (and is the
// favicon), so it must hold nothing active.
func TestLogoIsInert(t *testing.T) {
	body, err := static.ReadFile("static/logo.svg")
	if err != nil {
		t.Fatal(err)
	}
	svg := strings.ToLower(strings.ReplaceAll(string(body), svgNamespace, ""))
	for _, bad := range []string{"<script", "<foreignobject", "javascript:", "href", "<image", "<style", "://"} {
		if strings.Contains(svg, bad) {
			t.Errorf("logo.svg contains %q", bad)
		}
	}
	if regexp.MustCompile(`\son[a-z]+\s*=`).MatchString(svg) {
		t.Errorf("logo.svg has an event handler")
	}
}

func TestOtherPathsAndMethods(t *testing.T) {
	h := New()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ui/nope.js", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("unknown asset = %d, want 404", rec.Code)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST / = %d, want 405", rec.Code)
	}
}
