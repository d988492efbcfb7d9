package gateway

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// TestConfigSetDryRun: config.set and config.apply with dryRun: true
// report the issues of a text (positioned) without writing it; a real
// write of an invalid text is refused with the same issues in the error's
// details; the text config.get shows (secrets redacted) can be saved
// back without losing the secrets.
func TestConfigSetDryRun(t *testing.T) {
	r := startGateway(t, nil)
	tok := r.token(t)
	admin, err := r.dial(t, tok, "operator.admin")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var got struct {
		Raw  string `json:"raw"`
		Hash string `json:"hash"`
	}
	if err := admin.Call(ctx, "config.get", nil, &got); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got.Raw, config.RedactedSentinel) || strings.Contains(got.Raw, tok) {
		t.Fatalf("config.get raw is not redacted:\n%s", got.Raw)
	}
	orig, _ := os.ReadFile(r.config)

	type issue struct {
		Path    string `json:"path"`
		Message string `json:"message"`
		Line    int    `json:"line"`
		Column  int    `json:"column"`
	}
	type checkResult struct {
		OK              bool     `json:"ok"`
		Valid           bool     `json:"valid"`
		DryRun          bool     `json:"dryRun"`
		Issues          []issue  `json:"issues"`
		RestartRequired []string `json:"restartRequired"`
	}
	check := func(method, raw string) checkResult {
		t.Helper()
		var res checkResult
		if err := admin.Call(ctx, method, map[string]any{"raw": raw, "baseHash": got.Hash, "dryRun": true}, &res); err != nil {
			t.Fatalf("%s dryRun: %v", method, err)
		}
		if !res.DryRun {
			t.Fatalf("%s dryRun answer lacks dryRun: %+v", method, res)
		}
		return res
	}
	unchanged := func(what string) {
		t.Helper()
		if now, _ := os.ReadFile(r.config); string(now) != string(orig) {
			t.Fatalf("%s changed the file:\n%s", what, now)
		}
	}

	// A syntax error: line and column of the bad token.
	res := check("config.set", "{\n  gateway: { mode: \"local\" }\n  logging: {},\n}\n")
	if res.Valid || res.OK || len(res.Issues) != 1 || res.Issues[0].Line != 3 || res.Issues[0].Column != 3 {
		t.Fatalf("syntax error check = %+v", res)
	}
	unchanged("a dry run of a syntax error")

	// A wrong type and an unknown key: both, with their key paths.
	res = check("config.apply", "{\n  gateway: {\n    mode: \"local\",\n    port: \"nope\",\n  },\n  bogusKey: 1,\n}\n")
	if res.Valid || len(res.Issues) != 2 || res.Issues[0].Path != "gateway.port" || res.Issues[0].Line != 4 ||
		res.Issues[1].Path != "bogusKey" || res.Issues[1].Line != 6 {
		t.Fatalf("type and key check = %+v", res)
	}
	unchanged("a dry run of a wrong type")

	// A config the gateway could not start with.
	res = check("config.set", `{ gateway: { mode: "remote" } }`)
	if res.Valid || len(res.Issues) != 1 || !strings.Contains(res.Issues[0].Message, "remote") {
		t.Fatalf("remote mode check = %+v", res)
	}

	// A valid text (the shown one, with a change): valid, still not written.
	edited := strings.Replace(got.Raw, `level: "info"`, `level: "debug"`, 1)
	if edited == got.Raw {
		t.Fatalf("no logging level in:\n%s", got.Raw)
	}
	res = check("config.apply", edited)
	if !res.Valid || !res.OK || len(res.Issues) != 0 {
		t.Fatalf("valid check = %+v", res)
	}
	unchanged("a dry run of a valid text")

	// A stale base hash is refused, dry run or not.
	err = admin.Call(ctx, "config.set", map[string]any{"raw": edited, "baseHash": "0123", "dryRun": true}, nil)
	var pe *protocol.Error
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "baseHash mismatch") {
		t.Fatalf("stale base hash: %v", err)
	}

	// A real write of an invalid text: INVALID_CONFIG with the issues.
	err = admin.Call(ctx, "config.apply", map[string]any{"raw": "{ gateway: { port: \"nope\" } }", "baseHash": got.Hash}, nil)
	if !errors.As(err, &pe) || !strings.Contains(pe.Message, "gateway.port") {
		t.Fatalf("invalid apply: %v", err)
	}
	details, _ := pe.Details.(map[string]any)
	issues, _ := details["issues"].([]any)
	first, _ := issues[0].(map[string]any)
	if details["code"] != "INVALID_CONFIG" || len(issues) != 1 || first["path"] != "gateway.port" || first["line"] != float64(1) {
		t.Fatalf("invalid apply details = %#v", pe.Details)
	}
	unchanged("an invalid apply")

	// Saving the redacted text keeps the real token, and applies the change.
	if err := admin.Call(ctx, "config.apply", map[string]any{"raw": edited, "baseHash": got.Hash}, nil); err != nil {
		t.Fatalf("apply: %v", err)
	}
	after, _ := os.ReadFile(r.config)
	if !strings.Contains(string(after), `level: "debug"`) || !strings.Contains(string(after), `token: "`+tok+`"`) ||
		strings.Contains(string(after), config.RedactedSentinel) {
		t.Fatalf("file after saving the redacted text:\n%s", after)
	}
	if _, err := r.dial(t, tok, "operator.read"); err != nil {
		t.Fatalf("the token after saving the redacted text: %v", err)
	}

	// A placeholder with nothing to restore is refused, not written.
	orig = after
	if err := admin.Call(ctx, "config.get", nil, &got); err != nil {
		t.Fatal(err)
	}
	res = check("config.set", `{ gateway: { mode: "local", auth: { mode: "token", token: "`+tok+`" } }, channels: { telegram: { botToken: "`+config.RedactedSentinel+`" } } }`)
	if res.Valid || len(res.Issues) == 0 || res.Issues[len(res.Issues)-1].Path != "channels.telegram.botToken" {
		t.Fatalf("unrestorable placeholder check = %+v", res)
	}
	unchanged("an unrestorable placeholder")
}
