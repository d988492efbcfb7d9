package webchat

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func serve(t *testing.T, h http.Handler, method, path, host string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, "http://gateway.test"+path, nil)
	if host != "" {
		req.Host = host
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func TestHandlerServesFiles(t *testing.T) {
	h := New()
	tests := []struct {
		name, path, contentType, contains string
	}{
		{"page", "/webchat/", "text/html; charset=utf-8", `<script type="module" src="app.js"></script>`},
		{"page by name", "/webchat/index.html", "text/html; charset=utf-8", "<title>OpenClaw WebChat</title>"},
		{"script", "/webchat/app.js", "text/javascript; charset=utf-8", "connect.challenge"},
		{"markdown renderer", "/webchat/markdown.js", "text/javascript; charset=utf-8", "export function renderMarkdown"},
		{"stylesheet", "/webchat/app.css", "text/css; charset=utf-8", "#messages"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := serve(t, h, http.MethodGet, tc.path, "127.0.0.1:18789")
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %d %s", tc.path, resp.StatusCode, body)
			}
			if got := resp.Header.Get("Content-Type"); got != tc.contentType {
				t.Errorf("Content-Type = %q, want %q", got, tc.contentType)
			}
			if !strings.Contains(string(body), tc.contains) {
				t.Errorf("body lacks %q", tc.contains)
			}
			checkSecurityHeaders(t, resp, "127.0.0.1:18789")
			if resp.Header.Get("ETag") == "" {
				t.Error("no ETag")
			}
		})
	}
}

func checkSecurityHeaders(t *testing.T, resp *http.Response, host string) {
	t.Helper()
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{
		"default-src 'none'", "script-src 'self'", "style-src 'self'",
		"connect-src 'self' ws://" + host + " wss://" + host, "frame-ancestors 'none'", "form-action 'none'", "base-uri 'none'",
	} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "*") {
		t.Errorf("CSP %q allows more than the page's own files", csp)
	}
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options = %q", got)
	}
}

func TestHandlerRefusesOtherPaths(t *testing.T) {
	h := New()
	for _, path := range []string{
		"/webchat/static/", "/webchat/static/app.js", "/webchat/nope.js", "/webchat/app.js/",
		"/webchat/../webchat/app.js", "/webchat//", "/webchat/.", "/webchat/index.htm", "/other/app.js",
	} {
		t.Run(path, func(t *testing.T) {
			resp := serve(t, h, http.MethodGet, path, "")
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusNotFound {
				t.Fatalf("GET %s: %d, want 404", path, resp.StatusCode)
			}
			if strings.Contains(string(body), "<a href") || strings.Contains(string(body), "app.js") {
				t.Errorf("GET %s lists files: %s", path, body)
			}
			if resp.Header.Get("Content-Security-Policy") == "" {
				t.Error("404 without a CSP")
			}
		})
	}
}

func TestHandlerMethods(t *testing.T) {
	h := New()
	resp := serve(t, h, http.MethodHead, "/webchat/", "")
	if resp.StatusCode != http.StatusOK {
		t.Errorf("HEAD: %d", resp.StatusCode)
	}
	resp = serve(t, h, http.MethodPost, "/webchat/", "")
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestHandlerRevalidates(t *testing.T) {
	h := New()
	first := serve(t, h, http.MethodGet, "/webchat/app.js", "")
	req := httptest.NewRequest(http.MethodGet, "/webchat/app.js", nil)
	req.Header.Set("If-None-Match", first.Header.Get("ETag"))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified {
		t.Errorf("conditional GET: %d, want 304", rec.Code)
	}
}

func TestContentSecurityPolicyHost(t *testing.T) {
	tests := []struct {
		host    string
		connect string
	}{
		{"127.0.0.1:18789", "connect-src 'self' ws://127.0.0.1:18789 wss://127.0.0.1:18789;"},
		{"[::1]:18789", "connect-src 'self' ws://[::1]:18789 wss://[::1]:18789;"},
		{"gateway.example", "connect-src 'self' ws://gateway.example wss://gateway.example;"},
		// A Host that could break out of the directive names nothing.
		{"evil.example; script-src *", "connect-src 'self';"},
		{"a b", "connect-src 'self';"},
		{"", "connect-src 'self';"},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			if got := ContentSecurityPolicy(tc.host); !strings.Contains(got, tc.connect) {
				t.Errorf("ContentSecurityPolicy(%q) = %q, want %q", tc.host, got, tc.connect)
			}
		})
	}
}

// TestContentSecurityPolicyImages: images may come from the page or be
// inline data: URLs (the WhatsApp QR code), never from another host or a
// blob, and nothing else gains data:.
func TestContentSecurityPolicyImages(t *testing.T) {
	csp := ContentSecurityPolicy("127.0.0.1:18789")
	var img []string
	for _, d := range strings.Split(csp, ";") {
		f := strings.Fields(d)
		if len(f) == 0 {
			continue
		}
		if f[0] == "img-src" {
			img = f[1:]
		} else if strings.Contains(d, "data:") {
			t.Errorf("directive %q allows data:", strings.TrimSpace(d))
		}
	}
	if strings.Join(img, " ") != "'self' data:" {
		t.Errorf("img-src %q, want exactly 'self' data: (CSP %q)", img, csp)
	}
}

// TestPageHasNoInlineCode: the strict policy forbids inline script and
// style, so the page must not need them, and nothing may come from
// another host.
func TestPageHasNoInlineCode(t *testing.T) {
	for _, name := range []string{"index.html", "app.js", "markdown.js", "app.css"} {
		data, err := static.ReadFile("static/" + name)
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		if regexp.MustCompile(`https?://`).MatchString(s) {
			t.Errorf("%s refers to another host", name)
		}
		if name == "index.html" {
			if regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]+</script>|<style|\sstyle=|\son[a-z]+=`).MatchString(s) {
				t.Errorf("%s has inline script or style", name)
			}
		}
		if strings.HasSuffix(name, ".js") && regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function`).MatchString(s) {
			t.Errorf("%s renders HTML from strings", name)
		}
	}
}
