package toolhost

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/tools"
)

// toolRow is one tool as the admin surfaces list it.
func (h *Host) toolRow(spec tools.Spec) map[string]any {
	return map[string]any{
		"id": spec.Name, "name": spec.Name, "description": spec.Description, "source": spec.Source,
		"tier": h.runner.Settings.Tier(spec), "enabled": h.runner.Settings.Enabled(spec.Name), "dangerous": spec.Dangerous,
	}
}

// The params of tools.setEnabled and tools.setTier. They alias unnamed
// structs so a decode error reads as it always has ("Go struct field
// .name").
type (
	setEnabledParams = struct {
		Name    string `json:"name"`
		Enabled *bool  `json:"enabled"`
	}
	setTierParams = struct {
		Name string `json:"name"`
		Tier string `json:"tier"`
	}
)

// registerToolAdmin serves the per-tool enabled state and tier over the
// bus (tools.list, tools.setEnabled, tools.setTier; admin) and in
// MateClaw's REST shape on the HTTP port (bearer = the gateway token).
func (h *Host) registerToolAdmin(srv *rpc.Server, mux *http.ServeMux) {
	bearer := h.bearer(srv.SharedSecretThrottle())
	srv.Handle("tools.list", rpc.Route{Scope: protocol.ScopeRead, Handler: func(ctx context.Context, req *rpc.Request) (any, error) {
		return map[string]any{"tools": h.toolRows()}, nil
	}})
	srv.Handle("tools.setEnabled", rpc.Route{Scope: protocol.ScopeAdmin, Handler: rpc.Typed(func(ctx context.Context, req *rpc.Request, p setEnabledParams) (any, error) {
		if p.Enabled == nil {
			return nil, protocol.InvalidParams(req.Method, errors.New("enabled is required"))
		}
		return h.setToolEnabled(ctx, p.Name, *p.Enabled)
	})})
	srv.Handle("tools.setTier", rpc.Route{Scope: protocol.ScopeAdmin, Handler: rpc.Typed(func(ctx context.Context, req *rpc.Request, p setTierParams) (any, error) {
		return h.setToolTier(ctx, p.Name, p.Tier)
	})})

	mux.HandleFunc("GET /api/v1/tools", bearer(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, h.toolRows())
	}))
	mux.HandleFunc("PUT /api/v1/tools/{id}/toggle", bearer(func(w http.ResponseWriter, r *http.Request) {
		enabled := r.URL.Query().Get("enabled")
		if enabled != "true" && enabled != "false" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "query parameter enabled must be true or false"})
			return
		}
		h.restAnswer(w)(h.setToolEnabled(r.Context(), r.PathValue("id"), enabled == "true"))
	}))
	mux.HandleFunc("PUT /api/v1/tools/{id}/disclosure-tier", bearer(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Tier string `json:"tier"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&body); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "body must be {\"tier\": \"core\"|\"extension\"}"})
			return
		}
		h.restAnswer(w)(h.setToolTier(r.Context(), r.PathValue("id"), body.Tier))
	}))
}

func (h *Host) toolRows() []any {
	rows := []any{}
	for _, spec := range h.runner.Registry.Specs() {
		rows = append(rows, h.toolRow(spec))
	}
	return rows
}

func (h *Host) setToolEnabled(ctx context.Context, name string, enabled bool) (any, error) {
	t, ok := h.runner.Registry.Get(name)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "no tool %q", name)
	}
	if err := h.runner.Settings.SetEnabled(ctx, name, enabled); err != nil {
		return nil, err
	}
	return h.toolRow(t.Spec()), nil
}

func (h *Host) setToolTier(ctx context.Context, name, tier string) (any, error) {
	t, ok := h.runner.Registry.Get(name)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "no tool %q", name)
	}
	if t.Spec().Source == tools.SourceMCP {
		// As in MateClaw: MCP tools stay behind enable_tool; a server can
		// add dozens, and each would otherwise sit in every prompt.
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "tool %q comes from an MCP server; its tier is locked to extension", name)
	}
	if err := h.runner.Settings.SetTier(ctx, name, tools.Tier(tier)); err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "%v", err)
	}
	return h.toolRow(t.Spec()), nil
}

// restAnswer writes a method's outcome as REST JSON.
func (h *Host) restAnswer(w http.ResponseWriter) func(any, error) {
	return func(out any, err error) {
		var pe *protocol.Error
		switch {
		case errors.As(err, &pe):
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": pe.Message})
		case err != nil:
			writeJSON(w, http.StatusInternalServerError, map[string]any{"error": "internal error"})
		default:
			writeJSON(w, http.StatusOK, out)
		}
	}
}

// bearer admits requests carrying the gateway's token (or password) as
// a bearer token. Never in the URL. Wrong or missing tokens count against
// the same failed-auth limit as the socket's handshake; a client it
// locked out gets 429 with Retry-After before its token is looked at.
// BearerAuth is the gateway's bearer check for its HTTP APIs (the tools
// REST API, the OpenAI-compatible endpoints): the token or password as
// Authorization: Bearer, behind throttle; under auth "none", this
// machine only.
func (h *Host) BearerAuth(throttle *rpc.HTTPAuthThrottle) func(http.HandlerFunc) http.HandlerFunc {
	return h.bearer(throttle)
}

func (h *Host) bearer(throttle *rpc.HTTPAuthThrottle) func(http.HandlerFunc) http.HandlerFunc {
	return func(next http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			a := h.opts.Auth()
			if a.Mode == "none" {
				// No secret to prove, so only this machine may call (auth
				// "none" is refused on any other bind), and only under the
				// gateway's own names, or a rebinding page could (see
				// localOnly). Nor may a page the user visits: its
				// browser is on this machine too, and a form or text/plain
				// post reaches an API without a CORS preflight.
				if crossSitePage(r) {
					writeJSON(w, http.StatusForbidden, map[string]any{"error": map[string]any{"type": "forbidden", "message": "requests from web pages are refused"}})
					return
				}
				h.localOnly(next).ServeHTTP(w, r)
				return
			}
			if !throttle.Admit(w, r) {
				return
			}
			secret := a.Token
			if a.Mode == "password" {
				secret = a.Password
			}
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || secret == "" || !constantTimeEqual(got, secret) {
				throttle.Failed(r)
				w.Header().Set("WWW-Authenticate", `Bearer realm="openclaw"`)
				writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "unauthorized"})
				return
			}
			next(w, r)
		}
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func constantTimeEqual(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
