package automation

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/cron"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// hookAgents accepts every turn and ends it at once with answer.
type hookAgents struct {
	fakeAgents
	answer  string
	started []agents.StartRequest
}

func (a *hookAgents) Start(ctx context.Context, req agents.StartRequest) (*agents.Run, bool, error) {
	a.mu.Lock()
	a.started = append(a.started, req)
	a.mu.Unlock()
	return agents.EndedRun(req.RunID, req.AgentID, req.SessionKey, agents.RunResult{Status: "ok", Text: a.answer}), false, nil
}

// turns are the hook turns started, without the heartbeats that a
// completion notice with wakeMode "now" wakes.
func (a *hookAgents) turns() []agents.StartRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []agents.StartRequest
	for _, r := range a.started {
		if !r.Heartbeat {
			out = append(out, r)
		}
	}
	return out
}

// countingThrottle records failures and locks out after limit.
type countingThrottle struct {
	mu     sync.Mutex
	failed int
	limit  int
}

func (t *countingThrottle) Admit(w http.ResponseWriter, r *http.Request) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.limit > 0 && t.failed >= t.limit {
		w.Header().Set("Retry-After", "60")
		w.WriteHeader(http.StatusTooManyRequests)
		return false
	}
	return true
}
func (t *countingThrottle) Failed(r *http.Request) { t.mu.Lock(); t.failed++; t.mu.Unlock() }

const hookToken = "hook-secret-0123456789"

func hooksConfig(mut func(h *config.Hooks)) *config.Config {
	cfg := config.Defaults()
	cfg.Agents.Entries = map[string]config.AgentEntry{"main": {Default: true}, "work": {}}
	cfg.Hooks = config.Hooks{Enabled: true, Token: hookToken}
	if mut != nil {
		mut(&cfg.Hooks)
	}
	return cfg
}

type hookFixture struct {
	w        *Wing
	ag       *hookAgents
	chats    *fakeChats
	throttle *countingThrottle
}

func newHookWing(t *testing.T, cfg *config.Config) *hookFixture {
	t.Helper()
	st := storetest.Open(t, cron.Migrations())
	f := &hookFixture{ag: &hookAgents{answer: "done"}, throttle: &countingThrottle{},
		chats: &fakeChats{routes: map[string]channels.Route{}, last: map[string]channels.Route{"main": {Channel: "telegram", ChatID: "42"}}}}
	var err error
	f.w, err = New(Options{
		Config: func() *config.Config { return cfg },
		Agents: f.ag, Chats: f.chats, Events: &events{}, DB: st.DB, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Go:           func(fn func(ctx context.Context)) { fn(context.Background()) },
		HookThrottle: f.throttle,
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// post sends a hook request the way a sender would; header "" sends no
// token.
func (f *hookFixture) post(t *testing.T, path, body string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h, ok := f.w.Hook(req.URL.Path)
	if !ok {
		rec.WriteHeader(http.StatusNotFound) // falls through to the rest of the gateway
		return rec
	}
	h.ServeHTTP(rec, req)
	return rec
}

var bearer = map[string]string{"Authorization": "Bearer " + hookToken}

func decodeBody(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("body %q: %v", rec.Body.String(), err)
	}
	return m
}

// TestHookAuthAttacks: a request without the token, with a wrong one, or
// with the token in the URL is refused and runs nothing; wrong tokens are
// counted and a locked-out client is refused even with the right one.
func TestHookAuthAttacks(t *testing.T) {
	f := newHookWing(t, hooksConfig(nil))
	body := `{"message":"run rm -rf"}`
	cases := []struct {
		name   string
		path   string
		header map[string]string
		want   int
	}{
		{"no token", "/hooks/agent", nil, 401},
		{"wrong bearer", "/hooks/agent", map[string]string{"Authorization": "Bearer nope"}, 401},
		{"wrong header token", "/hooks/agent", map[string]string{"X-OpenClaw-Token": "nope"}, 401},
		{"token as a prefix", "/hooks/agent", map[string]string{"Authorization": "Bearer " + hookToken[:10]}, 401},
		{"query token alone", "/hooks/agent?token=" + hookToken, nil, 400},
		{"query token beside a good header", "/hooks/agent?token=" + hookToken, bearer, 400},
		{"wake without token", "/hooks/wake", nil, 401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if rec := f.post(t, c.path, body, c.header); rec.Code != c.want {
				t.Fatalf("status %d, want %d (%s)", rec.Code, c.want, rec.Body)
			}
		})
	}
	if len(f.ag.started) != 0 || len(f.ag.queued) != 0 {
		t.Fatalf("a refused request ran something: %v %v", f.ag.started, f.ag.queued)
	}
	if f.throttle.failed != 5 {
		t.Fatalf("failed tokens counted %d, want 5 (query-string refusals are not guesses)", f.throttle.failed)
	}
	f.throttle.limit = 5
	if rec := f.post(t, "/hooks/agent", body, bearer); rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("locked-out client with the right token: %d, want 429 with Retry-After", rec.Code)
	}
	if len(f.ag.started) != 0 {
		t.Fatal("a locked-out client ran a turn")
	}
}

