package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
)

// agentGateway is a fake gateway whose agent method answers with the
// given delivery status ("" for none) and records what it was sent.
func agentGateway(t *testing.T, runStatus, delivery string) *clienttest.Server {
	t.Helper()
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	srv.Handle("agent", func(ctx context.Context, call *clienttest.Call) (any, error) {
		if err := call.Accept(map[string]any{"runId": "r1", "status": "accepted"}); err != nil {
			return nil, err
		}
		result := map[string]any{"payloads": []any{map[string]any{"text": "the answer"}},
			"meta": map[string]any{"agentMeta": map[string]any{"sessionKey": "agent:main:main"}}}
		if delivery != "" {
			result["deliveryStatus"] = map[string]any{"requested": true, "status": delivery, "error": "chat not found", "reason": "silent"}
		}
		return map[string]any{"runId": "r1", "status": runStatus, "summary": "boom", "result": result}, nil
	})
	srv.Reply("sessions.patch", map[string]any{"ok": true})
	srv.Reply("sessions.resolve", map[string]any{"ok": true, "key": "agent:main:by-id"})
	return srv
}

// TestAgentFlags checks the real CLI's agent flags reach the gateway as
// the agent method's params, and their refusals.
func TestAgentFlags(t *testing.T) {
	home := isolate(t)
	msgFile := filepath.Join(home, "task.md")
	os.WriteFile(msgFile, []byte("\ufeffline one\nline two\n"), 0o600)
	big := filepath.Join(home, "big.md")
	os.WriteFile(big, make([]byte, 4<<20+1), 0o600)
	tests := []struct {
		name       string
		args       []string
		delivery   string
		runStatus  string
		wantErr    string
		wantParams map[string]any
		wantPatch  string // sessions.patch params, "" = none
		wantStdout string
	}{
		{name: "deliver to a channel", args: []string{"-m", "hi", "--deliver", "--reply-channel", "slack", "--reply-to", "#reports", "--reply-account", "work"},
			delivery: "sent", wantParams: map[string]any{"deliver": true, "replyChannel": "slack", "replyTo": "#reports", "replyAccountId": "work"}, wantStdout: "the answer"},
		{name: "to and channel", args: []string{"-m", "hi", "--deliver", "-t", "+15555550123", "--channel", "whatsapp"},
			delivery: "sent", wantParams: map[string]any{"deliver": true, "to": "+15555550123", "channel": "whatsapp"}},
		{name: "model", args: []string{"-m", "hi", "--model", "fake/echo-2"}, wantParams: map[string]any{"model": "fake/echo-2", "deliver": false}},
		{name: "message file", args: []string{"--message-file", msgFile}, wantParams: map[string]any{"message": "line one\nline two\n"}},
		{name: "session id", args: []string{"-m", "hi", "--session-id", "abc"}, wantParams: map[string]any{"sessionKey": "agent:main:by-id"}},
		{name: "thinking and verbose persist", args: []string{"-m", "hi", "--thinking", "high", "--verbose", "on"},
			wantPatch: `{"key":"agent:main:main","thinkingLevel":"high","verboseLevel":"on"}`},
		{name: "failed delivery exits 1", args: []string{"-m", "hi", "--deliver", "--to", "telegram:1"}, delivery: "failed", wantErr: "not delivered: chat not found"},
		{name: "failed delivery json", args: []string{"-m", "hi", "--deliver", "--to", "telegram:1", "--json"}, delivery: "failed", wantErr: "not delivered",
			wantStdout: `"deliveryStatus"`},
		{name: "failed run json exits 1", args: []string{"-m", "hi", "--json"}, runStatus: "error", wantErr: "agent run error", wantStdout: `"status": "error"`},
		{name: "both message and file", args: []string{"-m", "hi", "--message-file", msgFile}, wantErr: "not both"},
		{name: "file too big", args: []string{"--message-file", big}, wantErr: "larger than 4 MiB"},
		{name: "reply flags need deliver", args: []string{"-m", "hi", "--reply-to", "x"}, wantErr: "take effect with --deliver"},
		{name: "blank selector", args: []string{"-m", "hi", "--session-key", "  "}, wantErr: "--session-key is empty"},
		{name: "bad thinking", args: []string{"-m", "hi", "--thinking", "galaxy"}, wantErr: "one of off, minimal"},
		{name: "local", args: []string{"-m", "hi", "--local"}, wantErr: "--local is not available"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.runStatus == "" {
				tc.runStatus = "ok"
			}
			srv := agentGateway(t, tc.runStatus, tc.delivery)
			args := append([]string{"agent"}, tc.args...)
			stdout, stderr, err := runCLI(t, append(args, "--url", srv.URL(), "--token", testToken)...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q (stderr %q)", err, tc.wantErr, stderr)
				}
			} else if err != nil {
				t.Fatalf("err %v stderr %q", err, stderr)
			}
			if !strings.Contains(stdout, tc.wantStdout) {
				t.Errorf("stdout %q lacks %q", stdout, tc.wantStdout)
			}
			if strings.Contains(tc.name, "json") {
				var doc map[string]any
				if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
					t.Errorf("--json stdout is not one JSON document: %v\n%s", err, stdout)
				}
			}
			var sent map[string]any
			var patch string
			for _, r := range srv.Requests() {
				switch r.Method {
				case "agent":
					json.Unmarshal(r.Params, &sent)
				case "sessions.patch":
					patch = string(r.Params)
				}
			}
			for k, want := range tc.wantParams {
				if got := sent[k]; got != want {
					t.Errorf("param %s = %#v, want %#v (sent %v)", k, got, want, sent)
				}
			}
			if patch != tc.wantPatch {
				t.Errorf("sessions.patch %s, want %s", patch, tc.wantPatch)
			}
		})
	}
}
