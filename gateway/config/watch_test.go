package config

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// replaceFile saves text the way editors do: write a temp file, rename it.
func replaceFile(t *testing.T, path, text string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

type watchRig struct {
	t       *testing.T
	path    string
	logs    *syncBuffer
	applied chan *Snapshot
	stop    func()
}

// startWatcher runs a Watcher on dir/openclaw.json until the test ends.
func startWatcher(t *testing.T, dir, initial string, apply func(*Snapshot) error) *watchRig {
	t.Helper()
	r := &watchRig{t: t, path: writeFile(t, dir, "openclaw.json", initial), logs: &syncBuffer{}, applied: make(chan *Snapshot, 16)}
	ready := make(chan struct{})
	w := &Watcher{
		Path:     r.path,
		Options:  LoadOptions{Getenv: envFunc(nil)},
		Logger:   slog.New(slog.NewTextHandler(r.logs, nil)),
		Debounce: 20 * time.Millisecond,
		Apply: func(s *Snapshot) error {
			if apply != nil {
				if err := apply(s); err != nil {
					return err
				}
			}
			r.applied <- s
			return nil
		},
		ready: func() { close(ready) },
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("watcher stopped: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("watcher did not start")
	}
	r.stop = func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run returned %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("watcher did not stop")
		}
	}
	t.Cleanup(func() { r.stop() })
	return r
}

func (r *watchRig) nextApplied() *Snapshot {
	r.t.Helper()
	select {
	case s := <-r.applied:
		return s
	case <-time.After(5 * time.Second):
		r.t.Fatalf("no config applied; logs:\n%s", r.logs)
		return nil
	}
}

func TestWatcherGoodBadGood(t *testing.T) {
	before := runtime.NumGoroutine()
	r := startWatcher(t, t.TempDir(), `{gateway: {port: 1001}}`, nil)

	replaceFile(t, r.path, `{gateway: {port: 1002}}`)
	if got := r.nextApplied().Config.Gateway.Port; got != 1002 {
		t.Fatalf("port = %d, want 1002", got)
	}

	replaceFile(t, r.path, "{\n  gateway: { port: 'x', bind: 'nowhere' },\n}")
	waitFor(t, "the failed reload to be logged", 5*time.Second, func() bool {
		return strings.Contains(r.logs.String(), "config reload failed")
	})
	logs := r.logs.String()
	for _, want := range []string{"gateway.port: expected a number", `gateway.bind: \"nowhere\" is not allowed`, "errors=2"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
	if len(r.applied) != 0 {
		t.Fatal("an invalid config was applied")
	}

	replaceFile(t, r.path, `{gateway: {port: 1003}}`)
	if got := r.nextApplied().Config.Gateway.Port; got != 1003 {
		t.Fatalf("port = %d, want 1003", got)
	}

	r.stop()
	r.stop = func() {}
	waitFor(t, "watcher goroutines to end", 5*time.Second, func() bool {
		return runtime.NumGoroutine() <= before
	})
}

func TestWatcherKeepsConfigWhenApplyFails(t *testing.T) {
	fail := true
	var mu sync.Mutex
	r := startWatcher(t, t.TempDir(), `{gateway: {port: 1}}`, func(s *Snapshot) error {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			fail = false
			return errors.New("port busy")
		}
		return nil
	})
	replaceFile(t, r.path, `{gateway: {port: 2}}`)
	waitFor(t, "the apply failure to be logged", 5*time.Second, func() bool {
		return strings.Contains(r.logs.String(), "port busy")
	})
	replaceFile(t, r.path, `{gateway: {port: 3}}`)
	if got := r.nextApplied().Config.Gateway.Port; got != 3 {
		t.Fatalf("port = %d, want 3", got)
	}
}

func TestWatcherFollowsIncludes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "conf.d/gw.json5", `{port: 1}`)
	r := startWatcher(t, dir, `{gateway: {$include: "conf.d/gw.json5"}}`, nil)
	replaceFile(t, filepath.Join(dir, "conf.d/gw.json5"), `{port: 2}`)
	if got := r.nextApplied().Config.Gateway.Port; got != 2 {
		t.Fatalf("port = %d, want 2", got)
	}
}

func TestWatcherReloadOff(t *testing.T) {
	r := startWatcher(t, t.TempDir(), `{gateway: {reload: {mode: "off"}}}`, nil)
	replaceFile(t, r.path, `{gateway: {port: 2, reload: {mode: "off"}}}`)
	waitFor(t, "the skipped reload to be logged", 5*time.Second, func() bool {
		return strings.Contains(r.logs.String(), "restart to apply")
	})
	if len(r.applied) != 0 {
		t.Fatal("reload.mode off must not apply changes")
	}
}
