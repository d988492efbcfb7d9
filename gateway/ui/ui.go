// Package ui serves the Control UI, the gateway's browser console, at "/"
// with its script and stylesheet under /ui/: embedded in the binary, no
// build step, nothing loaded from other hosts. The page is a bus client
// like WebChat (whose connection code it reuses): login with the gateway
// token (kept in sessionStorage only), a device identity, and one module
// per view (Chat, Approvals, Sessions, Channels, Nodes, Tools, Cron,
// Config, Wiki) over the same RPC methods the CLI uses.
//
// Responses carry the same strict Content-Security-Policy as WebChat. The
// logo (also the favicon) is an SVG drawn here, with no script in it.
package ui

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/http"
	"path"
	"time"

	"github.com/openclaw-go/openclaw/gateway/webchat"
)

// AssetPrefix is where the page's script and stylesheet are served.
const AssetPrefix = "/ui/"

//go:embed static
var static embed.FS

// contentTypes are the kinds of file the UI is made of; a file of any
// other kind in static/ is a mistake caught at start.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
}

type asset struct {
	body        []byte
	contentType string
	etag        string
}

// Handler serves the page at "/" and its files under AssetPrefix. It is
// safe for concurrent use.
type Handler struct {
	assets map[string]asset // by request path
}

// New builds the handler from the embedded files.
func New() *Handler {
	h := &Handler{assets: map[string]asset{}}
	add := func(path, file, contentType string) {
		body, err := static.ReadFile("static/" + file)
		if err != nil {
			panic("ui: embedded file missing: " + file)
		}
		sum := sha256.Sum256(body)
		h.assets[path] = asset{body: body, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	}
	entries, err := static.ReadDir("static")
	if err != nil {
		panic("ui: embedded files missing: " + err.Error())
	}
	for _, e := range entries {
		name := e.Name()
		ct, ok := contentTypes[path.Ext(name)]
		if !ok {
			panic("ui: unexpected embedded file " + name)
		}
		if name == "index.html" {
			add("/", name, ct)
			continue
		}
		add(AssetPrefix+name, name, ct)
	}
	return h
}

// Serves reports whether the handler has a file for r's path.
func (h *Handler) Serves(r *http.Request) bool {
	_, ok := h.assets[r.URL.Path]
	return ok
}

// ServeHTTP serves the page and its files; other paths are 404.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", webchat.ContentSecurityPolicy(r.Host))
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	a, ok := h.assets[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hdr.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hdr.Set("Content-Type", a.contentType)
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("ETag", a.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}
