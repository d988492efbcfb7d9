package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscale/hujson"

	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
	"github.com/openclaw-go/openclaw/gateway/config"
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
		{"add without channel", []string{"channels", "add"}, "--channel is required (one of telegram, discord, slack, whatsapp)"},
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

// withInteractiveStdin makes the CLI treat stdin as a person at a
// terminal, so guided setup asks its questions of a plain reader.
func withInteractiveStdin(t *testing.T) {
	t.Helper()
	old := interactiveStdin
	interactiveStdin = func(io.Reader) bool { return true }
	t.Cleanup(func() { interactiveStdin = old })
}

// loadConfigWith loads the config at path as the gateway would, with env
// as its whole environment.
func loadConfigWith(t *testing.T, path string, env map[string]string) *config.Snapshot {
	t.Helper()
	snap, err := config.Load(path, config.LoadOptions{Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	return snap
}

// TestChannelsAddNetworks adds an account of each network with its own
// flags and checks what the gateway reads back, not only the text: a
// "${VAR}" token stays a reference to the environment, and a literal
// token holding "${", a quote or a newline arrives exactly as typed.
func TestChannelsAddNetworks(t *testing.T) {
	env := map[string]string{"TG_TOKEN": "from-env", "HOME": "/home/someone", "SLACK_BOT_TOKEN": "xoxb-env"}
	tests := []struct {
		name    string
		args    []string
		wantSet string
		check   func(c *config.Config) (got, want string)
	}{
		{"telegram env reference", []string{"--channel", "telegram", "--token", "${TG_TOKEN}"}, "channels.telegram.botToken",
			func(c *config.Config) (string, string) { return c.Channels.Telegram.BotToken.Value, "from-env" }},
		{"telegram literal dollar", []string{"telegram", "--token", "12:ab${HOME}c$${X}d$"}, "channels.telegram.botToken",
			func(c *config.Config) (string, string) {
				return c.Channels.Telegram.BotToken.Value, "12:ab${HOME}c$${X}d$"
			}},
		{"telegram quote and newline", []string{"--channel", "telegram", "--token", "1:a\"b\nc\\d\u2028e */ //"}, "channels.telegram.botToken",
			func(c *config.Config) (string, string) {
				return c.Channels.Telegram.BotToken.Value, "1:a\"b\nc\\d\u2028e */ //"
			}},
		{"discord named account", []string{"--channel", "discord", "--account", "work", "--token", "dis.cord.tok", "--name", "Work"}, "channels.discord.accounts.work.token, channels.discord.accounts.work.name",
			func(c *config.Config) (string, string) {
				return c.Channels.Discord.Accounts["work"].Token.Value + "|" + c.Channels.Discord.Accounts["work"].Name, "dis.cord.tok|Work"
			}},
		{"slack socket", []string{"--channel", "slack", "--bot-token", "xoxb-1", "--app-token", "xapp-1"}, "channels.slack.botToken, channels.slack.appToken",
			func(c *config.Config) (string, string) {
				return c.Channels.Slack.BotToken.Value + "|" + c.Channels.Slack.AppToken.Value, "xoxb-1|xapp-1"
			}},
		{"slack http", []string{"--channel", "slack", "--bot-token", "${SLACK_BOT_TOKEN}", "--signing-secret", "s$ig", "--mode", "http"}, "channels.slack.botToken, channels.slack.signingSecret, channels.slack.mode",
			func(c *config.Config) (string, string) {
				return c.Channels.Slack.BotToken.Value + "|" + c.Channels.Slack.SigningSecret.Value + "|" + c.Channels.Slack.Mode, "xoxb-env|s$ig|http"
			}},
		{"whatsapp", []string{"--channel", "whatsapp"}, "channels.whatsapp",
			func(c *config.Config) (string, string) { return "", "" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := isolate(t)
			path := filepath.Join(home, ".openclaw", "openclaw.json")
			stdout, stderr, err := runCLI(t, append([]string{"channels", "add"}, tc.args...)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			if !strings.Contains(stdout, "Set "+tc.wantSet+" in ") {
				t.Errorf("stdout %q, want Set %s", stdout, tc.wantSet)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// The file is one JSON value: nothing typed broke out of its string.
			if _, err := hujson.Parse(data); err != nil {
				t.Fatalf("config does not parse: %v\n%s", err, data)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
			for _, secret := range []string{"xoxb-1", "xapp-1", "dis.cord.tok", "12:ab", "s$ig"} {
				if strings.Contains(stdout+stderr, secret) {
					t.Errorf("output shows a token: %s%s", stdout, stderr)
				}
			}
			snap := loadConfigWith(t, path, env)
			if got, want := tc.check(snap.Config); want != "" && got != want {
				t.Errorf("gateway reads %q, want %q\nfile:\n%s", got, want, data)
			}
			if _, ok := snap.Tree["channels"].(map[string]any)["whatsapp"]; tc.name == "whatsapp" && (!ok || !strings.Contains(stdout, "channels login --channel whatsapp")) {
				t.Errorf("whatsapp: stdout %q, block written %v", stdout, ok)
			}
		})
	}
}

func TestConfigSecret(t *testing.T) {
	for in, want := range map[string]string{
		"${TOKEN}":      "${TOKEN}",
		"${lower}":      "${lower}",
		"a${TOKEN}":     "a$${TOKEN}",
		"$${TOKEN}":     "$$${TOKEN}",
		"${A}${B}":      "$${A}$${B}",
		"plain$dollar":  "plain$dollar",
		"${NOT CLOSED":  "${NOT CLOSED",
		"${A}x":         "$${A}x",
		"12:AAH-abc_d9": "12:AAH-abc_d9",
	} {
		if got := configSecret(in); got != want {
			t.Errorf("configSecret(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestChannelsAddRefusals(t *testing.T) {
	runUsageCases(t, true, []usageCase{
		{"telegram with slack flag", []string{"channels", "add", "--channel", "telegram", "--bot-token", "x"}, "--bot-token is not a telegram flag (telegram takes --token, --token-file, --use-env)"},
		{"slack with token", []string{"channels", "add", "--channel", "slack", "--token", "x"}, "--token is not a slack flag"},
		{"whatsapp token", []string{"channels", "add", "--channel", "whatsapp", "--token", "x"}, "--token is not a whatsapp flag (whatsapp takes no credential flags)"},
		{"whatsapp auth dir", []string{"channels", "add", "--channel", "whatsapp", "--auth-dir", "/x"}, "--auth-dir: the WhatsApp device is kept in the gateway's database"},
		{"slack user token", []string{"channels", "add", "--channel", "slack", "--user-token", "xoxp"}, "--user-token: Slack user tokens are not used"},
		{"slack bad mode", []string{"channels", "add", "--channel", "slack", "--mode", "relay"}, `--mode "relay": Slack mode is socket or http`},
		{"positional and flag differ", []string{"channels", "add", "slack", "--channel", "discord"}, `channel "slack" and --channel "discord" differ`},
		{"use env unset", []string{"channels", "add", "--channel", "discord", "--use-env"}, "--use-env: DISCORD_BOT_TOKEN not set"},
		{"use env named account", []string{"channels", "add", "--channel", "telegram", "--use-env", "--account", "work"}, "--token '${WORK_TELEGRAM_BOT_TOKEN}'"},
		{"empty token", []string{"channels", "add", "--channel", "discord", "--token", ""}, "--token is empty"},
	})
}

// TestChannelsAddGuided drives guided setup through stdin: the network
// picked by number, tokens read, the name asked; a closed stdin fails
// instead of writing half an account.
func TestChannelsAddGuided(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		stdin   string
		wantErr string
		check   func(c *config.Config) string
		want    string
	}{
		{"pick telegram", nil, "1\n123:guided\nHome bot\n", "",
			func(c *config.Config) string {
				return c.Channels.Telegram.BotToken.Value + "|" + c.Channels.Telegram.Name
			}, "123:guided|Home bot"},
		{"slack socket by name", []string{"slack"}, "\nxoxb-g\nxapp-g\n\n", "",
			func(c *config.Config) string {
				return c.Channels.Slack.BotToken.Value + "|" + c.Channels.Slack.AppToken.Value + "|" + c.Channels.Slack.Mode
			},
			"xoxb-g|xapp-g|socket"},
		{"slack http", []string{"--channel", "slack"}, "2\nxoxb-h\nsec\n\n", "",
			func(c *config.Config) string {
				return c.Channels.Slack.BotToken.Value + "|" + c.Channels.Slack.SigningSecret.Value + "|" + c.Channels.Slack.Mode
			}, "xoxb-h|sec|http"},
		{"bad choice asked again", nil, "9\ndiscord\ndtok\n\n", "",
			func(c *config.Config) string { return c.Channels.Discord.Token.Value }, "dtok"},
		{"named account needs a token", []string{"--channel", "discord", "--account", "work"}, "\n", "no value given", nil, ""},
		{"stdin ends", []string{"--channel", "telegram"}, "", "input ended", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := isolate(t)
			withInteractiveStdin(t)
			path := filepath.Join(home, ".openclaw", "openclaw.json")
			stdout, stderr, err := runCLIStdin(t, tc.stdin, append([]string{"channels", "add"}, tc.args...)...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(stderr, tc.wantErr) {
					t.Fatalf("err %v stderr %q, want %q", err, stderr, tc.wantErr)
				}
				if _, err := os.Stat(path); err == nil {
					t.Error("a failed guided add wrote the config")
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			for _, s := range []string{"guided", "xoxb-g", "xoxb-h", "xapp-g", "dtok"} {
				if strings.Contains(stdout+stderr, s) {
					t.Errorf("output shows a token (%s):\n%s%s", s, stdout, stderr)
				}
			}
			if got := tc.check(loadConfigWith(t, path, nil).Config); got != tc.want {
				t.Errorf("got %q, want %q\nprompts:\n%s", got, tc.want, stderr)
			}
		})
	}
}
