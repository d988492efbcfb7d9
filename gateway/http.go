package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/ui"
	"github.com/openclaw-go/openclaw/gateway/webchat"
)

// httpHandler multiplexes the gateway port: WebSocket upgrades go to the
// bus; /healthz (live), /readyz (ready) and /health answer plain HTTP
// probes without auth and without revealing anything but liveness.
func (s *System) httpHandler(mux *http.ServeMux) http.Handler {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "status": "live"})
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "status": "live"})
	})
	// The mux is served only once every part is built, so ready means
	// ready; the shape is OpenClaw's.
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !s.active() {
			// A load balancer in front of several gateways sends work
			// to the active one only.
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"ready": false, "failing": []string{"standby"}, "uptimeMs": time.Since(s.started).Milliseconds()})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"ready": true, "failing": []string{}, "uptimeMs": time.Since(s.started).Milliseconds()})
	})
	mux.Handle(webchat.Prefix, webchat.New())
	control := ui.New()
	mux.HandleFunc(ui.AssetPrefix, func(w http.ResponseWriter, r *http.Request) {
		if !s.servesUI(r) {
			http.NotFound(w, r) // switched off means nothing of it is served
			return
		}
		control.ServeHTTP(w, r)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if isUpgrade(r) {
			s.srv.ServeHTTP(w, r)
			return
		}
		if h, ok := s.hook(r.URL.Path); ok {
			h.ServeHTTP(w, r) // hooks.path: the webhook ingress
			return
		}
		if h, ok := s.channels.Webhook(r.URL.Path); ok {
			h.ServeHTTP(w, r)
			return
		}
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		if (r.Method == http.MethodGet || r.Method == http.MethodHead) && s.servesUI(r) {
			control.ServeHTTP(w, r) // the Control UI
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("openclaw gateway " + s.version + "\nConnect a client to ws://" + r.Host + "/\n"))
	})
	return securityHeaders(s.standbyHTTP(s.underBasePath(mux)))
}

// standbyHTTP refuses, on a standby, every request that is not a read
// (a hook that would start a turn, a webhook, a tool invocation): the
// active gateway does the work. WebSocket upgrades (GET) pass, and the
// bus gate decides per method.
func (s *System) standbyHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.active() || r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"ok": false, "error": map[string]any{
			"type": "unavailable", "message": "this gateway is a standby; send this to the active gateway"}})
	})
}

// hook is the handler of a path under hooks.path while hooks are on.
func (s *System) hook(path string) (http.Handler, bool) {
	if s.automator == nil {
		return nil, false
	}
	return s.automator.Hook(path)
}

// underBase marks a request that came in under gateway.controlUi.basePath.
type underBase struct{}

// underBasePath serves the Control UI, WebChat and the bus also under
// gateway.controlUi.basePath (for a reverse proxy that forwards one
// path): a request there is handled as if at the root, and the UI then
// lives only there. The setting is read per request, so a reload moves it.
func (s *System) underBasePath(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := s.current().snap.Config.Gateway.ControlUI.Base()
		if base == "" {
			next.ServeHTTP(w, r)
			return
		}
		if r.URL.Path == base && !isUpgrade(r) {
			http.Redirect(w, r, base+"/", http.StatusMovedPermanently)
			return
		}
		rest, ok := strings.CutPrefix(r.URL.Path, base+"/")
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		r2 := r.WithContext(context.WithValue(r.Context(), underBase{}, true))
		u := *r.URL
		u.Path, u.RawPath = "/"+rest, ""
		r2.URL = &u
		next.ServeHTTP(w, r2)
	})
}

// servesUI reports whether the Control UI is served for r: switched on,
// and at r's place (the root without a basePath, else only under it).
func (s *System) servesUI(r *http.Request) bool {
	c := s.current().snap.Config.Gateway.ControlUI
	return c.IsEnabled() && (c.Base() == "" || r.Context().Value(underBase{}) != nil)
}

func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
