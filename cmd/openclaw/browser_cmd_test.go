package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
)

// TestBrowserCommand: each `openclaw browser` verb becomes one browser
// tool call with the tool's own argument names, and a refused call
// exits 1 with the tool's words.
func TestBrowserCommand(t *testing.T) {
	isolate(t)
	tests := []struct {
		name     string
		args     []string
		toolFail bool
		wantArgs string // "" = no call
		wantOut  string
		wantErr  string
	}{
		{name: "status", args: []string{"status"}, wantArgs: `{"action":"status"}`, wantOut: "tool said ok"},
		{name: "profile flag", args: []string{"--browser-profile", "work", "start"}, wantArgs: `{"action":"start","profile":"work"}`},
		{name: "open", args: []string{"open", "https://example.com/"}, wantArgs: `{"action":"open","url":"https://example.com/"}`},
		{name: "close active", args: []string{"close"}, wantArgs: `{"action":"close"}`},
		{name: "snapshot", args: []string{"snapshot", "--interactive", "--depth", "3"}, wantArgs: `{"action":"snapshot","compact":false,"depth":3,"interactive":true}`},
		{name: "screenshot ref", args: []string{"screenshot", "--ref", "e12"}, wantArgs: `{"action":"screenshot","fullPage":false,"ref":"e12"}`},
		{name: "click", args: []string{"click", "e3", "--double"}, wantArgs: `{"action":"act","doubleClick":true,"kind":"click","ref":"e3"}`},
		{name: "type", args: []string{"type", "e4", "hello", "--submit"}, wantArgs: `{"action":"act","kind":"type","ref":"e4","submit":true,"text":"hello"}`},
		{name: "select", args: []string{"select", "e5", "A", "B"}, wantArgs: `{"action":"act","kind":"select","ref":"e5","values":["A","B"]}`},
		{name: "fill", args: []string{"fill", "--fields", `[{"ref":"e1","value":"Ada"}]`}, wantArgs: `{"action":"act","fields":[{"ref":"e1","value":"Ada"}],"kind":"fill"}`},
		{name: "wait", args: []string{"wait", "--text", "Done"}, wantArgs: `{"action":"act","kind":"wait","text":"Done"}`},
		{name: "dialog", args: []string{"dialog", "--dismiss"}, wantArgs: `{"accept":false,"action":"dialog"}`},
		{name: "tool refuses", args: []string{"navigate", "http://10.0.0.1/"}, toolFail: true, wantArgs: `{"action":"navigate","url":"http://10.0.0.1/"}`,
			wantErr: "navigation to http://10.0.0.1/ refused"},
		{name: "bad fields", args: []string{"fill", "--fields", "nope"}, wantErr: "--fields: want a JSON list"},
		{name: "bad resize", args: []string{"resize", "wide", "10"}, wantErr: "width and height are positive"},
		{name: "wait for nothing", args: []string{"wait"}, wantErr: "give --text"},
		{name: "dialog both", args: []string{"dialog", "--accept", "--dismiss"}, wantErr: "exactly one of --accept and --dismiss"},
		{name: "evaluate needs fn", args: []string{"evaluate"}, wantErr: "--fn is required"},
		{name: "open needs a url", args: []string{"open"}, wantErr: "accepts 1 arg"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
			var got struct {
				Name string          `json:"name"`
				Args json.RawMessage `json:"args"`
			}
			srv.Handle("tools.invoke", func(_ context.Context, call *clienttest.Call) (any, error) {
				json.Unmarshal(call.Params, &got)
				if tc.toolFail {
					return map[string]any{"ok": false, "toolName": "browser", "output": "navigation to http://10.0.0.1/ refused: private address"}, nil
				}
				return map[string]any{"ok": true, "toolName": "browser", "output": "tool said ok"}, nil
			})
			out, _, err := runCLI(t, append(append([]string{"browser"}, tc.args...), "--url", srv.URL(), "--token", testToken)...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if tc.wantArgs == "" {
				if got.Name != "" {
					t.Fatalf("a refused command reached the gateway: %s", got.Args)
				}
				return
			}
			if got.Name != "browser" || string(got.Args) != tc.wantArgs {
				t.Errorf("tools.invoke %s %s, want browser %s", got.Name, got.Args, tc.wantArgs)
			}
			if !strings.Contains(out, tc.wantOut) {
				t.Errorf("output lacks %q:\n%s", tc.wantOut, out)
			}
		})
	}
}
