package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
)

// fakeLog serves logs.tail from a growing list of lines; the cursor is the
// number of lines already returned.
type fakeLog struct {
	mu      sync.Mutex
	lines   []string
	cursors []any // cursor param of each call (nil when absent)
	polled  chan struct{}
}

func (f *fakeLog) tail(_ context.Context, call *clienttest.Call) (any, error) {
	var p struct {
		Cursor *int `json:"cursor"`
		Limit  int  `json:"limit"`
	}
	if err := call.Decode(&p); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var from int
	if p.Cursor == nil {
		f.cursors = append(f.cursors, nil)
		from = max(0, len(f.lines)-p.Limit)
	} else {
		f.cursors = append(f.cursors, *p.Cursor)
		from = *p.Cursor
	}
	out := append([]string{}, f.lines[from:]...)
	select {
	case f.polled <- struct{}{}:
	default:
	}
	return map[string]any{"file": "/var/log/openclaw.log", "cursor": len(f.lines), "size": 100, "lines": out}, nil
}

func (f *fakeLog) add(lines ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lines = append(f.lines, lines...)
}

func TestLogs(t *testing.T) {
	isolate(t)
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	log := &fakeLog{lines: []string{"one", "two", "three"}, polled: make(chan struct{}, 1)}
	srv.Handle("logs.tail", log.tail)

	stdout, stderr, err := runCLI(t, "logs", "--limit", "2", "--url", srv.URL(), "--token", testToken)
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	if stdout != "two\nthree\n" {
		t.Errorf("stdout = %q", stdout)
	}

	stdout, _, err = runCLI(t, "logs", "--json", "--url", srv.URL(), "--token", testToken)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var meta, first map[string]any
	if err != nil || len(lines) != 4 || json.Unmarshal([]byte(lines[0]), &meta) != nil || json.Unmarshal([]byte(lines[1]), &first) != nil {
		t.Fatalf("--json: %q %v", stdout, err)
	}
	if meta["type"] != "meta" || meta["cursor"] != float64(3) || first["type"] != "log" || first["message"] != "one" {
		t.Errorf("--json lines: %v %v", meta, first)
	}
}

func TestFormatLogLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{`{"time":"bad","level":"info","subsystem":"rpc","message":"client connected","conn":"c1"}`, `bad info  rpc: client connected conn="c1"`},
		{`{"time":"x","level":"warn","message":"m","n":2,"a":true}`, `x warn  m a=true n=2`},
	}
	for _, tt := range tests {
		if got := formatLogLine(tt.in); got != tt.want {
			t.Errorf("formatLogLine(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLogsFollow(t *testing.T) {
	isolate(t)
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	log := &fakeLog{lines: []string{"a", "b"}, polled: make(chan struct{}, 1)}
	srv.Handle("logs.tail", log.tail)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"logs", "--follow", "--interval", "10", "--url", srv.URL(), "--token", testToken},
			strings.NewReader(""), &stdout, &stderr)
	}()

	waitFor(t, func() bool { return stdout.String() == "a\nb\n" })
	log.add("c", "d")
	waitFor(t, func() bool { return stdout.String() == "a\nb\nc\nd\n" })
	waitFor(t, func() bool { // the next poll resumes after d
		log.mu.Lock()
		defer log.mu.Unlock()
		return log.cursors[len(log.cursors)-1] == 4
	})
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("follow ended with %v (stderr %q)", err, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("follow did not stop on cancel")
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if log.cursors[0] != nil || log.cursors[1] != 2 {
		t.Errorf("cursors sent = %v, want nil, 2, ..., 4", log.cursors)
	}
	if len(srv.Connects()) != 1 {
		t.Errorf("follow opened %d connections, want 1", len(srv.Connects()))
	}
	if !strings.Contains(stderr.String(), "Following /var/log/openclaw.log") {
		t.Errorf("stderr = %q", stderr.String())
	}
}

// waitFor polls cond until it holds or a deadline passes.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met before deadline")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
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
