package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// adminWireConfig is startTruthGateway's config with a disabled Telegram
// account, so health and status have a channel to summarise and
// config.get a secret to redact.
const adminWireConfig = `{
  // the admin wing's wire goldens read this file
  gateway: { auth: { token: "` + truthToken + `" } },
  session: { mainKey: "home" },
  agents: {
    defaults: { model: "openai/gpt-5.2" },
    entries: { main: {}, ops: { default: true, name: "Ops bot", model: "anthropic/claude-sonnet-4-5" } },
  },
  channels: { telegram: { enabled: false, botToken: "123:wire-golden-bot-token", dmPolicy: "pairing" } },
  logging: { level: "info" },
}
`

// adminWireVolatile are keys of the admin methods' answers that change
// from run to run (or machine to machine) besides wireVolatile.
var adminWireVolatile = []string{
	"age", "sessionId", "host", "platform", "instanceId", "deviceId", "publicKey", "configRevisionHash", "generatedAt",
	// status's store part differs by engine; TestAdminWire checks it.
	"store",
}

// adminCall calls method and returns its result, or the protocol error's
// code, message and details, for checkWire; the state directory, which
// issue texts name, is written <dir>.
func adminCall(t *testing.T, c *client.Client, dir, method string, params any) json.RawMessage {
	t.Helper()
	var res json.RawMessage
	err := c.Call(context.Background(), method, params, &res)
	var pe *protocol.Error
	if errors.As(err, &pe) {
		res, _ = json.Marshal(map[string]any{"error": pe, "text": err.Error()})
	} else if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return sortRecent(t, json.RawMessage(strings.ReplaceAll(string(res), dir, "<dir>")))
}