// TestHookRequestShape: method, path, body size and JSON are checked
// after the token and before anything runs.
func TestHookRequestShape(t *testing.T) {
	f := newHookWing(t, hooksConfig(nil))
	req := httptest.NewRequest(http.MethodGet, "/hooks/agent", nil)
	req.Header.Set("Authorization", "Bearer "+hookToken)
	rec := httptest.NewRecorder()
	h, _ := f.w.Hook("/hooks/agent")
	h.ServeHTTP(rec, req)
	if rec.Code != 405 || rec.Header().Get("Allow") != "POST" {
		t.Fatalf("GET: %d Allow %q, want 405 Allow POST", rec.Code, rec.Header().Get("Allow"))
	}
	big := `{"message":"` + strings.Repeat("a", hookMaxBody) + `"}`
	for _, c := range []struct {
		name, path, body string
		want             int
	}{
		{"oversized body", "/hooks/agent", big, 413},
		{"not JSON", "/hooks/agent", `{"message":`, 400},
		{"not an object", "/hooks/agent", `["x"]`, 400},
		{"no message", "/hooks/agent", `{}`, 400},
		{"message not a string", "/hooks/agent", `{"message":5}`, 400},
		{"base path has no action", "/hooks", `{}`, 404},
		{"unmapped path", "/hooks/github", `{}`, 404},
		{"wake without text", "/hooks/wake", `{"mode":"now"}`, 400},
		{"wake with a bad mode", "/hooks/wake", `{"text":"x","mode":"later"}`, 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			if rec := f.post(t, c.path, c.body, bearer); rec.Code != c.want {
				t.Fatalf("status %d, want %d (%s)", rec.Code, c.want, rec.Body)
			}
		})
	}
	if len(f.ag.started) != 0 {
		t.Fatalf("a refused request ran: %v", f.ag.started)
	}
}

