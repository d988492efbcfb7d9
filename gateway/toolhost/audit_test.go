package toolhost

import (
	"maps"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// TestAuditEventEnv: an exec call's environment reaches audit.list as it
// was stored (secret values already redacted), and other calls carry none.
func TestAuditEventEnv(t *testing.T) {
	env := map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GH_TOKEN": tools.RedactedEnvValue}
	rec := tools.AuditRecord{ID: 7, AuditEntry: tools.AuditEntry{At: time.UnixMilli(1), Who: tools.Who{AgentID: "main"},
		Tool: "exec", Decision: "denied", Env: env}}
	ev := auditEvent(rec, "main")
	if got, _ := ev["env"].(map[string]string); !maps.Equal(got, env) || ev["status"] != tools.OutcomeBlocked {
		t.Errorf("event %v", ev)
	}
	rec.Env, rec.Tool = nil, "read"
	if _, ok := auditEvent(rec, "main")["env"]; ok {
		t.Error("a call without an environment has an env field")
	}
}