// sortRecent orders every "recent" list of sessions by key: sessions made
// within one clock tick of each other come from the store in either order.
func sortRecent(t *testing.T, raw json.RawMessage) json.RawMessage {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if rows, ok := e.([]any); ok && k == "recent" {
					sort.SliceStable(rows, func(i, j int) bool {
						a, _ := rows[i].(map[string]any)
						b, _ := rows[j].(map[string]any)
						ka, _ := a["key"].(string)
						kb, _ := b["key"].(string)
						return ka < kb
					})
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAdminWire pins the wire shapes of the admin methods (health, status,
// presence, identity, config.*, diagnostics, logs.tail) and their error
// texts, so moving them cannot change what a client receives.
func TestAdminWire(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(adminWireConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startGatewayIn(t, dir, nil)
	createSessions(t, r, "ops", 2)
	createSessions(t, r, "main", 1)
	admin, err := r.dial(t, truthToken, "operator.admin")
	if err != nil {
		t.Fatal(err)
	}
	reader, err := r.dial(t, truthToken, "operator.read")
	if err != nil {
		t.Fatal(err)
	}
	wire := func(name string, c *client.Client, method string, params any, extra ...string) json.RawMessage {
		t.Helper()
		res := adminCall(t, c, dir, method, params)
		checkWire(t, name, res, append(append([]string{}, adminWireVolatile...), extra...)...)
		return res
	}

	wire("health", reader, "health", map[string]any{"probe": true})
	wire("status.read", reader, "status", map[string]any{"includeCliProjection": true})
	wire("status.admin", admin, "status", map[string]any{"includeCliProjection": true})
	wire("status.nochannels", reader, "status", map[string]any{"includeChannelSummary": false})
	var st struct {
		Store struct{ Driver, Role string } `json:"store"`
	}
	if err := reader.Call(context.Background(), "status", map[string]any{}, &st); err != nil {
		t.Fatal(err)
	}
	if st.Store.Driver != storetest.Engine() || st.Store.Role != "active" {
		t.Errorf("status store = %+v, want %s and active", st.Store, storetest.Engine())
	}
	// A presence entry's text names the host.
	var presence []map[string]any
	if err := reader.Call(context.Background(), "system-presence", nil, &presence); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	for _, e := range presence {
		if text, ok := e["text"].(string); ok {
			e["text"] = strings.ReplaceAll(text, host, "<host>")
		}
	}
	checkWire(t, "system-presence", presence, adminWireVolatile...)
	wire("gateway.identity.get", reader, "gateway.identity.get", nil)
	wire("config.get.read", reader, "config.get", nil)
	wire("config.get.admin", admin, "config.get", nil)

	// The schema is large and grows with every config key: pin the answer
	// around it and the schema's top-level shape.
	schema := wire("config.schema", reader, "config.schema", nil, "schema")
	var sch struct {
		Schema map[string]json.RawMessage `json:"schema"`
	}
	if err := json.Unmarshal(schema, &sch); err != nil {
		t.Fatal(err)
	}
	var props map[string]json.RawMessage
	json.Unmarshal(sch.Schema["properties"], &props)
	top, sections := sortedKeys(sch.Schema), sortedKeys(props)
	if len(sections) == 0 {
		t.Fatalf("config.schema has no properties: %v", top)
	}
	checkWire(t, "config.schema.keys", map[string]any{"keys": top, "hasProperties": len(sections) > 0})

	var got struct {
		Hash string `json:"hash"`
	}
	if err := admin.Call(context.Background(), "config.get", nil, &got); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(adminWireConfig, `level: "info"`, `level: "debug"`, 1)
	wire("config.set.basehash", admin, "config.set", map[string]any{"raw": edited, "baseHash": "0123"})
	wire("config.set.invalid", admin, "config.set", map[string]any{"raw": "{ gateway: { port: \"nope\" }, bogusKey: 1 }", "baseHash": got.Hash})
	wire("config.set.noraw", admin, "config.set", map[string]any{"baseHash": got.Hash})
	wire("config.set.syntax", admin, "config.set", map[string]any{"raw": "{ gateway: ", "baseHash": got.Hash})
	wire("config.set.dryrun", admin, "config.set", map[string]any{"raw": edited, "baseHash": got.Hash, "dryRun": true})
	wire("config.apply.dryrun.invalid", admin, "config.apply", map[string]any{"raw": `{ gateway: { mode: "remote" } }`, "baseHash": got.Hash, "dryRun": true})
	wire("config.patch.basehash", admin, "config.patch", map[string]any{"raw": `{ logging: { level: "debug" } }`, "baseHash": "0123"})
	wire("config.patch.notobject", admin, "config.patch", map[string]any{"raw": `[1]`, "baseHash": got.Hash})
	wire("config.patch.invalid", admin, "config.patch", map[string]any{"raw": `{ gateway: { port: "nope" } }`, "baseHash": got.Hash})
	wire("config.patch.dryrun", admin, "config.patch", map[string]any{"raw": `{ logging: { level: "debug" } }`, "baseHash": got.Hash, "dryRun": true})
	wire("config.set.reader", reader, "config.set", map[string]any{"raw": edited})
	wire("config.patch", admin, "config.patch", map[string]any{"raw": `{ logging: { level: "debug" } }`, "baseHash": got.Hash})
	if err := admin.Call(context.Background(), "config.get", nil, &got); err != nil {
		t.Fatal(err)
	}
	wire("config.set", admin, "config.set", map[string]any{"raw": adminWireConfig, "baseHash": got.Hash})

	// Memory samples come every 30 s: how many there are depends on the
	// run, their figures on the process.
	memory := []string{"count", "firstSeq", "lastSeq", "seq", "heapUsedBytes", "heapTotalBytes", "rssBytes",
		"maxHeapUsedBytes", "maxRssBytes", "diagnostic.memory.sample"}
	wire("diagnostics.stability", reader, "diagnostics.stability", map[string]any{"limit": 1, "type": "diagnostic.memory.sample"}, memory...)
	wire("diagnostics.stability.exporter", reader, "diagnostics.stability", map[string]any{"type": "telemetry.exporter"})
	wire("diagnostics.stability.badlimit", reader, "diagnostics.stability", map[string]any{"limit": 0})
	wire("diagnostics.stability.badparams", reader, "diagnostics.stability", []int{1})
	wire("doctor.memory.status", reader, "doctor.memory.status", map[string]any{"probe": false}, "files", "chunks")
	wire("doctor.memory.status.main", reader, "doctor.memory.status", map[string]any{"agentId": " Main "}, "files", "chunks")
	wire("doctor.memory.status.unknown", reader, "doctor.memory.status", map[string]any{"agentId": "nobody"})

	wire("logs.tail", reader, "logs.tail", map[string]any{"limit": 1}, "file", "cursor", "size", "lines", "truncated", "skippedBytes")
	wire("logs.tail.badlimit", reader, "logs.tail", map[string]any{"limit": 5001})
	wire("logs.tail.badcursor", reader, "logs.tail", map[string]any{"cursor": -1})
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
