package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
)

// channelsStatusPayload is channels.status as this gateway answers it.
var channelsStatusPayload = map[string]any{
	"ts": 1_700_000_000_000, "channelOrder": []any{"telegram"}, "channelLabels": map[string]any{"telegram": "Telegram"},
	"channels":                map[string]any{"telegram": map[string]any{"configured": true, "running": true}},
	"channelDefaultAccountId": map[string]any{"telegram": "default"},
	"channelAccounts": map[string]any{"telegram": []any{
		map[string]any{"accountId": "default", "enabled": true, "configured": true, "running": true, "connected": true,
			"healthState": "connected", "bot": "@ada_bot", "mode": "polling", "dmPolicy": "pairing", "lastError": nil,
			"lastInboundAt": 1_700_000_000_000 - 90_000, "lastOutboundAt": 1_700_000_000_000 - 3_000},
		map[string]any{"accountId": "work", "name": "Work bot", "enabled": true, "configured": true, "running": true,
			"healthState": "backoff", "detail": "retrying in 4s", "mode": "webhook", "dmPolicy": "allowlist",
			"lastError": "getMe: 401 Unauthorized\nbody"},
		map[string]any{"accountId": "old", "enabled": false, "configured": true, "running": false,
			"healthState": "stopped", "dmPolicy": "pairing"},
	}},
}

func TestChannelsRequests(t *testing.T) {
	read, admin := []string{"operator.read"}, []string{"operator.admin"}
	runRPCCases(t, []rpcCase{
		{name: "status", args: []string{"channels", "status"}, method: "channels.status", wantParams: `{}`,
			wantScopes: read, payload: channelsStatusPayload,
			wantOut: "CHANNEL   ACCOUNT            ENABLED  RUNNING  STATE                     BOT       MODE     DM POLICY  LAST IN  LAST OUT  LAST ERROR\n" +
				"Telegram  default (default)  yes      yes      connected                 @ada_bot  polling  pairing    1m ago   3s ago    -\n" +
				"Telegram  work               yes      yes      backoff (retrying in 4s)  -         webhook  allowlist  -        -         getMe: 401 Unauthorized body\n" +
				"Telegram  old                no       no       stopped                   -         -        pairing    -        -         -\n"},
		{name: "status probe channel", args: []string{"channels", "status", "--probe", "--channel", "telegram", "--timeout", "3000"},
			method: "channels.status", wantParams: `{"probe":true,"timeoutMs":3000}`, wantScopes: read, payload: channelsStatusPayload},
		{name: "list", args: []string{"channels", "list"}, method: "channels.status", wantParams: `{}`,
			wantScopes: read, payload: channelsStatusPayload,
			wantOut: "CHANNEL   ACCOUNT            NAME      ENABLED  DM POLICY\n" +
				"Telegram  default (default)  -         yes      pairing\n" +
				"Telegram  work               Work bot  yes      allowlist\n" +
				"Telegram  old                -         no       pairing\n"},
		{name: "list none", args: []string{"channels", "list"}, method: "channels.status", wantParams: `{}`,
			wantScopes: read, payload: map[string]any{"channelOrder": []any{}},
			wantOut: "No channels configured. Add one with `openclaw channels add --channel telegram --token-file FILE`.\n"},
		{name: "status json one channel", args: []string{"channels", "status", "--json", "--channel", "telegram"},
			method: "channels.status", wantParams: `{}`, wantScopes: read,
			payload: map[string]any{"channelOrder": []any{"telegram", "slack"},
				"channelLabels": map[string]any{"telegram": "Telegram", "slack": "Slack"}},
			wantOut: "{\n  \"channelLabels\": {\n    \"telegram\": \"Telegram\"\n  },\n  \"channelOrder\": [\n    \"telegram\"\n  ]\n}\n"},
		{name: "status json", args: []string{"channels", "status", "--json"}, method: "channels.status", wantParams: `{}`,
			wantScopes: read, payload: map[string]any{"channelOrder": []any{}}, wantOut: "{\n  \"channelOrder\": []\n}\n"},
		{name: "logout", args: []string{"channels", "logout", "--channel", "telegram", "--account", "work"},
			method: "channels.logout", wantParams: `{"accountId":"work","channel":"telegram"}`, wantScopes: admin,
			payload: map[string]any{"ok": true}, wantOut: "Logged out of telegram (account work)\n"},
		{name: "login other channel", args: []string{"channels", "login", "--channel", "signal"},
			method: "channels.start", wantParams: `{"channel":"signal"}`, wantScopes: admin,
			payload: map[string]any{"ok": true}, wantOut: "Started signal (every account)\n"},
	})
}