// TestHookSessionAndAgentPolicy: the session key and agent a request may
// choose are bounded by allowRequestSessionKey, allowedSessionKeyPrefixes
// and allowedAgentIds.
func TestHookSessionAndAgentPolicy(t *testing.T) {
	cases := []struct {
		name    string
		hooks   func(h *config.Hooks)
		body    string
		want    int
		wantKey string // prefix of the stored session key
	}{
		{"generated key", nil, `{"message":"hi"}`, 200, "agent:main:hook:"},
		{"request key refused by default", nil, `{"message":"hi","sessionKey":"hook:x"}`, 400, ""},
		{"request key outside the prefixes", func(h *config.Hooks) {
			h.AllowRequestSessionKey, h.AllowedSessionKeyPrefixes = true, []string{"hook:"}
		}, `{"message":"hi","sessionKey":"agent:main:telegram:direct:42"}`, 400, ""},
		{"request key inside the prefixes, isolated", func(h *config.Hooks) {
			h.AllowRequestSessionKey, h.AllowedSessionKeyPrefixes = true, []string{"HOOK:"}
		}, `{"message":"hi","sessionKey":"hook:crm:7"}`, 200, "agent:main:hook:crm:7:run:"},
		{"persistent keeps the key", func(h *config.Hooks) {
			h.AllowRequestSessionKey, h.AllowedSessionKeyPrefixes = true, []string{"hook:"}
		}, `{"message":"hi","sessionKey":"hook:crm:7","sessionMode":"persistent"}`, 200, "agent:main:hook:crm:7"},
		{"persistent needs prefixes", func(h *config.Hooks) { h.AllowRequestSessionKey = true },
			`{"message":"hi","sessionKey":"hook:crm:7","sessionMode":"persistent"}`, 400, ""},
		{"default key", func(h *config.Hooks) { h.DefaultSessionKey = "hook:ingress" }, `{"message":"hi"}`, 200, "agent:main:hook:ingress:run:"},
		{"unknown agent", nil, `{"message":"hi","agentId":"ghost"}`, 400, ""},
		{"agent outside the allowlist", func(h *config.Hooks) { h.AllowedAgentIDs = []string{"main"} }, `{"message":"hi","agentId":"work"}`, 400, ""},
		{"default agent outside the allowlist", func(h *config.Hooks) { h.AllowedAgentIDs = []string{"work"} }, `{"message":"hi"}`, 400, ""},
		{"empty allowlist denies all", func(h *config.Hooks) { h.AllowedAgentIDs = []string{} }, `{"message":"hi","agentId":"main"}`, 400, ""},
		{"star allows all", func(h *config.Hooks) { h.AllowedAgentIDs = []string{"*"} }, `{"message":"hi","agentId":"work"}`, 200, "agent:work:hook:"},
		{"another agent's key is re-scoped", func(h *config.Hooks) {
			h.AllowRequestSessionKey = true
		}, `{"message":"hi","agentId":"work","sessionKey":"agent:main:main","sessionMode":"isolated"}`, 200, "agent:work:main:run:"},
		{"wake key needs opt-in", nil, `{"text":"x","sessionKey":"hook:a"}`, 400, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newHookWing(t, hooksConfig(c.hooks))
			path := "/hooks/agent"
			if strings.Contains(c.body, `"text"`) {
				path = "/hooks/wake"
			}
			rec := f.post(t, path, c.body, bearer)
			if rec.Code != c.want {
				t.Fatalf("status %d, want %d (%s)", rec.Code, c.want, rec.Body)
			}
			if c.want != 200 {
				if len(f.ag.started) != 0 {
					t.Fatalf("refused but ran: %v", f.ag.started)
				}
				return
			}
			turns := f.ag.turns()
			if len(turns) != 1 || !strings.HasPrefix(turns[0].SessionKey, c.wantKey) {
				t.Fatalf("runs %+v, want one in %s…", turns, c.wantKey)
			}
			r := turns[0]
			if r.Owner {
				t.Fatal("a webhook's turn ran as the owner")
			}
			if !strings.Contains(r.Message, "untrusted data") || !strings.Contains(r.Message, "\nhi\n") {
				t.Fatalf("message not framed as outside data: %q", r.Message)
			}
		})
	}
}

// TestHookAgentDelivery: the answer goes to the chat the request names;
// without one it is a notice in the main session; waitForCompletion
// reports the outcome without the answer.
func TestHookAgentDelivery(t *testing.T) {
	f := newHookWing(t, hooksConfig(nil))
	rec := f.post(t, "/hooks/agent", `{"message":"hi","channel":"telegram","to":"99","waitForCompletion":true,"timeoutSeconds":12.7,"model":"openai/gpt-5"}`, bearer)
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	got := decodeBody(t, rec)
	comp, _ := got["completion"].(map[string]any)
	if got["ok"] != true || comp["status"] != "ok" || comp["delivered"] != true || strings.Contains(rec.Body.String(), "done") {
		t.Fatalf("answer %s", rec.Body)
	}
	if len(f.chats.sent) != 1 || f.chats.sent[0].To.ChatID != "99" || f.chats.sent[0].Text != "done" {
		t.Fatalf("sent %+v", f.chats.sent)
	}
	if r := f.ag.started[0]; r.Timeout.Seconds() != 12 || len(r.Models) != 1 || r.Models[0] != "openai/gpt-5" {
		t.Fatalf("run %+v: want timeout 12s and the model asked for", r)
	}
	for _, body := range []string{`{"message":"hi","channel":"telegram"}`, `{"message":"hi","channel":"last","to":"1"}`, `{"message":"hi","channel":"fax","to":"1"}`} {
		if rec := f.post(t, "/hooks/agent", body, bearer); rec.Code != 400 {
			t.Fatalf("%s: %d, want 400", body, rec.Code)
		}
	}
	f.post(t, "/hooks/agent", `{"message":"hi","name":"CRM","wakeMode":"next-heartbeat"}`, bearer)
	if q := f.ag.queued["agent:main:main"]; len(q) != 1 || q[0] != "Hook CRM: done" {
		t.Fatalf("main session notices %v", q)
	}
	f.post(t, "/hooks/agent", `{"message":"hi","deliver":false,"channel":"telegram","to":"5"}`, bearer)
	if len(f.chats.sent) != 1 || len(f.ag.queued["agent:main:main"]) != 1 {
		t.Fatal("deliver false still delivered")
	}
	// Replays with one idempotency key are one run.
	h := map[string]string{"Authorization": "Bearer " + hookToken, "Idempotency-Key": "evt-1"}
	a := decodeBody(t, f.post(t, "/hooks/agent", `{"message":"same","deliver":false}`, h))
	b := decodeBody(t, f.post(t, "/hooks/agent", `{"message":"same","deliver":false}`, h))
	if a["runId"] != b["runId"] {
		t.Fatalf("replay got a new run: %v %v", a["runId"], b["runId"])
	}
}

