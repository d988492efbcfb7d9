package gateway

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

type running struct {
	dir, config, url string
	// storeURL is the PostgreSQL database the gateway keeps its state in
	// when the tests run on that engine; "" for the SQLite file in dir.
	storeURL string
	cancel   context.CancelFunc
	restart  chan struct{}
	done     chan error
}

// pgStores maps a state directory to its database when the tests run on
// PostgreSQL.
var pgStores sync.Map

// openState opens the running gateway's database beside it, for a test
// that reads or seeds rows directly.
func (r *running) openState(t *testing.T) *sql.DB {
	t.Helper()
	var st *store.Store
	var err error
	if r.storeURL != "" {
		st, err = store.OpenPostgres(context.Background(), r.storeURL)
	} else {
		st, err = store.Open(context.Background(), filepath.Join(r.dir, store.FileName))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.DB
}

func startGateway(t *testing.T, env map[string]string) *running {
	t.Helper()
	return startGatewayIn(t, t.TempDir(), env)
}

// startGatewayIn runs the gateway on a state dir that may hold a config.
func startGatewayIn(t *testing.T, dir string, env map[string]string) *running {
	t.Helper()
	return startGatewayWith(t, dir, env, nil)
}

// startGatewayWith is startGatewayIn with the options adjusted by edit.
func startGatewayWith(t *testing.T, dir string, env map[string]string, edit func(*Options)) *running {
	t.Helper()
	r := &running{dir: dir, config: filepath.Join(dir, "openclaw.json"), restart: make(chan struct{}, 1), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	ready := make(chan string, 4)
	opts := Options{
		StateDir: dir, ConfigPath: r.config, Port: -1, Getenv: func(k string) string { return env[k] },
		Stderr: io.Discard, Restart: r.restart, Ready: func(addr string) { ready <- addr },
	}
	if storetest.Engine() == store.DriverPostgres {
		// A restart on the same state directory finds the same database.
		u, _ := pgStores.LoadOrStore(dir, pgtest.URL(t))
		opts.storeURL = u.(string)
		r.storeURL = opts.storeURL
	}
	if edit != nil {
		edit(&opts)
	}
	go func() { r.done <- Run(ctx, opts) }()
	select {
	case addr := <-ready:
		r.url = "ws://" + addr
	case err := <-r.done:
		t.Fatalf("gateway exited: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("gateway did not start")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(15 * time.Second):
			t.Error("gateway did not stop")
		}
	})
	return r
}

func (r *running) token(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(r.config)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`token: "([^"]+)"`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no token in %s", b)
	}
	return string(m[1])
}

func (r *running) dial(t *testing.T, token string, scopes ...string) (*client.Client, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: r.url, Token: token, Scopes: scopes})
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

func TestFirstRunWritesPrivateConfig(t *testing.T) {
	r := startGateway(t, nil)
	fi, err := os.Stat(r.config)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("config mode %v", fi.Mode().Perm())
	}
	di, _ := os.Stat(r.dir)
	if di.Mode().Perm() != 0o700 {
		t.Fatalf("state dir mode %v", di.Mode().Perm())
	}
	c, err := r.dial(t, r.token(t), "operator.read")
	if err != nil {
		t.Fatalf("connect with the generated token: %v", err)
	}
	var health map[string]any
	if err := c.Call(context.Background(), "health", nil, &health); err != nil || health["ok"] != true {
		t.Fatalf("health = %v, %v", health, err)
	}
	// Methods of parts not built yet answer unknown method.
	err = c.Call(context.Background(), "voicewake.get", map[string]any{}, nil)
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Message != "unknown method: voicewake.get" {
		t.Fatalf("voicewake.get = %v", err)
	}
}

