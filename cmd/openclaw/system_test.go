package main

import (
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
)

func TestSystemCommandsRefuseBadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"system", "event"}, "--text is required"},
		{[]string{"system", "event", "--text", "x", "--mode", "soon"}, "--mode must be now or next-heartbeat"},
		{[]string{"system", "heartbeat", "pause"}, "pause"},
	}
	for _, tt := range tests {
		isolate(t)
		srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
		_, stderr, err := runCLI(t, append(tt.args, "--url", srv.URL(), "--token", testToken)...)
		if err == nil || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: err %v, stderr %q; want it to mention %q", tt.args, err, stderr, tt.want)
		}
		if n := len(srv.Requests()); n != 0 {
			t.Errorf("%v sent %d requests", tt.args, n)
		}
	}
}

func TestHeartbeatLastOutput(t *testing.T) {
	tests := []struct {
		name    string
		payload any
		want    []string
	}{
		{"none yet", nil, []string{"No heartbeat has run"}},
		{"sent", map[string]any{"ts": 1796050000000, "agentId": "main", "status": "sent", "durationMs": 1500,
			"trigger": "interval", "channel": "telegram", "to": "42", "preview": "Backups failed."},
			[]string{"agent main  sent", "1.5s", "trigger interval", "to telegram 42", "Backups failed."}},
		{"skipped", map[string]any{"ts": 1796050000000, "agentId": "ops", "status": "skipped", "reason": "outside activeHours"},
			[]string{"agent ops  skipped (outside activeHours)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			isolate(t)
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			srv.Reply("last-heartbeat", tt.payload)
			stdout, stderr, err := runCLI(t, "system", "heartbeat", "last", "--url", srv.URL(), "--token", testToken)
			if err != nil {
				t.Fatalf("%v: %s", err, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output %q lacks %q", stdout, w)
				}
			}
		})
	}
}