func TestChannelsUsage(t *testing.T) {
	runUsageCases(t, false, []usageCase{
		{"no subcommand", []string{"channels"}, "missing subcommand (one of add, list, login, logout, remove, status)"},
		{"unknown subcommand", []string{"channels", "resolve"}, `openclaw channels has no command "resolve"`},
		{"status positional", []string{"channels", "status", "telegram"}, `unexpected argument "telegram"`},
		{"logout without channel", []string{"channels", "logout"}, "--channel is required"},
		{"login without channel", []string{"channels", "login"}, "--channel is required"},
	})
	runUsageCases(t, true, []usageCase{
		{"add without channel", []string{"channels", "add"}, "--channel is required (one of telegram)"},
		{"add unknown channel", []string{"channels", "add", "--channel", "irc"}, `channel "irc" cannot be configured here`},
		{"add both token sources", []string{"channels", "add", "--channel", "telegram", "--token", "x", "--token-file", "f"}, "exclusive"},
		{"add bad account", []string{"channels", "add", "--channel", "telegram", "--account", "a.b"}, `account id "a.b"`},
		{"remove without channel", []string{"channels", "remove"}, "--channel is required"},
	})
}

// TestChannelsStatusUnknownChannel checks the --channel filter.
func TestChannelsStatusUnknownChannel(t *testing.T) {
	isolate(t)
	srv := newFake(t, "channels.status", channelsStatusPayload)
	_, stderr, err := runCLI(t, "channels", "status", "--channel", "discord", "--url", srv.URL(), "--token", testToken)
	if err == nil || !strings.Contains(stderr, `channel "discord" is not configured`) {
		t.Errorf("err %v stderr %q", err, stderr)
	}
}

