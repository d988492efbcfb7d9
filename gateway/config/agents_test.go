package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestAgentsConfig(t *testing.T) {
	tests := []struct {
		name       string
		src        string
		wantIDs    []string
		wantDef    string
		errs       []string
		warnSubstr string
	}{
		{"none configured", `{}`, []string{"main"}, "main", nil, ""},
		{"entries, main preferred", `{agents:{entries:{zed:{}, main:{}, alpha:{}}}}`, []string{"main", "alpha", "zed"}, "main", nil, ""},
		{"explicit default", `{agents:{entries:{zed:{default:true}, main:{}}}}`, []string{"zed", "main"}, "zed", nil, ""},
		{"first id without main", `{agents:{entries:{zed:{}, bob:{}}}}`, []string{"bob", "zed"}, "bob", nil, ""},
		{"legacy list migrated", `{agents:{list:[{id:"Work", default:true}, {id:"home"}]}}`, []string{"work", "home"}, "work", nil, "agents.list is from an older OpenClaw; read as agents.entries"},
		{"bad id", `{agents:{entries:{"-bad":{}}}}`, nil, "", []string{`agent id "-bad"`}, ""},
		{"two defaults", `{agents:{entries:{a:{default:true}, b:{default:true}}}}`, nil, "", []string{"only one agent may be the default"}, ""},
		{"bad model ref", `{agents:{defaults:{model:"gpt-4o"}}}`, nil, "", []string{`agents.defaults.model: "gpt-4o" is not a model reference`}, ""},
		{"heartbeat every not a duration", `{agents:{defaults:{heartbeat:{every:"often"}}}}`, nil, "", []string{`agents.defaults.heartbeat.every: "often" is not a duration`}, ""},
		{"heartbeat every too short", `{agents:{entries:{main:{heartbeat:{every:"5s"}}}}}`, nil, "", []string{`agents.entries.main.heartbeat.every: "5s" is shorter than a minute`}, ""},
		{"heartbeat channel without to", `{agents:{defaults:{heartbeat:{target:"telegram"}}}}`, nil, "", []string{`target "telegram" names a channel`}, ""},
		{"heartbeat bad active hours", `{agents:{defaults:{heartbeat:{activeHours:{start:"8am"}}}}}`, nil, "", []string{`activeHours.start: "8am" is not a time of day`}, ""},
		{"heartbeat off", `{agents:{defaults:{heartbeat:{every:"0m", activeHours:{start:"22:00", end:"06:00", timezone:"Asia/Tokyo"}}}}}`, []string{"main"}, "main", nil, ""},
		{"bad fallback ref", `{agents:{defaults:{model:{primary:"a/b", fallbacks:["c"]}}}}`, nil, "", []string{`agents.defaults.model.fallbacks[0]: "c" is not a model reference`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, errs, warns := parseTest(t, tt.src, nil)
			if len(tt.errs) > 0 {
				for _, want := range tt.errs {
					if !strings.Contains(strings.Join(errs, "\n"), want) {
						t.Fatalf("errors %q, want one containing %q", errs, want)
					}
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("errors: %q", errs)
			}
			if tt.warnSubstr != "" && !strings.Contains(strings.Join(warns, "\n"), tt.warnSubstr) {
				t.Fatalf("warnings %q, want %q", warns, tt.warnSubstr)
			}
			if got := snap.Config.AgentIDs(); !reflect.DeepEqual(got, tt.wantIDs) {
				t.Fatalf("AgentIDs = %v, want %v", got, tt.wantIDs)
			}
			if got := snap.Config.DefaultAgentID(); got != tt.wantDef {
				t.Fatalf("DefaultAgentID = %q, want %q", got, tt.wantDef)
			}
		})
	}
}

// TestLegacyAgentListKeepsEveryEntryKey: an agents.list[] element takes
// what an agents.entries.<id> entry takes, tools included (OpenClaw's
// docs write per-agent tools as agents.list[].tools), and it lands there.
func TestLegacyAgentListKeepsEveryEntryKey(t *testing.T) {
	snap, errs, _ := parseTest(t, `{agents:{list:[
  {id:"support", description:"answers customers", tools:{profile:"messaging", allow:["slack"], deny:["exec"],
    byProvider:{"google-antigravity":{allow:["message","sessions_list"]}}},
   groupChat:{mentionPatterns:["@support"]}, subagents:{allowAgents:["*"]}},
]}}`, nil)
	if len(errs) > 0 {
		t.Fatalf("errors: %q", errs)
	}
	e, ok := snap.Config.Agent("support")
	if !ok {
		t.Fatal("agent support missing")
	}
	want := ToolPolicy{Profile: "messaging", Allow: []string{"slack"}, Deny: []string{"exec"},
		ByProvider: map[string]ToolProviderRules{"google-antigravity": {Allow: []string{"message", "sessions_list"}}}}
	if !reflect.DeepEqual(e.Tools, want) {
		t.Errorf("tools = %+v, want %+v", e.Tools, want)
	}
	if e.Description != "answers customers" || !reflect.DeepEqual(e.GroupChat.MentionPatterns, []string{"@support"}) ||
		!reflect.DeepEqual(e.Subagents.AllowAgents, []string{"*"}) {
		t.Errorf("entry = %+v", e)
	}
}

// TestToolGuardEnabledKey: tools.guard.enabled is a key (MateClaw's
// example config sets it).
func TestToolGuardEnabledKey(t *testing.T) {
	snap, errs, _ := parseTest(t, `{tools:{guard:{enabled:false, defaultPolicy:"require_approval"}}}`, nil)
	if len(errs) > 0 {
		t.Fatalf("errors: %q", errs)
	}
	if g := snap.Config.Tools.Guard; g.Enabled == nil || *g.Enabled || g.DefaultPolicy != "require_approval" {
		t.Errorf("guard = %+v", g)
	}
}