func TestConfigReloadIsTransactional(t *testing.T) {
	r := startGateway(t, nil)
	tok := r.token(t)
	watcher, err := r.dial(t, tok, "operator.read")
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile(r.config)

	// A broken file is refused; the gateway keeps serving with the old one.
	os.WriteFile(r.config, []byte("{ gateway: { port: 'eighty' } }"), 0o600)
	if _, err := r.dial(t, tok, "operator.read"); err != nil {
		t.Fatalf("old token after a bad edit: %v", err)
	}
	var health map[string]any
	if err := watcher.Call(context.Background(), "health", nil, &health); err != nil {
		t.Fatalf("health after a bad edit: %v", err)
	}

	// A new token applies without restart and drops clients of the old one.
	next := strings.Replace(string(orig), tok, "rotated-token-0123456789", 1)
	if err := os.WriteFile(r.config, []byte(next), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-watcher.Done():
	case <-time.After(30 * time.Second): // generous: under a loaded -race run the reload can take a while
		t.Fatal("client of the old token still connected after rotation")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := r.dial(t, "rotated-token-0123456789", "operator.read")
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("new token never accepted: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, err = r.dial(t, tok, "operator.read")
	var pe *protocol.Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "token mismatch") {
		t.Fatalf("old token after rotation: %v", err)
	}
}

func TestConfigRPCs(t *testing.T) {
	r := startGateway(t, nil)
	tok := r.token(t)
	admin, err := r.dial(t, tok, "operator.admin")
	if err != nil {
		t.Fatal(err)
	}
	reader, err := r.dial(t, tok, "operator.read")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := reader.Call(context.Background(), "config.get", nil, &got); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if strings.Contains(string(b), tok) || got["raw"] != nil {
		t.Fatalf("config.get to a reader leaks: %s", b)
	}
	if err := admin.Call(context.Background(), "config.get", nil, &got); err != nil {
		t.Fatal(err)
	}
	raw, _ := got["raw"].(string)
	if raw == "" || strings.Contains(raw, tok) || !strings.Contains(raw, "// ") {
		t.Fatalf("admin raw = %q", raw)
	}
	// Readers may not write.
	err = reader.Call(context.Background(), "config.patch", map[string]any{"raw": "{logging:{level:'debug'}}"}, nil)
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeForbidden {
		t.Fatalf("patch by reader: %v", err)
	}
	// A patch keeps the user's comments and says what needs a restart.
	var res map[string]any
	if err := admin.Call(context.Background(), "config.patch", map[string]any{"raw": "{logging:{level:'debug'}, gateway:{port: 18790}}"}, &res); err != nil {
		t.Fatalf("patch: %v", err)
	}
	after, _ := os.ReadFile(r.config)
	if !strings.Contains(string(after), `level: "debug"`) || !strings.Contains(string(after), "// ") {
		t.Fatalf("patched file:\n%s", after)
	}
	if rr, _ := res["restartRequired"].([]any); len(rr) != 1 || rr[0] != "gateway.port" {
		t.Fatalf("restartRequired = %v", res["restartRequired"])
	}
	// An invalid patch is refused with the problem named, and nothing is written.
	err = admin.Call(context.Background(), "config.patch", map[string]any{"raw": "{gateway:{bind:'0.0.0.0'}}"}, nil)
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "gateway.bind") {
		t.Fatalf("bad patch: %v", err)
	}
	if again, _ := os.ReadFile(r.config); string(again) != string(after) {
		t.Fatal("a refused patch changed the file")
	}
}

func TestLogsTailAndShutdownEvent(t *testing.T) {
	r := startGateway(t, nil)
	c, err := r.dial(t, r.token(t), "operator.read")
	if err != nil {
		t.Fatal(err)
	}
	var tail struct {
		File  string   `json:"file"`
		Lines []string `json:"lines"`
	}
	if err := c.Call(context.Background(), "logs.tail", map[string]any{"limit": 50}, &tail); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(tail.Lines, "\n"), `"message":"gateway listening"`) {
		t.Fatalf("log lines: %q", tail.Lines)
	}
	r.restart <- struct{}{}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev := <-c.Events():
			if ev.Event == protocol.EventShutdown {
				if !strings.Contains(string(ev.Payload), `"restartExpectedMs"`) {
					t.Fatalf("shutdown payload %s", ev.Payload)
				}
				select {
				case err := <-r.done:
					if !errors.Is(err, ErrRestart) {
						t.Fatalf("Run returned %v, want ErrRestart", err)
					}
					r.done <- nil // for the cleanup
				case <-time.After(10 * time.Second):
					t.Fatal("Run did not return after restart")
				}
				return
			}
		case <-deadline:
			t.Fatal("no shutdown event")
		}
	}
}

