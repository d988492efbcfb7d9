package config

import (
	"strings"
	"testing"
)

func TestMigrateLegacy(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		paths          []string
	}{
		{"lastTouchedAt", "{\n  // kept\n  meta: { lastTouchedVersion: \"2026.1.1\", lastTouchedAt: \"2026-01-01T00:00:00Z\" },\n}\n",
			"{\n  // kept\n  meta: { lastTouchedVersion: \"2026.1.1\" },\n}\n", []string{"meta.lastTouchedAt"}},
		{"webchat", `{"channels":{"webchat":{"enabled":true}}}`, `{"channels":{}}`, []string{"channels.webchat"}},
		{"top-level heartbeat", `{"heartbeat":{"every":"30m"}}`, `{"agents":{"defaults":{"heartbeat":{"every":"30m"}}}}`, []string{"heartbeat"}},
		{"current key wins", `{"heartbeat":{"every":"30m"},"agents":{"defaults":{"heartbeat":{"every":"1h"}}}}`, `{"agents":{"defaults":{"heartbeat":{"every":"1h"}}}}`, []string{"heartbeat"}},
		{"agents.list", `{"agents":{"list":[{"id":"main","model":"a/b"},{"id":"ops"}]}}`, `{"agents":{"entries":{"main":{"model":"a/b"},"ops":{}}}}`, []string{"agents.list"}},
		{"agents.list then memorySearch", `{"agents":{"list":[{"id":"main","memorySearch":{"enabled":true}}]}}`, `{"agents":{"entries":{"main":{"memory":{"search":{"enabled":true}}}}}}`, []string{"agents.list", "agents.entries.main.memorySearch"}},
		{"peer kind dm", `{"bindings":[{"agentId":"a","match":{"channel":"slack","peer":{"kind":"dm","id":"U1"}}}]}`, `{"bindings":[{"agentId":"a","match":{"channel":"slack","peer":{"kind":"direct","id":"U1"}}}]}`, []string{"bindings[0].match.peer.kind"}},
		{"provider api openai", `{"models":{"providers":{"x":{"api":"openai"}}}}`, `{"models":{"providers":{"x":{"api":"openai-completions"}}}}`, []string{"models.providers.x.api"}},
		{"mcp disabled", `{"mcp":{"servers":{"fs":{"command":"x","disabled":true}}}}`, `{"mcp":{"servers":{"fs":{"command":"x","enabled":false}}}}`, []string{"mcp.servers.fs.disabled"}},
		{"thread ttl per account", `{"channels":{"discord":{"accounts":{"w":{"threadBindings":{"ttlHours":24}}}}}}`, `{"channels":{"discord":{"accounts":{"w":{"threadBindings":{"idleHours":24}}}}}}`, []string{"channels.discord.accounts.w.threadBindings.ttlHours"}},
		{"telegram requireMention", `{"channels":{"telegram":{"requireMention":false}}}`, `{"channels":{"telegram":{"groups":{"*":{"requireMention":false}}}}}`, []string{"channels.telegram.requireMention"}},
		{"node commands", `{"gateway":{"nodes":{"denyCommands":["x"]}}}`, `{"gateway":{"nodes":{"commands":{"deny":["x"]}}}}`, []string{"gateway.nodes.denyCommands"}},
		{"retired root path", `{"gateway":{"controlUi":{"enabled":true,"allowInsecureAuth":true}}}`, `{"gateway":{"controlUi":{"enabled":true}}}`, []string{"gateway.controlUi.allowInsecureAuth"}},
		{"retired agent path", `{"agents":{"entries":{"a":{"heartbeat":{"every":"1h","skipWhenBusy":true}}}}}`, `{"agents":{"entries":{"a":{"heartbeat":{"every":"1h"}}}}}`, []string{"agents.entries.a.heartbeat.skipWhenBusy"}},
		{"retired tuning knob", `{"acp":{"enabled":true,"maxConcurrentSessions":4}}`, `{"acp":{"enabled":true}}`, []string{"acp.maxConcurrentSessions"}},
		{"memorySearch then retired sync", `{"agents":{"defaults":{"memorySearch":{"enabled":true,"sync":{"onStart":true}}}}}`, `{"agents":{"defaults":{}},"memory":{"search":{"enabled":true}}}`, []string{"agents.defaults.memorySearch", "memory.search.sync"}},
		{"image generation model", `{"agents":{"defaults":{"imageGenerationModel":{"primary":"a/b"}}}}`, `{"agents":{"defaults":{"mediaModels":{"image":{"primary":"a/b"}}}}}`, []string{"agents.defaults.imageGenerationModel"}},
		{"owner display", `{"commands":{"ownerDisplay":"hash","native":"auto"}}`, `{"commands":{"native":"auto"}}`, []string{"commands.ownerDisplay"}},
		{"telegram streaming scalar", `{"channels":{"telegram":{"accounts":{"a":{"streaming":"partial"}}}}}`, `{"channels":{"telegram":{"accounts":{"a":{"streaming":{"mode":"partial"}}}}}}`, []string{"channels.telegram.accounts.a.streaming"}},
		{"telegram streamMode", `{"channels":{"telegram":{"streamMode":"off"}}}`, `{"channels":{"telegram":{"streaming":{"mode":"off"}}}}`, []string{"channels.telegram.streamMode"}},
		{"telegram scalar streaming wins over streamMode", `{"channels":{"telegram":{"streaming":"block","streamMode":"off"}}}`, `{"channels":{"telegram":{"streaming":{"mode":"block"}}}}`, []string{"channels.telegram.streaming", "channels.telegram.streamMode"}},
		{"talk flat fields", `{"talk":{"apiKey":"${K}","voiceId":"v"}}`, `{"talk":{"providers":{"elevenlabs":{"apiKey":"${K}","voiceId":"v"}}}}`, []string{"talk"}},
		{"talk provider's own field wins", `{"talk":{"provider":"x","voiceId":"old","providers":{"x":{"voiceId":"new"}}}}`, `{"talk":{"provider":"x","providers":{"x":{"voiceId":"new"}}}}`, []string{"talk"}},
		{"reload mode restart", `{"gateway":{"reload":{"mode":"restart"}}}`, `{"gateway":{"reload":{"mode":"hybrid"}}}`, []string{"gateway.reload.mode"}},
		{"cron runLog", `{"cron":{"enabled":true,"runLog":{"keepLines":2000}}}`, `{"cron":{"enabled":true}}`, []string{"cron.runLog"}},
		{"inline env vars", `{"env":{"K":"v","shellEnv":{"enabled":true}}}`, `{"env":{"shellEnv":{"enabled":true},"vars":{"K":"v"}}}`, []string{"env.K"}},
		{"inline env var beside vars", `{"env":{"vars":{"K":"new"},"K":"old"}}`, `{"env":{"vars":{"K":"new"}}}`, []string{"env.K"}},
		{"per-agent plugins", `{"agents":{"entries":{"main":{"plugins":["x"],"model":"a/b"}}}}`, `{"agents":{"entries":{"main":{"model":"a/b"}}}}`, []string{"agents.entries.main.plugins"}},
		{"agent keyed by id", `{"agents":{"helper":{"tools":{}},"defaults":{"model":"a/b"}}}`, `{"agents":{"defaults":{"model":"a/b"}}}`, []string{"agents.helper"}},
		{"agents own keys stay", `{"agents":{"ownership":"explicit","defaults":{},"entries":{"a":{}}}}`, `{"agents":{"ownership":"explicit","defaults":{},"entries":{"a":{}}}}`, nil},
		{"memorySearch auto", `{"memorySearch":{"provider":"auto"}}`, `{"memory":{"search":{"provider":"openai"}}}`, []string{"memorySearch", "memory.search.provider"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, applied, err := MigrateLegacy([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := canonicalText(t, out); got != canonicalText(t, []byte(tc.want)) {
				t.Errorf("got\n%s\nwant\n%s", out, tc.want)
			}
			if strings.Contains(tc.want, "//") && string(out) != tc.want {
				t.Errorf("text not kept:\n%s", out)
			}
			var paths []string
			for _, a := range applied {
				paths = append(paths, a.Path)
			}
			if strings.Join(paths, " ") != strings.Join(tc.paths, " ") {
				t.Errorf("applied %v, want paths %v", applied, tc.paths)
			}
			again, more, err := MigrateLegacy(out)
			if err != nil || len(more) > 0 || string(again) != string(out) {
				t.Errorf("second pass changed it: %v %v\n%s", more, err, again)
			}
		})
	}
}

func canonicalText(t *testing.T, src []byte) string {
	t.Helper()
	tree, err := migrationTree(src)
	if err != nil {
		t.Fatalf("parse %s: %v", src, err)
	}
	return jsonText(tree)
}

func TestMigrateLegacyLeavesCurrentConfigByteForByte(t *testing.T) {
	for _, src := range []string{
		"",
		"{}",
		"not json",
		"{\n  // a comment\n  gateway: { port: 18789, },\n  agents: { entries: { main: { model: 'a/b' } } },\n  meta: { lastTouchedVersion: '2026.9.6' },\n}\n",
	} {
		out, applied, err := MigrateLegacy([]byte(src))
		if err != nil || len(applied) > 0 || string(out) != src {
			t.Errorf("%q: got %q %v %v", src, out, applied, err)
		}
	}
}

func TestParseWarnsForEachLegacyRewrite(t *testing.T) {
	snap, err := Parse(t.TempDir()+"/openclaw.json", []byte(`{meta:{lastTouchedAt:"2026-01-01T00:00:00Z"}, session:{idleMinutes: 30}}`), LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("legacy keys refused: %v", err)
	}
	want := map[string]string{
		"meta.lastTouchedAt":  "meta.lastTouchedAt is from an older OpenClaw; removed",
		"session.idleMinutes": "read as session.reset.idleMinutes",
	}
	for _, w := range snap.Warnings {
		if s, ok := want[w.Path]; ok && strings.Contains(w.Message, s) && strings.Contains(w.Message, "openclaw migrate") {
			delete(want, w.Path)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing warnings %v in %v", want, snap.Warnings)
	}
	if got := snap.Config.Session.Reset.IdleMinutes; got != 30 {
		t.Errorf("session.reset.idleMinutes = %v, want 30", got)
	}
}

// FuzzMigrateLegacy: on any text, MigrateLegacy must not panic, and what it
// returns must still parse and be a fixed point.
func FuzzMigrateLegacy(f *testing.F) {
	f.Add([]byte(`{meta:{lastTouchedAt:"x"},heartbeat:{every:"1m"},agents:{list:[{id:"a",embeddedPi:{}}]}}`))
	f.Add([]byte(`{mcp:{servers:{a:{disabled:true,enabled:true}}},bindings:[{match:{peer:{kind:"dm"}}}]}`))
	f.Add([]byte(`{channels:{telegram:{requireMention:true,groups:{"*":{}}}}}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		out, applied, err := MigrateLegacy(src)
		if err != nil || len(applied) == 0 {
			return
		}
		if _, perr := migrationTree(out); perr != nil {
			t.Fatalf("migrated text does not parse: %v\n%s", perr, out)
		}
		again, more, err := MigrateLegacy(out)
		if err != nil || len(more) > 0 || string(again) != string(out) {
			t.Fatalf("not a fixed point: %v %v", more, err)
		}
	})
}