// TestHookWake: a wake queues its text for the main session, and x-openclaw-token works.
func TestHookWake(t *testing.T) {
	f := newHookWing(t, hooksConfig(nil))
	rec := f.post(t, "/hooks/wake", `{"text":"New email","mode":"next-heartbeat","agentId":"work"}`, map[string]string{"X-OpenClaw-Token": hookToken})
	if rec.Code != 200 {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	if got := decodeBody(t, rec); got["eventOutcome"] != "queued" || got["mode"] != "next-heartbeat" {
		t.Fatalf("answer %v", got)
	}
	if q := f.ag.queued["agent:work:main"]; len(q) != 1 || q[0] != "New email" {
		t.Fatalf("queued %v", f.ag.queued)
	}
}

// TestHookMappings: mappings match by path and source, render templates,
// fan out, deliver to the last chat, and a transform is refused.
func TestHookMappings(t *testing.T) {
	cfg := hooksConfig(func(h *config.Hooks) {
		h.AllowRequestSessionKey, h.AllowedSessionKeyPrefixes = true, []string{"hook:"}
		h.Presets = []string{"gmail"}
		h.Mappings = []config.HookMapping{
			{Match: config.HookMatch{Path: "github", Source: "ci"}, Action: "wake", TextTemplate: "CI {{payload.status}} on {{headers.x-repo}} ({{query.kind}})"},
			{Match: config.HookMatch{Path: "github"}, MessageTemplate: "PR {{pr.number}}: {{pr.title}} by {{pr.user.login}}", SessionKey: "hook:gh", Name: "GitHub"},
			{Match: config.HookMatch{Path: "custom"}, MessageTemplate: "x", Transform: config.HookTransform{Module: "a.js"}},
		}
	})
	f := newHookWing(t, cfg)
	h := map[string]string{"Authorization": "Bearer " + hookToken, "X-Repo": "acme/app"}
	if rec := f.post(t, "/hooks/github?kind=push", `{"source":"ci","status":"green"}`, h); rec.Code != 200 {
		t.Fatalf("wake mapping: %d %s", rec.Code, rec.Body)
	}
	if q := f.ag.queued["agent:main:main"]; len(q) != 1 || q[0] != "CI green on acme/app (push)" {
		t.Fatalf("wake text %v", q)
	}
	if rec := f.post(t, "/hooks/github", `{"pr":{"number":7,"title":"Fix","user":{"login":"ann"}}}`, h); rec.Code != 200 {
		t.Fatalf("agent mapping: %d %s", rec.Code, rec.Body)
	}
	r := f.ag.turns()[0]
	if !strings.Contains(r.Message, "PR 7: Fix by ann") || !strings.HasPrefix(r.SessionKey, "agent:main:hook:gh:run:") || r.Label != "Hook: GitHub" {
		t.Fatalf("run %+v", r)
	}
	if len(f.chats.sent) != 1 || f.chats.sent[0].To.ChatID != "42" {
		t.Fatalf("mapped delivery to the last chat: %+v", f.chats.sent)
	}
	rec := f.post(t, "/hooks/gmail", `{"messages":[{"id":"m1","from":"a@x","subject":"S1"},{"id":"m2","from":"b@x","subject":"S2"}]}`, h)
	if rec.Code != 200 || decodeBody(t, rec)["dispatched"] != float64(2) {
		t.Fatalf("gmail fan-out: %d %s", rec.Code, rec.Body)
	}
	if r := f.ag.turns()[2]; !strings.HasPrefix(r.SessionKey, "agent:main:hook:gmail:m2") || !strings.Contains(r.Message, "Subject: S2") {
		t.Fatalf("second item %+v", r)
	}
	if rec := f.post(t, "/hooks/gmail", `{"messages":[]}`, h); rec.Code != 204 {
		t.Fatalf("empty fan-out: %d", rec.Code)
	}
	n := len(f.ag.turns())
	if rec := f.post(t, "/hooks/custom", `{}`, h); rec.Code != 500 {
		t.Fatalf("transform mapping: %d, want 500", rec.Code)
	}
	if len(f.ag.turns()) != n {
		t.Fatal("a mapping with a transform ran without it")
	}
}

// TestHookTemplatedKeyNeedsOptIn: a session key rendered from the payload
// is the sender's choice and is refused without allowRequestSessionKey;
// the sender cannot steer it outside the prefixes either.
func TestHookTemplatedKeyNeedsOptIn(t *testing.T) {
	m := []config.HookMapping{{Match: config.HookMatch{Path: "in"}, MessageTemplate: "m", SessionKey: "{{key}}"}}
	f := newHookWing(t, hooksConfig(func(h *config.Hooks) { h.Mappings, h.AllowedSessionKeyPrefixes = m, []string{"hook:"} }))
	if rec := f.post(t, "/hooks/in", `{"key":"hook:a"}`, bearer); rec.Code != 400 {
		t.Fatalf("templated key without opt-in: %d", rec.Code)
	}
	f = newHookWing(t, hooksConfig(func(h *config.Hooks) {
		h.Mappings, h.AllowedSessionKeyPrefixes, h.AllowRequestSessionKey = m, []string{"hook:"}, true
	}))
	if rec := f.post(t, "/hooks/in", `{"key":"agent:main:main"}`, bearer); rec.Code != 400 {
		t.Fatalf("templated key outside the prefixes: %d", rec.Code)
	}
	if len(f.ag.started) != 0 {
		t.Fatal("ran anyway")
	}
}

// TestHooksOffAndPath: off, nothing is served under the path; the path
// is normalised and moves with the config.
func TestHooksOffAndPath(t *testing.T) {
	f := newHookWing(t, hooksConfig(func(h *config.Hooks) { h.Enabled = false }))
	if _, ok := f.w.Hook("/hooks/agent"); ok {
		t.Fatal("hooks served while off")
	}
	f = newHookWing(t, hooksConfig(func(h *config.Hooks) { h.Path = "ingress/" }))
	if _, ok := f.w.Hook("/hooks/agent"); ok {
		t.Fatal("the default path is served though hooks.path moved it")
	}
	if rec := f.post(t, "/ingress/agent", `{"message":"hi"}`, bearer); rec.Code != 200 {
		t.Fatalf("moved path: %d", rec.Code)
	}
}

// TestCheckHooks: a hooks section that cannot be served safely is refused
// at start and on reload.
func TestCheckHooks(t *testing.T) {
	for _, c := range []struct {
		name string
		mut  func(h *config.Hooks)
		want string
	}{
		{"no token", func(h *config.Hooks) { h.Token = "" }, "requires hooks.token"},
		{"root path", func(h *config.Hooks) { h.Path = "/" }, `may not be "/"`},
		{"default key outside prefixes", func(h *config.Hooks) {
			h.DefaultSessionKey, h.AllowedSessionKeyPrefixes = "x:1", []string{"hook:"}
		}, "defaultSessionKey"},
		{"generated keys outside prefixes", func(h *config.Hooks) { h.AllowedSessionKeyPrefixes = []string{"crm:"} }, `admit "hook:"`},
		{"persistent mapping without a key", func(h *config.Hooks) {
			h.Mappings = []config.HookMapping{{SessionMode: "persistent", MessageTemplate: "m"}}
		}, "persistent"},
		{"gmail preset without prefixes", func(h *config.Hooks) { h.Presets = []string{"gmail"} }, "templated sessionKey"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := hooksConfig(c.mut)
			err := config.CheckHooks(cfg.Hooks)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
			w, _ := newWing(t, config.Defaults(), nil)
			if _, err := w.Prepare(&config.Snapshot{Config: cfg}); err == nil {
				t.Fatal("a reload to it was not refused")
			}
		})
	}
}
