package ui

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestServesPageAndAssetsWithCSP(t *testing.T) {
	h := New()
	for path, want := range map[string]string{"/": "text/html", "/ui/views.js": "text/javascript", "/ui/app.css": "text/css"} {
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

func TestPageHasNoInlineScriptAndNoCDN(t *testing.T) {
	body, err := static.ReadFile("static/index.html")
	if err != nil {
		t.Fatal(err)
	}
	page := string(body)
	if strings.Count(page, "<script") != 1 || !strings.Contains(page, `<script type="module" src="ui/views.js"></script>`) {
		t.Errorf("the page must load exactly one external script, ui/views.js")
	}
	for _, bad := range []string{"http://", "https://", " on", "style="} {
		if bad == " on" {
			if strings.Contains(page, " onclick") || strings.Contains(page, " onload") {
				t.Errorf("inline event handler in the page")
			}
			continue
		}
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	entries, err := static.ReadDir("static")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		body, _ := static.ReadFile("static/" + e.Name())
		for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "localStorage", "eval(", "new Function", "http://", "https://"} {
			if strings.Contains(string(body), bad) {
				t.Errorf("%s contains %q", e.Name(), bad)
			}
		}
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
