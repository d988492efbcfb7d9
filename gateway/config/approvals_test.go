package config

import (
	"strings"
	"testing"
)

// TestIsApprover: the owner answers anywhere; a network's execApprovals
// approvers and the person a direct forwarding target names answer from
// that network only; nobody in a group target does.
func TestIsApprover(t *testing.T) {
	src := `{
	  commands: { ownerAllowFrom: ["telegram:1"] },
	  approvals: { exec: { enabled: true, mode: "both", targets: [
	    { channel: "telegram", to: "-1001234" },
	    { channel: "slack", to: "U9" },
	    { channel: "discord", to: "user:555" },
	  ] } },
	  channels: {
	    telegram: { execApprovals: { approvers: [42, "telegram:43"] } },
	    discord: { execApprovals: { enabled: false, approvers: ["987"] } },
	    slack: { execApprovals: { enabled: true, approvers: ["U1", "*"] } },
	  },
	}`
	snap, err := Parse("openclaw.json", []byte(src), LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	c := snap.Config
	tests := []struct {
		name            string
		channel, sender string
		want            bool
	}{
		{"the owner", "telegram", "1", true},
		{"a Telegram approver", "telegram", "42", true},
		{"a prefixed approver", "telegram", "43", true},
		{"a stranger", "telegram", "666", false},
		{"a Discord approver while the native client is off", "discord", "987", true},
		{"a Slack approver", "slack", "U1", true},
		{"a star approves nobody", "slack", "U2", false},
		{"a Telegram approver's id on another network", "slack", "42", false},
		{"the recipient of a direct target", "slack", "U9", true},
		{"the recipient of a Discord user target", "discord", "555", true},
		{"a member of a group target", "telegram", "-1001234", false},
		{"no sender", "slack", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.IsApprover(tc.channel, tc.sender); got != tc.want {
				t.Errorf("IsApprover(%q, %q) = %v, want %v", tc.channel, tc.sender, got, tc.want)
			}
		})
	}
	// A target recipient answers only while exec forwarding sends to
	// targets.
	c.Approvals.Exec.Mode = "session"
	if c.IsApprover("slack", "U9") {
		t.Error("a target recipient answers while forwarding sends to no targets")
	}
}

// TestForwardingFilters: agentFilter and sessionFilter as OpenClaw's
// forwarder applies them.
func TestForwardingFilters(t *testing.T) {
	tests := []struct {
		name                string
		f                   ApprovalForwarding
		agentID, sessionKey string
		want                bool
	}{
		{"off", ApprovalForwarding{}, "main", "agent:main:x", false},
		{"no filters", ApprovalForwarding{Enabled: true}, "", "", true},
		{"agent named", ApprovalForwarding{Enabled: true, AgentFilter: []string{"main"}}, "main", "", true},
		{"agent from the session key", ApprovalForwarding{Enabled: true, AgentFilter: []string{"main"}}, "", "agent:main:discord:dm:1", true},
		{"another agent", ApprovalForwarding{Enabled: true, AgentFilter: []string{"main"}}, "ops", "agent:main:x", false},
		{"no agent at all", ApprovalForwarding{Enabled: true, AgentFilter: []string{"main"}}, "", "", false},
		{"session substring", ApprovalForwarding{Enabled: true, SessionFilter: []string{"discord"}}, "", "agent:main:discord:dm:1", true},
		{"session regex", ApprovalForwarding{Enabled: true, SessionFilter: []string{`:dm:\d+$`}}, "", "agent:main:slack:dm:9", true},
		{"session not matched", ApprovalForwarding{Enabled: true, SessionFilter: []string{"discord"}}, "", "agent:main:slack:dm:9", false},
		{"no session", ApprovalForwarding{Enabled: true, SessionFilter: []string{"discord"}}, "main", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f.Forwards(tc.agentID, tc.sessionKey); got != tc.want {
				t.Errorf("Forwards = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestForwardingTargetsShape: a target needs a channel and a recipient;
// its threadId may be a number.
func TestForwardingTargetsShape(t *testing.T) {
	env := LoadOptions{Getenv: func(string) string { return "" }}
	snap, err := Parse("openclaw.json", []byte(`{approvals: {exec: {enabled: true, mode: "targets", targets: [{channel: "telegram", to: "-100", threadId: 77}]}}}`), env)
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Config.Approvals.Exec.Targets[0].ThreadID; got != "77" {
		t.Errorf("threadId %q, want 77", got)
	}
	for _, tc := range []struct{ src, want string }{
		{`{approvals: {exec: {targets: [{to: "1"}]}}}`, "approvals.exec.targets[0]"},
		{`{approvals: {plugin: {targets: [{channel: "slack", to: ""}]}}}`, "approvals.plugin.targets[0].to"},
		{`{approvals: {exec: {mode: "everywhere"}}}`, "approvals.exec.mode"},
	} {
		if _, err := Parse("openclaw.json", []byte(tc.src), env); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one naming %s", tc.src, err, tc.want)
		}
	}
}
