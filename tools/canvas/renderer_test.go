package canvas

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

const helloJSONL = `{"surfaceUpdate":{"surfaceId":"main","components":[` +
	`{"id":"root","component":{"Column":{"children":{"explicitList":["title","go"]}}}},` +
	`{"id":"title","component":{"Text":{"text":{"literalString":"Hello from A2UI"},"usageHint":"h1"}}},` +
	`{"id":"label","component":{"Text":{"text":{"literalString":"Press me"}}}},` +
	`{"id":"go","component":{"Button":{"child":"label","action":{"name":"press"}}}}]}}
{"beginRendering":{"surfaceId":"main","root":"root"}}`

var errBlocked = errors.New("blocked by test policy")

// newTestRenderer starts a Host behind httptest and a Renderer on it; it
// skips when no Chromium is installed.
func newTestRenderer(t *testing.T) (*Renderer, *Host) {
	t.Helper()
	return newTestRendererAllowing(t, "allowed.example")
}

// newTestRendererAllowing is newTestRenderer whose CheckURL lets through
// one host (host[:port]).
func newTestRendererAllowing(t *testing.T, allowHost string) (*Renderer, *Host) {
	t.Helper()
	if FindChromium() == "" {
		t.Skip("no chromium on PATH: the headless canvas renderer needs one (apt install chromium)")
	}
	h := NewHost()
	mux := http.NewServeMux()
	mux.Handle(Prefix, h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	r, err := NewRenderer(RendererConfig{
		BaseURL: srv.URL + Prefix,
		Host:    h,
		CheckURL: func(u *url.URL) error {
			if u.Host == allowHost {
				return nil
			}
			return errBlocked
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return r, h
}

func TestRendererEndToEnd(t *testing.T) {
	r, h := newTestRenderer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	s := r.Surface("agent:main:main")

	if err := s.A2UIPush(ctx, helloJSONL); err != nil {
		t.Fatalf("push: %v", err)
	}
	text, err := s.Eval(ctx, "document.body.innerText")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "Hello from A2UI") || !strings.Contains(string(text), "Press me") {
		t.Fatalf("page text = %s", text)
	}
	if n, err := s.Eval(ctx, `document.querySelectorAll("button").length`); err != nil || string(n) != "1" {
		t.Fatalf("buttons = %s, %v", n, err)
	}
	if v, err := s.Eval(ctx, `Promise.resolve({a: 1})`); err != nil || string(v) != `{"a":1}` {
		t.Fatalf("promise eval = %s, %v", v, err)
	}
	if v, err := s.Eval(ctx, `undefined`); err != nil || string(v) != "null" {
		t.Fatalf("undefined eval = %s, %v", v, err)
	}
	if _, err := s.Eval(ctx, `(() => { throw new Error("boom") })()`); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("throwing eval: %v", err)
	}

	png, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, pngSignature) || len(png) < 1000 || len(png) > 5<<20 {
		t.Fatalf("snapshot: %d bytes, header %q", len(png), png[:min(len(png), 8)])
	}

	if err := s.Navigate(ctx, "http://blocked.example/"); !errors.Is(err, errBlocked) {
		t.Fatalf("navigate to blocked URL: %v", err)
	}
	for _, bad := range []string{"file:///etc/passwd", "javascript:alert(1)", "chrome://settings"} {
		if err := s.Navigate(ctx, bad); err == nil {
			t.Errorf("navigate %s allowed", bad)
		}
	}
	if text, _ := s.Eval(ctx, "document.body.innerText"); !strings.Contains(string(text), "Hello from A2UI") {
		t.Fatalf("a refused navigate changed the page: %s", text)
	}

	if err := s.A2UIReset(ctx); err != nil {
		t.Fatal(err)
	}
	text, _ = s.Eval(ctx, "document.body.innerText")
	if strings.Contains(string(text), "Hello from A2UI") || !strings.Contains(string(text), "empty") {
		t.Fatalf("after reset page text = %s", text)
	}
	if st := h.State("agent:main:main"); len(st.Messages) != 0 {
		t.Fatalf("host still holds %d messages", len(st.Messages))
	}

	// hide blanks the tab; present brings the canvas (and its state) back.
	if err := s.A2UIPush(ctx, EncodeJSONL(TextMessages("back again"))); err != nil {
		t.Fatal(err)
	}
	if err := s.Hide(ctx); err != nil {
		t.Fatal(err)
	}
	if loc, _ := s.Eval(ctx, "location.href"); string(loc) != `"about:blank"` {
		t.Fatalf("after hide at %s", loc)
	}
	if err := s.Present(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if err := waitText(ctx, s, "back again"); err != nil {
		t.Fatal(err)
	}

	// A v0.9 stream is refused before it reaches the page.
	if err := s.A2UIPush(ctx, `{"createSurface":{"surfaceId":"x"}}`); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("v0.9 push: %v", err)
	}
}

func TestRendererSessionsApart(t *testing.T) {
	r, _ := newTestRenderer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, b := r.Surface("a"), r.Surface("b")
	if err := a.A2UIPush(ctx, EncodeJSONL(TextMessages("only in a"))); err != nil {
		t.Fatal(err)
	}
	if err := b.Present(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if text, _ := b.Eval(ctx, "document.body.innerText"); strings.Contains(string(text), "only in a") {
		t.Fatalf("session b shows a's canvas: %s", text)
	}

	// A browser that goes away is started again on the next call, and the
	// session's canvas state, kept by the host, comes back with it.
	r.mu.Lock()
	r.cancel()
	r.mu.Unlock()
	if err := waitText(ctx, a, "only in a"); err != nil {
		t.Fatalf("after the browser died: %v", err)
	}

	r.Close()
	if err := a.Hide(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
}

// waitText polls the page until its text contains want.
func waitText(ctx context.Context, s Surface, want string) error {
	for {
		text, err := s.Eval(ctx, "document.body.innerText")
		if err == nil && strings.Contains(string(text), want) {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.New("page never showed " + want + "; last: " + string(text))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func TestRendererActionsAndBindings(t *testing.T) {
	r, h := newTestRenderer(t)
	got := make(chan UserAction, 1)
	h.OnAction = func(session string, a UserAction) {
		if session == "b" {
			got <- a
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := r.Surface("b")
	jsonl := `{"dataModelUpdate":{"surfaceId":"s","contents":[{"key":"user","valueMap":[{"key":"name","valueString":"Ada"}]},{"key":"items","valueMap":[{"key":"0","valueString":"first"},{"key":"1","valueString":"second"}]}]}}
{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"root","component":{"Card":{"child":"col"}}},{"id":"col","component":{"Column":{"children":{"explicitList":["name","list","ok","field","box","div","pic"]}}}},{"id":"name","component":{"Text":{"text":{"path":"/user/name"},"usageHint":"h2"}}},{"id":"list","component":{"List":{"children":{"template":{"componentId":"item","dataBinding":"/items"}}}}},{"id":"item","component":{"Text":{"text":{"path":""}}}},{"id":"ok","component":{"Button":{"label":{"literalString":"OK"},"action":{"name":"confirm","context":[{"key":"who","value":{"path":"/user/name"}}]}}}},{"id":"field","component":{"TextField":{"label":{"literalString":"Email"}}}},{"id":"box","component":{"CheckBox":{"label":{"literalString":"Agree"},"value":{"literalBoolean":true}}}},{"id":"div","component":{"Divider":{}}},{"id":"pic","component":{"Image":{"url":{"literalString":"data:image/gif;base64,R0lGODlhAQABAAAAACw="}}}}]}}
{"beginRendering":{"surfaceId":"s","root":"root"}}`
	if err := s.A2UIPush(ctx, jsonl); err != nil {
		t.Fatal(err)
	}
	text, _ := s.Eval(ctx, "document.body.innerText")
	for _, want := range []string{"Ada", "first", "second", "OK", "Email", "Agree"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("page text lacks %q: %s", want, text)
		}
	}
	if v, _ := s.Eval(ctx, `[document.querySelector("h2")?.textContent, document.querySelector("input[type=checkbox]").checked, document.querySelectorAll("hr, img").length]`); string(v) != `["Ada",true,2]` {
		t.Errorf("elements = %s", v)
	}
	if _, err := s.Eval(ctx, `document.querySelector("button").click()`); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-got:
		if a.SurfaceID != "s" || a.ComponentID != "ok" || a.Name != "confirm" || string(a.Context) != `{"who":"Ada"}` {
			t.Fatalf("action = %+v (%s)", a, a.Context)
		}
	case <-ctx.Done():
		t.Fatal("button click never reached the host")
	}
}

func TestRendererRequestGuard(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("other page " + r.URL.Path))
	}))
	defer other.Close()
	otherURL, _ := url.Parse(other.URL)
	r, _ := newTestRendererAllowing(t, otherURL.Host)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := r.Surface("g")

	if err := s.Navigate(ctx, other.URL+"/start"); err != nil {
		t.Fatal(err)
	}
	if text, _ := s.Eval(ctx, "document.body.innerText"); !strings.Contains(string(text), "other page /start") {
		t.Fatalf("allowed page = %s", text)
	}
	probe := func(u string) string {
		v, err := s.Eval(ctx, `fetch(`+strconvQuote(u)+`, {mode: "no-cors"}).then(() => "loaded", () => "blocked")`)
		if err != nil {
			t.Fatal(err)
		}
		return string(v)
	}
	if got := probe(other.URL + "/more"); got != `"loaded"` {
		t.Errorf("allowed fetch: %s", got)
	}
	// The canvas host outside its prefix and hosts CheckURL refuses are
	// blocked even when a script asks, not only through navigate.
	base := strings.TrimSuffix(r.cfg.BaseURL, Prefix)
	for _, u := range []string{base + "/private", "http://blocked.example/"} {
		if got := probe(u); got != `"blocked"` {
			t.Errorf("fetch %s: %s", u, got)
		}
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }
