package host

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/tools/execapprovals"
)

func TestDispatch(t *testing.T) {
	h := newTestHost(t, "", "")
	h.lookPath = func(name string) (string, error) {
		if name == "ls" {
			return "/usr/bin/ls", nil
		}
		return "", errors.New("not found")
	}
	tests := []struct {
		name     string
		command  string
		params   string
		wantCode string
		wantMsg  string
		want     string // JSON payload
	}{
		{name: "which", command: CmdSystemWhich, params: `{"bins":["ls","nope"]}`, want: `{"bins":{"ls":"/usr/bin/ls"}}`},
		{name: "which needs bins", command: CmdSystemWhich, params: `{}`, wantCode: "INVALID_REQUEST", wantMsg: "bins required"},
		{name: "which no params", command: CmdSystemWhich, wantCode: "INVALID_REQUEST", wantMsg: "bins required"},
		{name: "which bins not strings", command: CmdSystemWhich, params: `{"bins":[1]}`, wantCode: "INVALID_REQUEST"},
		{name: "which refuses paths", command: CmdSystemWhich, params: `{"bins":["../ls"]}`, wantCode: "INVALID_REQUEST", wantMsg: "not a command name"},
		{name: "which refuses empty", command: CmdSystemWhich, params: `{"bins":[""]}`, wantCode: "INVALID_REQUEST"},
		{name: "params not JSON", command: CmdSystemWhich, params: `{"bins":`, wantCode: "INVALID_REQUEST"},
		{name: "run needs command", command: CmdSystemRun, params: `{}`, wantCode: "INVALID_REQUEST", wantMsg: "command required"},
		{name: "run command not argv", command: CmdSystemRun, params: `{"command":"ls -la"}`, wantCode: "INVALID_REQUEST"},
		{name: "prepare needs command", command: CmdSystemRunPrepare, params: `{"command":[]}`, wantCode: "INVALID_REQUEST"},
		{name: "unknown command", command: "fs.readFile", params: `{}`, wantCode: "UNAVAILABLE", wantMsg: "command not supported"},
		{name: "camera unsupported", command: "camera.snap", wantCode: "UNAVAILABLE", wantMsg: "unsupported on this host"},
		{name: "screen unsupported", command: "screen.record", wantCode: "UNAVAILABLE", wantMsg: "unsupported on this host"},
		{name: "location unsupported", command: "location.get", wantCode: "UNAVAILABLE", wantMsg: "unsupported on this host"},
		{name: "notify without notify-send", command: CmdSystemNotify, params: `{"title":"x"}`, wantCode: "UNAVAILABLE", wantMsg: "command not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := invokeRequest{ID: "i1", NodeID: "n1", Command: tt.command}
			if tt.params != "" {
				req.ParamsJSON = &tt.params
			}
			res := h.invoke(context.Background(), req)
			if res.ID != "i1" || res.NodeID != "n1" {
				t.Fatalf("ids %+v", res)
			}
			if tt.wantCode != "" {
				if res.OK || res.Error == nil || res.Error.Code != tt.wantCode || !strings.Contains(res.Error.Message, tt.wantMsg) {
					t.Fatalf("result %+v, want %s %q", res, tt.wantCode, tt.wantMsg)
				}
				return
			}
			if !res.OK || res.PayloadJSON != tt.want {
				t.Fatalf("result %+v, want %s", res, tt.want)
			}
		})
	}
}

func TestNotifyDeclaredOnlyWithNotifySend(t *testing.T) {
	h := newTestHost(t, "", "")
	if slices.Contains(h.Commands(), CmdSystemNotify) != slices.Contains(h.SupportedCommands(), CmdSystemNotify) {
		t.Fatal("declared and supported disagree")
	}
	for _, c := range hostUnsupported {
		if slices.Contains(h.Commands(), c) {
			t.Fatalf("%s declared on a headless host", c)
		}
	}
}

func TestCommandsFlag(t *testing.T) {
	tests := []struct {
		name    string
		want    []string
		declare []string
		err     string
	}{
		{name: "all by default", declare: []string{CmdSystemRun, CmdSystemRunPrepare, CmdExecApprovalsGet, CmdExecApprovalsSet, CmdSystemWhich, CmdFsListDir}},
		{name: "subset", want: []string{"system.which", " system.run "}, declare: []string{CmdSystemRun, CmdSystemWhich}},
		{name: "camera refused", want: []string{"camera.snap"}, err: "unsupported on this host"},
		{name: "unknown refused", want: []string{"system.bogus"}, err: "not supported by this node host"},
		{name: "empty items only", want: []string{" "}, err: "no commands"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := New(Config{URL: "ws://x", StateDir: t.TempDir(), Commands: tt.want,
				LookPath: func(string) (string, error) { return "", errors.New("none") }})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := h.Commands()
			want := slices.Sorted(slices.Values(tt.declare))
			if !slices.Equal(got, want) {
				t.Fatalf("commands %v, want %v", got, want)
			}
			res := h.invoke(context.Background(), invokeRequest{ID: "x", Command: CmdSystemRunPrepare, ParamsJSON: ptr(`{"command":["ls"]}`)})
			if len(tt.want) > 0 && (res.OK || !strings.Contains(res.Error.Message, "command not supported")) {
				t.Fatalf("undeclared command served: %+v", res)
			}
		})
	}
}

