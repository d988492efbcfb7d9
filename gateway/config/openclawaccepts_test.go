package config

import (
	"strings"
	"testing"
)

// TestOpenClawAcceptsTheseConfigs pins configs that OpenClaw's own
// `config validate` accepts: they load here too, with OpenClaw's meaning
// or a warning that says what is not in effect.
func TestOpenClawAcceptsTheseConfigs(t *testing.T) {
	for _, tc := range []struct {
		name, src, warn string
	}{
		{"acp binding", `{bindings: [{type: "acp", agentId: "main", match: {channel: "slack", peer: {kind: "channel", id: "C1"}}}]}`,
			`bindings[0].type: type "acp" is not in effect here`},
		{"slack relay mode", `{channels: {slack: {mode: "relay", botToken: "xoxb-1"}}}`,
			`channels.slack.mode: mode "relay" is not in effect here`},
		{"heartbeat owner without to", `{agents: {defaults: {heartbeat: {every: "30m", target: "owner"}}}, commands: {ownerAllowFrom: ["telegram:1"]}}`,
			`agents.defaults.heartbeat.target: target "owner" is not in effect here`},
		{"open dmPolicy without star", `{channels: {telegram: {botToken: "1:a", dmPolicy: "open", allowFrom: ["123"]}}}`,
			`channels.telegram.allowFrom: dmPolicy "open" without "*" in allowFrom drops every direct message`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, warns := parseTest(t, tc.src, nil)
			if len(errs) > 0 {
				t.Fatalf("refused: %v", errs)
			}
			for _, w := range warns {
				if strings.Contains(w, tc.warn) {
					return
				}
			}
			t.Errorf("no warning %q in %v", tc.warn, warns)
		})
	}
}
