// Package webchat serves WebChat, the gateway's browser chat page, at
// /webchat/: one HTML page, its scripts (the client and its Markdown
// renderer) and one stylesheet, embedded in the binary, with no build step
// and nothing loaded from other hosts.
//
// The page is a client of the bus like any other: it opens a WebSocket to
// the origin that served it, answers connect.challenge with connect (role
// operator, scopes operator.read and operator.write, the gateway token the
// user typed, and a browser device identity when the browser can make an
// Ed25519 key), then uses chat.history, chat.send, chat.abort and
// sessions.list and renders the chat events. This package holds no state
// and no credentials; the handler is safe for concurrent use.
//
// Every response carries a Content-Security-Policy that allows the page's
// own files and WebSocket connections to the host that served it, and
// nothing else: no inline script or style, no frames, no form submission.
package webchat

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Prefix is the path the handler is mounted at.
const Prefix = "/webchat/"

//go:embed static/index.html static/app.js static/markdown.js static/app.css
var static embed.FS

// asset is one embedded file, ready to serve.
type asset struct {
	body        []byte
	contentType string
	etag        string
	// cache is the Cache-Control value: the page is revalidated on every
	// load so a new gateway version takes effect at once.
	cache string
}

// Handler serves the WebChat page. Mount it at Prefix.
type Handler struct {
	assets map[string]asset // by path below Prefix; "" is the page
}

// New builds the handler from the embedded files.
func New() *Handler {
	h := &Handler{assets: map[string]asset{}}
	add := func(name, file, contentType string) {
		body, err := static.ReadFile("static/" + file)
		if err != nil {
			panic("webchat: embedded file missing: " + file) // a build mistake, caught by the tests
		}
		sum := sha256.Sum256(body)
		h.assets[name] = asset{body: body, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, cache: "no-cache"}
	}
	add("", "index.html", "text/html; charset=utf-8")
	add("index.html", "index.html", "text/html; charset=utf-8")
	add("app.js", "app.js", "text/javascript; charset=utf-8")
	add("markdown.js", "markdown.js", "text/javascript; charset=utf-8")
	add("app.css", "app.css", "text/css; charset=utf-8")
	return h
}

// ServeHTTP serves the page and its files; every other path under
// Prefix is 404 (there is no directory listing).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", ContentSecurityPolicy(r.Host))
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")

	name, ok := strings.CutPrefix(r.URL.Path, Prefix)
	a, found := h.assets[name]
	if !ok || !found {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hdr.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hdr.Set("Content-Type", a.contentType)
	hdr.Set("Cache-Control", a.cache)
	hdr.Set("ETag", a.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}

// hostPattern is what a Host header may look like to be named in the
// policy: a name or address with an optional port. Anything else (the
// header is the client's) leaves only 'self'.
var hostPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$`)
})

// ContentSecurityPolicy is the policy of WebChat responses for a request
// to host: the page's own script and style only, images from the page or
// inline data: URLs (the WhatsApp link QR code comes as one), and
// WebSocket connections back to the same host ('self' covers ws: and
// wss: of the same host in current browsers; the explicit sources cover
// older ones).
func ContentSecurityPolicy(host string) string {
	connect := "'self'"
	if hostPattern().MatchString(host) {
		connect += " ws://" + host + " wss://" + host
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src 'self'",
		"style-src 'self'",
		"img-src 'self' data:",
		"connect-src " + connect,
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors 'none'",
	}, "; ")
}
