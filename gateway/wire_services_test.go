package gateway

import (
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

// servicesVolatile are the keys of session, run, agent and cron answers
// that change from run to run.
var servicesVolatile = []string{"sessionId", "previousSessionId", "endedAt", "timestamp", "lastInteractionAt",
	"nextRunAtMs", "jobId", "snapshotRevision", "runId", "anchorMs", "workspace",
	// Token counts follow the size of the system prompt and the tools.
	"inputTokens", "totalTokens", "input"}

// TestWireServices pins the answers of the agent, chat, sessions,
// device, node, channel and cron methods the packages below the root
// serve (results and error texts), so that typing their params and
// results changes nothing a client sees.
func TestWireServices(t *testing.T) {
	model := fakemodel.New(t)
	_, c := startWithConfig(t, model, "")
	const key = "agent:main:main"

	// A turn through chat.send leaves a session with a transcript.
	model.Script(fakemodel.Reply{Text: "hello from the wire"})
	sent := call[map[string]any](t, c, "chat.send", map[string]any{"sessionKey": key, "message": "hi", "idempotencyKey": "wire-services-1"})
	checkWire(t, "chat.send", sent, servicesVolatile...)
	checkWire(t, "agent.wait", call[any](t, c, "agent.wait", map[string]any{"runId": "wire-services-1", "timeoutMs": 20000}), servicesVolatile...)
	checkWire(t, "chat.history", call[any](t, c, "chat.history", map[string]any{"sessionKey": key}), servicesVolatile...)
	checkWire(t, "chat.history.none", call[any](t, c, "chat.history", map[string]any{"sessionKey": "agent:main:nobody"}), servicesVolatile...)
	checkWire(t, "chat.abort", call[any](t, c, "chat.abort", map[string]any{"sessionKey": key}), servicesVolatile...)

	checkWire(t, "sessions.list", call[any](t, c, "sessions.list", map[string]any{}), servicesVolatile...)
	checkWire(t, "sessions.list.page", call[any](t, c, "sessions.list", map[string]any{"limit": 1, "includeGlobal": true}), servicesVolatile...)
	checkWire(t, "sessions.describe", call[any](t, c, "sessions.describe", map[string]any{"key": key}), servicesVolatile...)
	checkWire(t, "sessions.resolve", call[any](t, c, "sessions.resolve", map[string]any{"key": key}), servicesVolatile...)
	checkWire(t, "sessions.resolve.missing", call[any](t, c, "sessions.resolve", map[string]any{"key": "agent:main:nobody"}), servicesVolatile...)
	checkWire(t, "sessions.resolve.allow-missing", call[any](t, c, "sessions.resolve", map[string]any{"key": "agent:main:nobody", "allowMissing": true}), servicesVolatile...)
	checkWire(t, "sessions.create", call[any](t, c, "sessions.create", map[string]any{"key": "agent:main:wire-two", "label": "two"}), servicesVolatile...)
	checkWire(t, "sessions.create.again", call[any](t, c, "sessions.create", map[string]any{"key": "agent:main:wire-two"}), servicesVolatile...)
	checkWire(t, "sessions.list.more", call[any](t, c, "sessions.list", map[string]any{"limit": 1}), servicesVolatile...)
	checkWire(t, "sessions.resolve.label", call[any](t, c, "sessions.resolve", map[string]any{"label": "two"}), servicesVolatile...)
	checkWire(t, "sessions.patch", call[any](t, c, "sessions.patch", map[string]any{"key": "agent:main:wire-two", "pinned": true}), servicesVolatile...)
	checkWire(t, "sessions.preview", call[any](t, c, "sessions.preview", map[string]any{"keys": []string{key, "agent:main:nobody"}, "maxChars": 5}), servicesVolatile...)
	checkWire(t, "sessions.reset", call[any](t, c, "sessions.reset", map[string]any{"key": key}), servicesVolatile...)
	checkWire(t, "sessions.subscribe", call[any](t, c, "sessions.subscribe", map[string]any{}), servicesVolatile...)
	checkWire(t, "sessions.delete", call[any](t, c, "sessions.delete", map[string]any{"key": "agent:main:wire-two"}), servicesVolatile...)

	checkWire(t, "agents.list", call[any](t, c, "agents.list", map[string]any{}), servicesVolatile...)
	checkWire(t, "agent.identity.get", call[any](t, c, "agent.identity.get", map[string]any{}), servicesVolatile...)
	checkWire(t, "models.list", call[any](t, c, "models.list", map[string]any{}), servicesVolatile...)

	checkWire(t, "device.pair.list", call[any](t, c, "device.pair.list", map[string]any{}), "deviceId", "publicKey", "issuedAtMs", "lastUsedAtMs", "approvedAtMs", "lastSeenAtMs")
	checkWire(t, "node.list", call[any](t, c, "node.list", map[string]any{}))
	checkWire(t, "node.pair.list", call[any](t, c, "node.pair.list", map[string]any{}))
	checkWire(t, "channels.status.none", call[any](t, c, "channels.status", map[string]any{}))
	checkWire(t, "channels.pairing.list.none", call[any](t, c, "channels.pairing.list", map[string]any{}))
	checkWire(t, "tts.status.off", call[any](t, c, "tts.status", map[string]any{}))
	checkWire(t, "tts.providers", call[any](t, c, "tts.providers", map[string]any{}))

	// cron: an added job read, changed and removed; the strict params.
	every := map[string]any{"kind": "every", "everyMs": 3600000}
	job := call[map[string]any](t, c, "cron.add", map[string]any{"name": "wire", "schedule": every, "payload": map[string]any{"kind": "systemEvent", "text": "tick"}})
	checkWire(t, "cron.get", call[any](t, c, "cron.get", map[string]any{"id": job["id"]}), servicesVolatile...)
	checkWire(t, "cron.update", call[any](t, c, "cron.update", map[string]any{"jobId": job["id"], "patch": map[string]any{"name": "wire-renamed"}}), servicesVolatile...)
	checkWire(t, "cron.list", call[any](t, c, "cron.list", map[string]any{"limit": 1}), servicesVolatile...)
	checkWire(t, "cron.runs.none", call[any](t, c, "cron.runs", map[string]any{"id": job["id"], "status": "all"}), servicesVolatile...)
	checkWire(t, "cron.remove", call[any](t, c, "cron.remove", map[string]any{"id": job["id"]}), servicesVolatile...)

	errs := map[string]string{}
	for _, tc := range []struct {
		name, method string
		params       any
	}{
		{"agent.wait-unknown", "agent.wait", map[string]any{"runId": "no-such-run"}},
		{"agent.wait-bad-json", "agent.wait", map[string]any{"runId": 7}},
		{"chat.abort-no-key", "chat.abort", map[string]any{}},
		{"chat.history-limit", "chat.history", map[string]any{"sessionKey": key, "limit": 5000}},
		{"chat.send-no-key", "chat.send", map[string]any{"message": "x"}},
		{"sessions.list-negative", "sessions.list", map[string]any{"limit": -1}},
		{"sessions.describe-no-key", "sessions.describe", map[string]any{}},
		{"sessions.describe-unknown", "sessions.describe", map[string]any{"key": "agent:main:nobody"}},
		{"sessions.resolve-nothing", "sessions.resolve", map[string]any{}},
		{"sessions.reset-unknown", "sessions.reset", map[string]any{"key": "agent:main:nobody"}},
		{"sessions.create-unknown-agent", "sessions.create", map[string]any{"agentId": "ghost"}},
		{"sessions.patch-unknown-field", "sessions.patch", map[string]any{"key": key, "color": "red"}},
		{"sessions.delete-no-key", "sessions.delete", map[string]any{}},
		{"agent.identity.get-unknown", "agent.identity.get", map[string]any{"agentId": "ghost"}},
		{"device.pair.approve-unknown", "device.pair.approve", map[string]any{"requestId": "nope"}},
		{"device.pair.approve-no-id", "device.pair.approve", map[string]any{}},
		{"device.pair.reject-unknown", "device.pair.reject", map[string]any{"requestId": "nope"}},
		{"device.pair.remove-unknown", "device.pair.remove", map[string]any{"deviceId": "nope"}},
		{"device.pair.remove-no-id", "device.pair.remove", map[string]any{}},
		{"device.pair.rename-unknown", "device.pair.rename", map[string]any{"deviceId": "nope", "label": "x"}},
		{"device.pair.rename-no-label", "device.pair.rename", map[string]any{"deviceId": "nope", "label": " "}},
		{"device.token.rotate-unknown", "device.token.rotate", map[string]any{"deviceId": "nope", "role": "operator"}},
		{"device.token.revoke-unknown", "device.token.revoke", map[string]any{"deviceId": "nope", "role": "operator"}},
		{"node.describe-unknown", "node.describe", map[string]any{"nodeId": "nope"}},
		{"node.describe-no-id", "node.describe", map[string]any{"nodeId": " "}},
		{"node.rename-unknown", "node.rename", map[string]any{"nodeId": "nope", "displayName": "x"}},
		{"node.rename-no-name", "node.rename", map[string]any{"nodeId": "nope"}},
		{"node.pair.approve-unknown", "node.pair.approve", map[string]any{"requestId": "nope"}},
		{"node.pair.reject-unknown", "node.pair.reject", map[string]any{"requestId": "nope"}},
		{"node.pair.remove-unknown", "node.pair.remove", map[string]any{"nodeId": "nope"}},
		{"node.invoke-no-command", "node.invoke", map[string]any{"nodeId": "nope"}},
		{"channels.status-bad-json", "channels.status", map[string]any{"probe": "yes"}},
		{"channels.start-none", "channels.start", map[string]any{"channel": "telegram"}},
		{"channels.logout-none", "channels.logout", map[string]any{"channel": "telegram"}},
		{"channels.pairing.dismiss-none", "channels.pairing.dismiss", map[string]any{"channel": "telegram", "requestId": "NOPE"}},
		{"channels.pairing.approve-no-id", "channels.pairing.approve", map[string]any{"channel": "telegram"}},
		{"channels.pairing.approve-bad-json", "channels.pairing.approve", map[string]any{"notify": "yes"}},
		{"send-media", "send", map[string]any{"to": "tg:1", "message": "x", "idempotencyKey": "k", "mediaUrl": "http://127.0.0.1/x"}},
		{"poll-bad-target", "poll", map[string]any{"to": "4001", "question": "q", "options": []string{"a", "b"}}},
		{"message.action-bad-json", "message.action", map[string]any{"params": "x"}},
		{"web.login.start-none", "web.login.start", map[string]any{}},
		{"web.login.wait-bad-json", "web.login.wait", map[string]any{"timeoutMs": "soon"}},
		{"cron.get-no-id", "cron.get", map[string]any{}},
		{"cron.get-unknown-field", "cron.get", map[string]any{"id": "x", "name": "y"}},
		{"cron.get-bad-type", "cron.get", map[string]any{"id": 7}},
		{"cron.get-unknown", "cron.get", map[string]any{"id": "nope"}},
		{"cron.get-not-object", "cron.get", []any{1}},
		{"cron.remove-unknown", "cron.remove", map[string]any{"jobId": "nope"}},
		{"cron.update-no-patch", "cron.update", map[string]any{"id": "x"}},
		{"cron.update-unknown-field", "cron.update", map[string]any{"id": "x", "patch": map[string]any{}, "extra": 1}},
		{"cron.run-no-id", "cron.run", map[string]any{"mode": "force"}},
		{"cron.run-unknown-field", "cron.run", map[string]any{"id": "x", "force": true}},
		{"cron.run-unknown", "cron.run", map[string]any{"id": "nope"}},
		{"cron.list-limit", "cron.list", map[string]any{"limit": 500}},
		{"cron.list-unknown-field", "cron.list", map[string]any{"pageSize": 5}},
		{"cron.runs-bad-status", "cron.runs", map[string]any{"statuses": []string{"ok", "maybe"}}},
		{"cron.runs-bad-status-one", "cron.runs", map[string]any{"status": "maybe"}},
		{"cron.runs-offset", "cron.runs", map[string]any{"offset": -1, "status": "maybe"}},
		{"cron.runs-unknown-field", "cron.runs", map[string]any{"job": "x"}},
	} {
		errs[tc.name] = callErr(t, c, tc.method, tc.params)
	}
	checkWire(t, "services.errors", errs)
}
