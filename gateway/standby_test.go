package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
)

// lockedBuffer is a log sink two goroutines may write.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// sharedGateway is one of several gateways on one PostgreSQL database,
// run as the CLI runs it: restarted in process on ErrRestart.
type sharedGateway struct {
	ready  chan string
	log    *lockedBuffer
	cancel context.CancelFunc
	done   chan struct{}
}

func startShared(t *testing.T, pgURL string) *sharedGateway {
	t.Helper()
	dir := t.TempDir()
	cfg := `{
  gateway: { mode: "local", auth: { token: "t0k3n-shared" } },
  store: { driver: "postgres", url: "${OPENCLAW_STORE_URL}", leaseInterval: "100ms", leaseTimeout: "2s" },
  hooks: { enabled: true, token: "h00k-t0ken-shared" },
}`
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	g := &sharedGateway{ready: make(chan string, 8), done: make(chan struct{}), log: &lockedBuffer{}}
	ctx, cancel := context.WithCancel(context.Background())
	g.cancel = cancel
	env := map[string]string{"OPENCLAW_STORE_URL": pgURL}
	opts := Options{
		StateDir: dir, ConfigPath: filepath.Join(dir, "openclaw.json"), Port: -1,
		Getenv: func(k string) string { return env[k] }, Stderr: g.log,
		Ready: func(addr string) { g.ready <- "ws://" + addr },
	}
	go func() {
		defer close(g.done)
		for {
			err := Run(ctx, opts)
			if !errors.Is(err, ErrRestart) {
				if err != nil && ctx.Err() == nil {
					t.Errorf("gateway: %v", err)
				}
				return
			}
		}
	}()
	t.Cleanup(g.stop)
	return g
}

func (g *sharedGateway) stop() {
	g.cancel()
	<-g.done
}

// next waits for the gateway's next start and dials it.
func (g *sharedGateway) next(t *testing.T) (*client.Client, string) {
	t.Helper()
	var url string
	select {
	case url = <-g.ready:
	case <-time.After(60 * time.Second):
		t.Fatal("gateway did not start")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: url, Token: "t0k3n-shared", Scopes: []string{"operator.admin"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, url
}

type storeStatusView struct {
	Store struct {
		Driver string `json:"driver"`
		Role   string `json:"role"`
		Active struct {
			Holder  string `json:"holder"`
			Address string `json:"address"`
			Epoch   int64  `json:"epoch"`
		} `json:"active"`
	} `json:"store"`
}

// Two gateways on one database: one is active, the other refuses what
// would write and takes over when the active one stops.
func TestStandbyTakesOver(t *testing.T) {
	// With a password in the URL (the test server trusts loopback and
	// ignores it), which must show nowhere.
	url := strings.Replace(pgtest.URL(t), "://openclaw@", "://openclaw:s3cr3t-pg-pw@", 1)
	a := startShared(t, url)
	ca, urlA := a.next(t)
	b := startShared(t, url)
	cb, urlB0 := b.next(t)

	sa := call[storeStatusView](t, ca, "status", map[string]any{})
	if sa.Store.Driver != "postgres" || sa.Store.Role != "active" {
		t.Fatalf("a's store = %+v, want postgres/active", sa.Store)
	}
	sb := call[storeStatusView](t, cb, "status", map[string]any{})
	if sb.Store.Role != "standby" || sb.Store.Active.Address != urlA || sb.Store.Active.Epoch != 1 {
		t.Fatalf("b's store = %+v, want standby pointing at %s, epoch 1", sb.Store, urlA)
	}

	// A write on the standby: refused, retryable, naming where to go.
	tests := []struct {
		method string
		params any
	}{
		{"chat.send", map[string]any{"sessionKey": "main", "message": "hello", "idempotencyKey": "k1"}},
		{"config.set", map[string]any{"raw": "{}"}},
		{"cron.add", map[string]any{"name": "x", "schedule": map[string]any{"kind": "every", "everyMs": 60000}, "payload": map[string]any{"kind": "systemEvent", "text": "x"}}},
	}
	for _, tt := range tests {
		err := cb.Call(context.Background(), tt.method, tt.params, nil)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.CodeUnavailable || !strings.Contains(pe.Message, "standby") || !strings.Contains(pe.Message, urlA) || pe.Retryable == nil || !*pe.Retryable {
			t.Errorf("%s on the standby: %v, want a retryable UNAVAILABLE naming %s", tt.method, err, urlA)
		}
	}
	if err := cb.Call(context.Background(), "sessions.list", map[string]any{}, nil); err != nil {
		t.Errorf("a read on the standby: %v", err)
	}
	// Over HTTP: a hook that would start a turn is refused on the
	// standby, and its readiness tells a load balancer to go elsewhere.
	httpB := "http" + strings.TrimPrefix(urlB0, "ws")
	httpA := "http" + strings.TrimPrefix(urlA, "ws")
	for _, tt := range []struct {
		base string
		want int
	}{{httpB, http.StatusServiceUnavailable}, {httpA, http.StatusOK}} {
		req, _ := http.NewRequest(http.MethodPost, tt.base+"/hooks/wake", strings.NewReader(`{"text":"wake up"}`))
		req.Header.Set("Authorization", "Bearer h00k-t0ken-shared")
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tt.want {
			t.Errorf("POST %s/hooks/wake = %d, want %d", tt.base, res.StatusCode, tt.want)
		}
		res, err = http.Get(tt.base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tt.want {
			t.Errorf("GET %s/readyz = %d, want %d", tt.base, res.StatusCode, tt.want)
		}
	}

	a.stop()
	cb2, urlB := b.next(t) // b restarted as the active gateway
	sb = call[storeStatusView](t, cb2, "status", map[string]any{})
	if sb.Store.Role != "active" || sb.Store.Active.Epoch < 2 || sb.Store.Active.Address != urlB {
		t.Fatalf("b after a stopped: %+v, want active at epoch ≥ 2 on %s", sb.Store, urlB)
	}
	if err := cb2.Call(context.Background(), "cron.add", tests[2].params, nil); err != nil {
		t.Errorf("a write on the new active gateway: %v", err)
	}
	var cfg map[string]any
	if err := cb2.Call(context.Background(), "config.get", map[string]any{}, &cfg); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"a's log": a.log.String(), "b's log": b.log.String(), "config.get": fmt.Sprint(cfg)} {
		if strings.Contains(text, "s3cr3t-pg-pw") {
			t.Errorf("%s shows the database password", name)
		}
	}
	if !strings.Contains(b.log.String(), "restarting to take over") {
		t.Errorf("b's log does not say it took over:\n%s", b.log.String())
	}
}