// TestSecretsNeverLogged connects with right and wrong tokens and checks
// neither appears in the log file or the console output.
func TestSecretsNeverLogged(t *testing.T) {
	var console strings.Builder
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := make(chan string, 1)
	const good = "the-real-token-5f2b9c"
	go func() {
		done <- Run(ctx, Options{StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json"), Port: -1, Token: good,
			Getenv: func(string) string { return "" }, Stderr: &lockedWriter{w: &console}, Verbose: true,
			Ready: func(a string) { ready <- a }})
	}()
	addr := <-ready
	r := &running{url: "ws://" + addr}
	if _, err := r.dial(t, good, "operator.admin"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.dial(t, "a-wrong-token-77aa", "operator.admin"); err == nil {
		t.Fatal("wrong token accepted")
	}
	cancel()
	<-done
	logFile, _ := os.ReadFile(filepath.Join(dir, "logs", "gateway.log"))
	for _, secret := range []string{good, "a-wrong-token-77aa"} {
		if strings.Contains(string(logFile), secret) || strings.Contains(console.String(), secret) {
			t.Fatalf("secret %q found in logs", secret)
		}
	}
	if !strings.Contains(string(logFile), "connect refused") {
		t.Fatalf("the refusal was not logged:\n%s", logFile)
	}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestToolAdminREST(t *testing.T) {
	r := startGateway(t, nil)
	tok := r.token(t)
	base := "http" + strings.TrimPrefix(r.url, "ws")
	do := func(method, path, bearer, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, _ := do("GET", "/api/v1/tools", "", ""); code != http.StatusUnauthorized {
		t.Fatalf("no bearer: %d", code)
	}
	if code, _ := do("GET", "/api/v1/tools", "wrong", ""); code != http.StatusUnauthorized {
		t.Fatalf("wrong bearer: %d", code)
	}
	code, body := do("GET", "/api/v1/tools", tok, "")
	if code != 200 || !strings.Contains(body, `"name":"sessions_spawn"`) {
		t.Fatalf("list: %d %s", code, body)
	}
	if code, body := do("PUT", "/api/v1/tools/sessions_spawn/toggle?enabled=false", tok, ""); code != 200 || !strings.Contains(body, `"enabled":false`) {
		t.Fatalf("toggle: %d %s", code, body)
	}
	if code, body := do("PUT", "/api/v1/tools/sessions_spawn/disclosure-tier", tok, `{"tier":"extension"}`); code != 200 || !strings.Contains(body, `"tier":"extension"`) {
		t.Fatalf("tier: %d %s", code, body)
	}
	if code, _ := do("PUT", "/api/v1/tools/sessions_spawn/disclosure-tier", tok, `{"tier":"gold"}`); code != 400 {
		t.Fatalf("bad tier accepted: %d", code)
	}
	c, err := r.dial(t, tok, "operator.read")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name    string `json:"name"`
			Enabled bool   `json:"enabled"`
			Tier    string `json:"tier"`
		} `json:"tools"`
	}
	if err := c.Call(context.Background(), "tools.list", nil, &list); err != nil {
		t.Fatal(err)
	}
	for _, tl := range list.Tools {
		if tl.Name == "sessions_spawn" && (tl.Enabled || tl.Tier != "extension") {
			t.Fatalf("tools.list after REST edits: %+v", tl)
		}
	}
	// Readers may not change tools over the bus.
	err = c.Call(context.Background(), "tools.setEnabled", map[string]any{"name": "sessions_spawn", "enabled": true}, nil)
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeForbidden {
		t.Fatalf("setEnabled by a reader: %v", err)
	}
}

func TestGatewayTool(t *testing.T) {
	r := startGateway(t, nil)
	c, err := r.dial(t, r.token(t), "operator.admin")
	if err != nil {
		t.Fatal(err)
	}
	invoke := func(args string) map[string]any {
		var out map[string]any
		if err := c.Call(context.Background(), "tools.invoke", map[string]any{"name": "gateway", "args": json.RawMessage(args)}, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := invoke(`{"action":"restart"}`); out["ok"] != false || !strings.Contains(fmt.Sprint(out["output"]), "commands.restart") {
		t.Fatalf("restart without commands.restart: %v", out)
	}
	if out := invoke(`{"action":"config.patch","raw":"{logging:{level:'debug'}}"}`); out["ok"] != true {
		t.Fatalf("patch: %v", out)
	}
	b, _ := os.ReadFile(r.config)
	if !strings.Contains(string(b), `level: "debug"`) {
		t.Fatalf("config after the tool's patch:\n%s", b)
	}
	if out := invoke(`{"action":"config.get"}`); strings.Contains(fmt.Sprint(out["output"]), r.token(t)) {
		t.Fatal("config.get through the tool shows the token")
	}
}

// TestControlUISwitch: gateway.controlUi.enabled false serves neither the
// page nor its files; the default serves both.
func TestControlUISwitch(t *testing.T) {
	get := func(base, path string) (int, string) {
		t.Helper()
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode, res.Header.Get("Content-Type")
	}
	tests := []struct {
		name     string
		config   string
		wantFile int
		wantRoot string // content type of "/"
	}{
		{"default", "", http.StatusOK, "text/html"},
		{"disabled", `{ gateway: { controlUi: { enabled: false } } }`, http.StatusNotFound, "text/plain"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.config != "" {
				if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(tc.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			r := startGatewayIn(t, dir, nil)
			base := "http" + strings.TrimPrefix(r.url, "ws")
			for _, path := range []string{"/ui/views.js", "/ui/kit.js"} {
				if got, _ := get(base, path); got != tc.wantFile {
					t.Errorf("GET %s = %d, want %d", path, got, tc.wantFile)
				}
			}
			if code, ct := get(base, "/"); code != http.StatusOK || !strings.HasPrefix(ct, tc.wantRoot) {
				t.Errorf("GET / = %d %s, want %s", code, ct, tc.wantRoot)
			}
		})
	}
}