func TestChannelsLoginTelegram(t *testing.T) {
	isolate(t)
	srv := newFake(t, "channels.start", map[string]any{"ok": true})
	stdout, _, err := runCLI(t, "channels", "login", "--channel", "telegram", "--url", srv.URL(), "--token", testToken)
	if err != nil || !strings.Contains(stdout, "Telegram needs no login") || !strings.Contains(stdout, "channels add") {
		t.Errorf("stdout %q err %v", stdout, err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

const channelsConfig = `// my gateway
{
  gateway: { port: 18800 }, // by hand
  /* the bots */
  channels: {
    telegram: {
      dmPolicy: 'pairing', // strangers get a code
      tokenFile: '/old/token',
    },
  },
}
`

// TestChannelsAddRemove walks a config file through add and remove,
// checking comments survive and the token is never printed.
func TestChannelsAddRemove(t *testing.T) {
	const secret = "123456:AAH-secret-bot-token"
	home := isolate(t)
	path := filepath.Join(home, ".openclaw", "openclaw.json")
	writeConfig(t, path, channelsConfig)
	comments := []string{"// my gateway", "// by hand", "/* the bots */", "// strangers get a code"}

	steps := []struct {
		name       string
		args       []string
		stdin      string
		wantOut    []string // substrings of stdout
		wantErr    string   // substring of stderr; the run must fail
		fileHas    []string
		fileHasNot []string
	}{
		{name: "token replaces token file", args: []string{"channels", "add", "--channel", "telegram", "--token", secret, "--name", "Ada"},
			wantOut: []string{"Set channels.telegram.botToken, channels.telegram.name in " + path,
				"Removed channels.telegram.tokenFile", "hot reload"},
			fileHas: append([]string{secret, `"Ada"`, "dmPolicy: 'pairing'"}, comments...), fileHasNot: []string{"/old/token"}},
		{name: "named account from a file", args: []string{"channels", "add", "--channel", "telegram", "--account", "work", "--token-file", "/etc/work-token"},
			wantOut: []string{"Set channels.telegram.accounts.work.tokenFile in " + path},
			fileHas: append([]string{secret, "accounts", "/etc/work-token"}, comments...)},
		{name: "token from stdin", args: []string{"channels", "add", "--channel", "telegram", "--account", "home", "--token", "-"},
			stdin: "999:from-stdin\n", wantOut: []string{"Set channels.telegram.accounts.home.botToken"},
			fileHas: []string{"999:from-stdin"}},
		{name: "bare account block", args: []string{"channels", "add", "--channel", "telegram", "--account", "spare"},
			wantOut: []string{"Set channels.telegram.accounts.spare in"}, fileHas: []string{"spare"}},
		{name: "add again changes nothing", args: []string{"channels", "add", "--channel", "telegram", "--account", "spare"},
			wantOut: []string{"already configured"}},
		{name: "remove account", args: []string{"channels", "remove", "--channel", "telegram", "--account", "work"},
			wantOut: []string{"Removed channels.telegram.accounts.work from " + path},
			fileHas: append([]string{secret, "999:from-stdin"}, comments...), fileHasNot: []string{"/etc/work-token"}},
		{name: "remove the other accounts", args: []string{"channels", "remove", "--channel", "telegram", "--account", "home"}},
		{name: "remove the last account", args: []string{"channels", "remove", "--channel", "telegram", "--account", "spare"},
			wantOut: []string{"Removed channels.telegram.accounts.spare from"}, fileHas: []string{secret}, fileHasNot: []string{"accounts"}},
		{name: "remove missing account", args: []string{"channels", "remove", "--channel", "telegram", "--account", "work"},
			wantErr: "channels.telegram.accounts.work is not in the config file"},
		{name: "remove default account", args: []string{"channels", "remove", "--channel", "telegram", "--account", "default"},
			wantErr: "remove the channel without --account"},
		{name: "remove channel", args: []string{"channels", "remove", "--channel", "telegram"},
			wantOut: []string{"Removed channels.telegram from " + path},
			fileHas: []string{"// my gateway", "// by hand", "port: 18800"}, fileHasNot: []string{secret, "telegram"}},
		{name: "remove again", args: []string{"channels", "remove", "--channel", "telegram"},
			wantErr: "channels.telegram is not in the config file"},
	}
	for _, st := range steps {
		var stdout, stderr string
		var err error
		if st.stdin != "" {
			stdout, stderr, err = runCLIStdin(t, st.stdin, st.args...)
		} else {
			stdout, stderr, err = runCLI(t, st.args...)
		}
		if st.wantErr != "" {
			if err == nil || !strings.Contains(stderr, st.wantErr) {
				t.Errorf("%s: err %v stderr %q, want %q", st.name, err, stderr, st.wantErr)
			}
		} else if err != nil {
			t.Fatalf("%s: %v\n%s", st.name, err, stderr)
		}
		for _, s := range st.wantOut {
			if !strings.Contains(stdout, s) {
				t.Errorf("%s: stdout %q lacks %q", st.name, stdout, s)
			}
		}
		if strings.Contains(stdout+stderr, "secret-bot-token") || strings.Contains(stdout+stderr, "from-stdin") {
			t.Errorf("%s: output shows the token:\n%s%s", st.name, stdout, stderr)
		}
		data, _ := os.ReadFile(path)
		for _, s := range st.fileHas {
			if !strings.Contains(string(data), s) {
				t.Errorf("%s: file lacks %q:\n%s", st.name, s, data)
			}
		}
		for _, s := range st.fileHasNot {
			if strings.Contains(string(data), s) {
				t.Errorf("%s: file still has %q:\n%s", st.name, s, data)
			}
		}
	}
}

func TestChannelsAddNewFileJSON(t *testing.T) {
	home := isolate(t)
	stdout, stderr, err := runCLI(t, "channels", "add", "--channel", "telegram", "--token", "1:tok", "--json")
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	var res struct {
		OK      bool
		Path    string
		Set     []string
		Removed []string
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || !res.OK ||
		strings.Join(res.Set, ",") != "channels.telegram.botToken" || len(res.Removed) != 0 {
		t.Errorf("stdout %q (%v)", stdout, err)
	}
	if strings.Contains(stdout, "1:tok") {
		t.Error("--json output shows the token")
	}
	path := filepath.Join(home, ".openclaw", "openclaw.json")
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 || res.Path != path {
		t.Errorf("config file %s: %v %v", res.Path, fi, err)
	}
}

// TestChannelsLoginLinksWhatsApp: login starts the account, prints each
// QR code as it changes and stops when the phone has linked.
func TestChannelsLoginLinksWhatsApp(t *testing.T) {
	isolate(t)
	srv := clienttest.NewServer(t, clienttest.Config{Token: testToken})
	srv.Reply("channels.start", map[string]any{"ok": true})
	srv.Reply("web.login.start", map[string]any{"qr": "2@first-code", "connected": false})
	waits := 0
	srv.Handle("web.login.wait", func(ctx context.Context, c *clienttest.Call) (any, error) {
		waits++
		if waits == 1 {
			return map[string]any{"qr": "2@second-code"}, nil
		}
		return map[string]any{"connected": true}, nil
	})
	stdout, stderr, err := runCLI(t, "channels", "login", "--channel", "whatsapp", "--url", srv.URL(), "--token", testToken)
	if err != nil {
		t.Fatalf("run: %v\nstderr: %s", err, stderr)
	}
	if n := strings.Count(stdout, "Scan this code"); n != 2 || !strings.Contains(stdout, "Linked whatsapp") || !strings.ContainsRune(stdout, '█') {
		t.Errorf("output:\n%s", stdout)
	}
	var methods []string
	for _, r := range srv.Requests() {
		methods = append(methods, r.Method)
	}
	if got := strings.Join(methods, " "); got != "channels.start web.login.start web.login.wait web.login.wait" {
		t.Errorf("calls %s", got)
	}
}

func TestAgo(t *testing.T) {
	ms := func(v int64) *int64 { return &v }
	const now = 1_700_000_000_000
	tests := []struct {
		at   *int64
		want string
	}{
		{nil, "-"},
		{ms(0), "-"},
		{ms(now), "0s ago"},
		{ms(now + 5_000), "0s ago"}, // a clock a little ahead is not the future
		{ms(now - 59_999), "59s ago"},
		{ms(now - 60*60_000), "1h ago"},
		{ms(now - 47*60*60_000), "47h ago"},
		{ms(now - 3*24*60*60_000), "3d ago"},
	}
	for _, tc := range tests {
		if got := ago(now, tc.at); got != tc.want {
			t.Errorf("ago(%v) = %q, want %q", tc.at, got, tc.want)
		}
	}
}