func TestExecApprovalsGetSet(t *testing.T) {
	ctx := context.Background()
	h := newTestHost(t, "", "")
	get := func() execapprovals.Snapshot {
		t.Helper()
		res := h.invoke(ctx, invokeRequest{ID: "g", Command: CmdExecApprovalsGet})
		if !res.OK {
			t.Fatalf("get: %+v", res.Error)
		}
		var s execapprovals.Snapshot
		if err := json.Unmarshal([]byte(res.PayloadJSON), &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	set := func(file execapprovals.File, base string) invokeResult {
		params := string(mustJSON(t, map[string]any{"file": file, "baseHash": base}))
		return h.invoke(ctx, invokeRequest{ID: "s", Command: CmdExecApprovalsSet, ParamsJSON: &params})
	}
	first := get()
	if first.Exists || first.File.Version != 1 {
		t.Fatalf("fresh snapshot %+v", first)
	}
	file := execapprovals.File{Version: 1, Defaults: execapprovals.Settings{Security: "full", Ask: "off"},
		Socket: &execapprovals.Socket{Path: "/x.sock", Token: "secret-token"}}
	if res := set(file, first.Hash); !res.OK {
		t.Fatalf("first set: %+v", res.Error)
	}
	second := get()
	if !second.Exists || second.File.Defaults.Security != "full" || second.Hash == first.Hash {
		t.Fatalf("after set %+v", second)
	}
	if second.File.Socket.Token != redacted || strings.Contains(res2str(t, second), "secret-token") {
		t.Fatalf("socket token not redacted: %+v", second.File.Socket)
	}
	// A stale hash loses.
	file.Defaults.Security = "deny"
	res := set(file, first.Hash)
	if res.OK || res.Error.Code != protocol.CodeInvalidRequest || !strings.Contains(res.Error.Message, "changed since") {
		t.Fatalf("stale set: %+v", res)
	}
	// No hash once the file exists.
	if res := set(file, ""); res.OK || !strings.Contains(res.Error.Message, "baseHash required") {
		t.Fatalf("hashless set: %+v", res)
	}
	// Invalid content.
	bad := file
	bad.Defaults.Security = "sometimes"
	if res := set(bad, second.Hash); res.OK || res.Error.Code != protocol.CodeInvalidRequest {
		t.Fatalf("invalid set: %+v", res)
	}
	// The redacted token sent back keeps the stored one.
	file.Socket.Token = redacted
	if res := set(file, second.Hash); !res.OK {
		t.Fatalf("set: %+v", res.Error)
	}
	raw, err := h.approvals.Get()
	if err != nil || raw.File.Socket.Token != "secret-token" || raw.File.Defaults.Security != "deny" {
		t.Fatalf("stored %+v, %v", raw.File, err)
	}
	// The new policy applies to the next run.
	run := h.invoke(ctx, invokeRequest{ID: "r", Command: CmdSystemRun, ParamsJSON: ptr(`{"command":["true"]}`)})
	if run.OK || run.Error.Code != protocol.CodeSystemRunDenied {
		t.Fatalf("run under deny: %+v", run)
	}
}

func res2str(t *testing.T, v any) string { return string(mustJSON(t, v)) }

func TestStatsParsing(t *testing.T) {
	if got := parseLoadAvg("0.52 0.58 0.59 2/512 12345\n"); !slices.Equal(got, []float64{0.52, 0.58, 0.59}) {
		t.Fatalf("loadavg %v", got)
	}
	if got := parseLoadAvg("garbage"); got != nil {
		t.Fatalf("loadavg of garbage %v", got)
	}
	meminfo := "MemTotal:       16303428 kB\nMemFree:         1000000 kB\nMemAvailable:    8000000 kB\n"
	total, free := parseMeminfo(bufio.NewScanner(strings.NewReader(meminfo)))
	if total != 16303428*1024 || free != 8000000*1024 {
		t.Fatalf("meminfo %d %d", total, free)
	}
	total, free = parseMeminfo(bufio.NewScanner(strings.NewReader("MemTotal: 10 kB\nMemFree: 4 kB\n")))
	if total != 10240 || free != 4096 {
		t.Fatalf("old meminfo %d %d", total, free)
	}
	if s := readStats("/nonexistent"); s.CPUCount < 1 || s.MemoryTotalBytes != 0 {
		t.Fatalf("stats without /proc %+v", s)
	}
}

func TestTail(t *testing.T) {
	if got := tail("abcdef", 3); got != "def" {
		t.Fatal(got)
	}
	if got := tail("short", 10); got != "short" {
		t.Fatal(got)
	}
	if got := tail("aé", 1); got != "" { // never half a rune
		t.Fatalf("%q", got)
	}
}
