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
		if got := formatLogLine(tt.in, time.UTC); got != tt.want {
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

// TestLogsFlags checks the real CLI's logs flags: time zone, plain text,
// --max-bytes and --port, and their refusals.
func TestLogsFlags(t *testing.T) {
	const line = `{"time":"2026-01-02T03:04:05.678Z","level":"INFO","subsystem":"rpc","message":"hello","conn":"c1"}`
	ts, _ := time.Parse(time.RFC3339Nano, "2026-01-02T03:04:05.678Z")
	tests := []struct {
		name       string
		args       []string // after "logs"; the fake's --url/--token unless port
		port       bool     // reach the fake by --port instead of --url
		wantStdout string
		wantParams string
		wantErr    string
	}{
		{name: "default is local time", wantStdout: ts.Local().Format("15:04:05.000") + ` info  rpc: hello conn="c1"` + "\n",
			wantParams: `{"limit":200,"maxBytes":250000}`},
		{name: "local-time", args: []string{"--local-time"}, wantStdout: ts.Local().Format("15:04:05.000") + ` info  rpc: hello conn="c1"` + "\n"},
		{name: "utc", args: []string{"--utc"}, wantStdout: `03:04:05.678 info  rpc: hello conn="c1"` + "\n"},
		{name: "plain utc", args: []string{"--plain", "--utc"}, wantStdout: "2026-01-02T03:04:05.678Z info rpc hello\n"},
		{name: "plain local", args: []string{"--plain"}, wantStdout: ts.Local().Format("2006-01-02T15:04:05.000-07:00") + " info rpc hello\n"},
		{name: "max-bytes and limit", args: []string{"--max-bytes", "5000", "--limit", "7"}, wantParams: `{"limit":7,"maxBytes":5000}`},
		{name: "port reaches the local gateway", port: true, wantParams: `{"limit":200,"maxBytes":250000}`},
		{name: "utc wins over local-time", args: []string{"--local-time", "--utc"}, wantStdout: `03:04:05.678 info  rpc: hello conn="c1"` + "\n"},
		{name: "max-bytes zero", args: []string{"--max-bytes", "0"}, wantErr: "--max-bytes must be between"},
		{name: "limit zero", args: []string{"--limit", "0"}, wantErr: "--limit must be between"},
		{name: "port with url", args: []string{"--port", "1"}, wantErr: "--port and --url exclude each other"},
		{name: "empty port", args: []string{"--port", " "}, wantErr: "is not a port"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Handle("logs.tail", (&fakeLog{lines: []string{line}, polled: make(chan struct{}, 1)}).tail)
			args := append([]string{"logs"}, tc.args...)
			if tc.port {
				_, p, _ := strings.Cut(strings.TrimPrefix(srv.URL(), "ws://"), ":")
				args = append(args, "--port", p, "--token", testToken)
			} else {
				args = append(args, "--url", srv.URL(), "--token", testToken)
			}
			stdout, stderr, err := runCLI(t, args...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(stderr, tc.wantErr) || len(srv.Requests()) != 0 {
					t.Fatalf("err %v stderr %q requests %d; want %q before any call", err, stderr, len(srv.Requests()), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v: %s", err, stderr)
			}
			if tc.wantStdout != "" && stdout != tc.wantStdout {
				t.Errorf("stdout = %q, want %q", stdout, tc.wantStdout)
			}
			if reqs := srv.Requests(); tc.wantParams != "" && (len(reqs) != 1 || string(reqs[0].Params) != tc.wantParams) {
				t.Errorf("requests %+v, want params %s", reqs, tc.wantParams)
			}
		})
	}
}
