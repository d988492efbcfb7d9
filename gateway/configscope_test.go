package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// TestConfigForReadOnlyOperator: an operator paired with operator.read
// alone (a dashboard, OpenClaw's CLI probing status) reads the config
// with every credential redacted and without the raw text, and may not
// change it: each write answers FORBIDDEN "missing scope: operator.admin".
func TestConfigForReadOnlyOperator(t *testing.T) {
	dir := t.TempDir()
	secrets := []string{"right-t0ken-for-config", "123:TG-bot-token-value", "tg_webhook_Secret-1", "xoxb-slack-bot-token", "slack-signing-secret-1", "sk-provider-key-value"}
	cfg := `{
  gateway: { mode: "local", auth: { token: "` + secrets[0] + `" } },
  channels: {
    telegram: { enabled: false, botToken: "` + secrets[1] + `", webhookUrl: "https://bot.example.org/tg", webhookSecret: "` + secrets[2] + `" },
    slack: { enabled: false, mode: "http", botToken: "` + secrets[3] + `", signingSecret: "` + secrets[4] + `" },
  },
  models: { providers: { p: { baseUrl: "https://llm.example/v1", apiKey: "` + secrets[5] + `", api: "openai-completions", models: [{ id: "m" }] } } },
}`
	if err := os.WriteFile(filepath.Join(dir, "openclaw.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startGatewayIn(t, dir, nil)
	reader, err := r.dial(t, secrets[0], "operator.read")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var got map[string]any
	if err := reader.Call(ctx, "config.get", nil, &got); err != nil {
		t.Fatalf("config.get by a reader: %v", err)
	}
	b, _ := json.Marshal(got)
	for _, s := range secrets {
		if strings.Contains(string(b), s) {
			t.Errorf("config.get shows a reader %q", s)
		}
	}
	if got["raw"] != nil {
		t.Error("config.get gives a reader the raw text")
	}
	for _, m := range []string{"config.set", "config.apply", "config.patch"} {
		err := reader.Call(ctx, m, map[string]any{"raw": "{}"}, nil)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.CodeForbidden || pe.Message != "missing scope: operator.admin" {
			t.Errorf("%s by a reader: %v; want FORBIDDEN missing scope: operator.admin", m, err)
		}
	}
}
