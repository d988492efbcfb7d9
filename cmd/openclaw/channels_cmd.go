package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	qrcode "github.com/skip2/go-qrcode"
	flag "github.com/spf13/pflag"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// channelsSubcommands are `openclaw channels ...`. list and status ask
// the gateway; add and remove edit the local config file, which a running
// gateway reloads on its own; login and logout start and stop accounts.
var channelsSubcommands = map[string]func(ctx context.Context, a *app, args []string) error{
	"list":   runChannelsStatus(false),
	"status": runChannelsStatus(true),
	"add":    runChannelsAdd,
	"remove": runChannelsRemove,
	"login":  runChannelsLogin,
	"logout": runChannelsLogout,
}

// runChannels serves `openclaw channels list|status|add|remove|login|logout`.
func runChannels(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("channels", args, channelsSubcommands)
	if err != nil {
		return err
	}
	a.cmd = "channels " + args[0]
	return sub(ctx, a, rest)
}

var (
	readScope  = []string{string(protocol.ScopeRead)}
	adminScope = []string{string(protocol.ScopeAdmin)}
)

// runChannelsStatus serves list (the configured accounts) and status (the
// same with their running state).
func runChannelsStatus(detailed bool) func(context.Context, *app, []string) error {
	verb := map[bool]string{false: "list", true: "status"}[detailed]
	return func(ctx context.Context, a *app, args []string) error {
		fs := newFlagSet(a, "openclaw channels "+verb+" [--channel NAME] [--probe] [gateway flags]")
		g := fs.gatewayFlags()
		channel := fs.String("channel", "", "only this `channel` (e.g. telegram)")
		probe := fs.Bool("probe", false, "ask the gateway to check each account now")
		if _, err := fs.parse(args, 0, 0); err != nil {
			return err
		}
		// The channel filter is applied here: the real gateway's
		// channels.status takes no channel.
		params := map[string]any{}
		if *probe {
			params["probe"] = true
			params["timeoutMs"] = g.timeoutMs
		}
		var out json.RawMessage
		if err := a.callOnce(ctx, g, "channels.status", readScope, params, &out, false); err != nil {
			return err
		}
		if g.json {
			if *channel != "" {
				filtered, err := onlyChannel(out, *channel)
				if err != nil {
					return err
				}
				return writeJSON(a.stdout, filtered)
			}
			return writeJSON(a.stdout, out)
		}
		return formatChannels(a.stdout, out, *channel, detailed)
	}
}

// onlyChannel keeps one channel in the per-channel maps and the order of
// a channels.status answer; other fields pass through.
func onlyChannel(raw json.RawMessage, channel string) (map[string]any, error) {
	var st map[string]any
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("decode channel status: %w", err)
	}
	order, _ := st["channelOrder"].([]any)
	found := false
	for _, ch := range order {
		found = found || ch == channel
	}
	if !found {
		return nil, fmt.Errorf("channel %q is not configured (run `openclaw channels add --channel %s`)", channel, channel)
	}
	st["channelOrder"] = []any{channel}
	for _, k := range []string{"channels", "channelLabels", "channelAccounts", "channelDefaultAccountId"} {
		if m, ok := st[k].(map[string]any); ok {
			for id := range m {
				if id != channel {
					delete(m, id)
				}
			}
		}
	}
	return st, nil
}

// channelAccount is one account of channels.status.
type channelAccount struct {
	AccountID   string  `json:"accountId"`
	Name        string  `json:"name"`
	Enabled     *bool   `json:"enabled"`
	Configured  *bool   `json:"configured"`
	Running     *bool   `json:"running"`
	Connected   *bool   `json:"connected"`
	HealthState string  `json:"healthState"`
	Bot         any     `json:"bot"` // this gateway: "@name"; others may send an object
	Mode        string  `json:"mode"`
	DMPolicy    string  `json:"dmPolicy"`
	LastError   *string `json:"lastError"`
	Detail      string  `json:"detail"`
	// When it last stored an inbound message and delivered one (ms).
	LastInboundAt  *int64 `json:"lastInboundAt"`
	LastOutboundAt *int64 `json:"lastOutboundAt"`
}

// botName reads the bot's username from a string or {username}.
func (c channelAccount) botName() string {
	switch b := c.Bot.(type) {
	case string:
		return b
	case map[string]any:
		if u, _ := b["username"].(string); u != "" {
			return "@" + strings.TrimPrefix(u, "@")
		}
	}
	return ""
}

// formatChannels prints channels.status: for list, each configured
// account; for status, with its state.
func formatChannels(w io.Writer, raw json.RawMessage, only string, detailed bool) error {
	var s struct {
		TS              int64                       `json:"ts"`
		ChannelOrder    []string                    `json:"channelOrder"`
		ChannelLabels   map[string]string           `json:"channelLabels"`
		ChannelAccounts map[string][]channelAccount `json:"channelAccounts"`
		DefaultAccount  map[string]string           `json:"channelDefaultAccountId"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("decode channel status: %w", err)
	}
	order := s.ChannelOrder
	if len(order) == 0 {
		order = sortedKeys(s.ChannelAccounts)
	}
	if only != "" {
		found := false
		for _, ch := range order {
			found = found || ch == only
		}
		if !found {
			return fmt.Errorf("channel %q is not configured (run `openclaw channels add --channel %s`)", only, only)
		}
		order = []string{only}
	}
	if len(order) == 0 {
		fmt.Fprintln(w, "No channels configured. Add one with `openclaw channels add --channel telegram --token-file FILE`.")
		return nil
	}
	yesNo := func(b *bool) string {
		if b == nil {
			return "-"
		}
		return map[bool]string{true: "yes", false: "no"}[*b]
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if detailed {
		fmt.Fprintln(tw, "CHANNEL\tACCOUNT\tENABLED\tRUNNING\tSTATE\tBOT\tMODE\tDM POLICY\tLAST IN\tLAST OUT\tLAST ERROR")
	} else {
		fmt.Fprintln(tw, "CHANNEL\tACCOUNT\tNAME\tENABLED\tDM POLICY")
	}
	for _, ch := range order {
		label := cmp.Or(s.ChannelLabels[ch], ch)
		accounts := s.ChannelAccounts[ch]
		if len(accounts) == 0 {
			accounts = []channelAccount{{}}
		}
		for _, acc := range accounts {
			id := acc.AccountID
			if id != "" && id == s.DefaultAccount[ch] && len(s.ChannelAccounts[ch]) > 1 {
				id += " (default)"
			}
			if !detailed {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", label, orDash(id), orDash(acc.Name), yesNo(acc.Enabled), orDash(acc.DMPolicy))
				continue
			}
			lastErr := ""
			if acc.LastError != nil {
				lastErr = *acc.LastError
			}
			state := acc.HealthState
			if acc.Detail != "" && state != "connected" {
				state += " (" + acc.Detail + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", label, orDash(id), yesNo(acc.Enabled),
				yesNo(acc.Running), orDash(state), orDash(acc.botName()), orDash(acc.Mode), orDash(acc.DMPolicy),
				ago(s.TS, acc.LastInboundAt), ago(s.TS, acc.LastOutboundAt), orDash(oneLine(lastErr)))
		}
	}
	return tw.Flush()
}

// ago says how long before now (the gateway's clock, ms) at was, "-"
// for never: a channel that runs but has not received for hours shows.
func ago(now int64, at *int64) string {
	if at == nil || *at <= 0 || now <= 0 {
		return "-"
	}
	d := time.Duration(max(now-*at, 0)) * time.Millisecond
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// oneLine keeps a table cell on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// channelCred is one credential of a channel that add writes.
type channelCred struct {
	flag  string // its flag, e.g. "bot-token"
	key   string // its key in the account block, e.g. "botToken"
	label string // the question guided setup asks
	env   string // the variable the default account falls back to
	ask   bool   // guided setup asks for it
}

// channelSpec is what add knows of one network.
type channelSpec struct {
	label string
	creds []channelCred
	// flags are the network's own other flags, besides its credentials.
	flags []string
	// next is what to do after adding, printed once it is written.
	next string
}

// channelSpecs are the networks whose config add and remove write.
var channelSpecs = map[string]channelSpec{
	"telegram": {label: "Telegram", flags: []string{"token-file", "use-env"}, creds: []channelCred{
		{flag: "token", key: "botToken", label: "Telegram bot token (from @BotFather)", env: "TELEGRAM_BOT_TOKEN", ask: true},
	}},
	"discord": {label: "Discord", flags: []string{"use-env"}, creds: []channelCred{
		{flag: "token", key: "token", label: "Discord bot token (Developer Portal, Bot page)", env: "DISCORD_BOT_TOKEN", ask: true},
	}},
	"slack": {label: "Slack", flags: []string{"use-env", "mode"}, creds: []channelCred{
		{flag: "bot-token", key: "botToken", label: "Slack bot token (xoxb-...)", env: "SLACK_BOT_TOKEN", ask: true},
		{flag: "app-token", key: "appToken", label: "Slack app-level token for Socket Mode (xapp-...)", env: "SLACK_APP_TOKEN", ask: true},
		{flag: "signing-secret", key: "signingSecret", label: "Slack signing secret (HTTP Events mode)"},
	}},
	"whatsapp": {label: "WhatsApp", next: "Link the phone with `openclaw channels login --channel whatsapp` once the gateway runs."},
}

// editableChannels are the channels whose config add and remove write.
var editableChannels = []string{"telegram", "discord", "slack", "whatsapp"}

// refusedAddFlags are the real CLI's add flags that name something this
// gateway does not have; they are refused rather than ignored.
var refusedAddFlags = map[string]string{
	"agent":      "channel setup has no agent owner here; route accounts with bindings in the config",
	"user-token": "Slack user tokens are not used by this gateway (it acts as the bot)",
	"identity":   "Slack identities other than the bot are not supported here",
	"auth-dir":   "the WhatsApp device is kept in the gateway's database, not an auth folder",
}

// accountIDPattern is what add and remove accept as an account id, so it
// can be a key path step without quoting.
var accountIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`) })

// channelBlock is the config key of a channel account's settings: the
// channel block for the default account (when it has no accounts entry of
// its own), else channels.<ch>.accounts.<id>.
func channelBlock(tree map[string]any, channel, account string) string {
	base := "channels." + channel
	if account == "" {
		return base
	}
	if _, named := lookupPath(tree, []string{"channels", channel, "accounts", account}); named || account != "default" {
		return base + ".accounts." + account
	}
	return base
}

// channelEditArgs checks --channel and --account of add and remove.
func channelEditArgs(channel, account string) error {
	if channel == "" {
		return usageErrorf("--channel is required (one of %s)", strings.Join(editableChannels, ", "))
	}
	if _, ok := channelSpecs[channel]; !ok {
		return usageErrorf("channel %q cannot be configured here (one of %s)", channel, strings.Join(editableChannels, ", "))
	}
	if account != "" && !accountIDPattern().MatchString(account) {
		return usageErrorf("account id %q must be letters, digits, '-' and '_'", account)
	}
	return nil
}

// configSecret is how a credential typed by a user is written into the
// config, whose loader expands ${VAR} in every string: a value that is
// exactly one reference, "${TELEGRAM_BOT_TOKEN}", stays one (the secret
// lives in the environment); in any other value each ${NAME} is escaped
// as $${NAME}, so a literal token that happens to hold "${" reaches the
// gateway as typed instead of being replaced by an environment variable.
func configSecret(v string) string {
	if name, n := wholeEnvRef(v); n > 0 && name != "" {
		return v
	}
	return escapeEnvRefs(v)
}

// wholeEnvRef returns the variable when v is exactly "${NAME}".
func wholeEnvRef(v string) (string, int) {
	if !strings.HasPrefix(v, "${") || !strings.HasSuffix(v, "}") {
		return "", 0
	}
	name := v[2 : len(v)-1]
	if !envNamePattern().MatchString(name) {
		return "", 0
	}
	return name, len(v)
}

// envNamePattern is the config loader's variable name: upper case
// letters, digits and _, not starting with a digit.
var envNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`) })

// envRefPattern finds the ${NAME} references the loader would expand.
var envRefPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{[A-Z_][A-Z0-9_]*\}`) })

// escapeEnvRefs puts one more $ before every ${NAME}: the loader turns
// $${NAME} into the literal ${NAME}, and a $ before that stays a $.
func escapeEnvRefs(v string) string {
	return envRefPattern().ReplaceAllStringFunc(v, func(ref string) string { return "$" + ref })
}

// channelAddInput is what add was asked to write.
type channelAddInput struct {
	channel, account, name, mode string
	creds                        map[string]string // config key → value as typed
	tokenFile                    string
	useEnv                       bool
}

func runChannelsAdd(_ context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw channels add [CHANNEL] --channel telegram|discord|slack|whatsapp [--account ID] [--name NAME] [credential flags]")
	f := fs.configFlags()
	channel := fs.String("channel", "", "`channel` to configure: telegram, discord, slack or whatsapp")
	account := fs.String("account", "", "account `id` (default: the channel's default account)")
	name := fs.String("name", "", "display `name` of the account")
	flagVals := map[string]*string{}
	for _, fl := range []struct{ name, usage string }{
		{"token", "Telegram or Discord bot `token`; - reads it from stdin; \"${VAR}\" keeps it in the environment"},
		{"bot-token", "Slack bot `token` (xoxb-...)"},
		{"app-token", "Slack app-level `token` for Socket Mode (xapp-...)"},
		{"signing-secret", "Slack signing `secret` (HTTP Events mode)"},
		{"token-file", "Telegram: `file` holding the bot token"},
		{"mode", "Slack connection `mode`: socket or http"},
		{"user-token", "Slack user token (not supported here)"},
		{"identity", "Slack identity (not supported here)"},
		{"auth-dir", "WhatsApp auth folder (not used here)"},
		{"agent", "agent owner (not used here)"},
	} {
		flagVals[fl.name] = fs.String(fl.name, "", fl.usage)
	}
	useEnv := fs.Bool("use-env", false, "use the channel's environment variables (TELEGRAM_BOT_TOKEN, DISCORD_BOT_TOKEN, SLACK_BOT_TOKEN and SLACK_APP_TOKEN)")
	pos, err := fs.parse(args, 0, 1)
	if err != nil {
		return err
	}
	if len(pos) == 1 {
		if *channel != "" && *channel != pos[0] {
			return usageErrorf("channel %q and --channel %q differ", pos[0], *channel)
		}
		*channel = pos[0]
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	for fl, why := range refusedAddFlags {
		if set[fl] {
			return usageErrorf("--%s: %s", fl, why)
		}
	}
	in := channelAddInput{channel: *channel, account: *account, name: *name, mode: *flagVals["mode"],
		tokenFile: *flagVals["token-file"], useEnv: *useEnv, creds: map[string]string{}}
	credFlags := false
	for _, fl := range []string{"token", "bot-token", "app-token", "signing-secret", "token-file"} {
		credFlags = credFlags || set[fl]
	}
	guided := !credFlags && !*useEnv && !f.json && interactiveStdin(a.stdin)
	var p *prompter
	if guided {
		p = newPrompter(a)
		if in.channel == "" {
			opts := make([]choice, 0, len(editableChannels))
			for _, id := range editableChannels {
				opts = append(opts, choice{id, channelSpecs[id].label})
			}
			if in.channel, err = p.choose("Which chat network?", opts, "telegram"); err != nil {
				return err
			}
		}
	}
	if err := channelEditArgs(in.channel, in.account); err != nil {
		return err
	}
	spec := channelSpecs[in.channel]
	own := map[string]bool{}
	for _, c := range spec.creds {
		own[c.flag] = true
	}
	for _, fl := range spec.flags {
		own[fl] = true
	}
	for _, fl := range []string{"token", "bot-token", "app-token", "signing-secret", "token-file", "mode", "use-env"} {
		if set[fl] && !own[fl] {
			return usageErrorf("--%s is not a %s flag (%s takes %s)", fl, in.channel, in.channel, channelFlagList(spec))
		}
	}
	if in.mode != "" && in.mode != "socket" && in.mode != "http" {
		return usageErrorf("--mode %q: Slack mode is socket or http", in.mode)
	}
	if set["token"] && in.tokenFile != "" {
		return usageErrorf("--token and --token-file are exclusive")
	}
	if in.useEnv && (credFlags) {
		return usageErrorf("--use-env and credential flags are exclusive")
	}
	fromStdin := ""
	for _, c := range spec.creds {
		v, given := *flagVals[c.flag], set[c.flag]
		if !given {
			continue
		}
		if v == "-" {
			if fromStdin != "" {
				return usageErrorf("only one of --%s and --%s can read stdin", fromStdin, c.flag)
			}
			fromStdin = c.flag
			line, err := bufio.NewReader(a.stdin).ReadString('\n')
			if err != nil && !errors.Is(err, io.EOF) {
				return fmt.Errorf("read --%s from stdin: %w", c.flag, err)
			}
			if v = strings.TrimSpace(line); v == "" {
				return usageErrorf("--%s -: stdin held no value", c.flag)
			}
		}
		if v == "" {
			return usageErrorf("--%s is empty", c.flag)
		}
		in.creds[c.key] = v
	}
	if in.useEnv {
		if in.account != "" && in.account != "default" {
			return usageErrorf("--use-env is for the default account, which reads the environment; for account %q pass its own variable, e.g. --%s '${%s_%s}'",
				in.account, spec.creds[0].flag, strings.ToUpper(strings.ReplaceAll(in.account, "-", "_")), spec.creds[0].env)
		}
		var missing []string
		for _, c := range spec.creds {
			if c.env != "" && c.ask && os.Getenv(c.env) == "" {
				missing = append(missing, c.env)
			}
		}
		if len(spec.creds) == 0 {
			return usageErrorf("--use-env: %s takes no credentials", in.channel)
		}
		if len(missing) > 0 {
			return usageErrorf("--use-env: %s not set in this environment", strings.Join(missing, ", "))
		}
	}
	if guided {
		if err := askChannelCreds(p, spec, &in); err != nil {
			return err
		}
	}
	if in.tokenFile != "" && !strings.HasPrefix(in.tokenFile, "~") {
		// The gateway runs elsewhere than this shell's directory.
		abs, err := filepath.Abs(in.tokenFile)
		if err != nil {
			return fmt.Errorf("token file: %w", err)
		}
		in.tokenFile = abs
		if _, err := os.Stat(in.tokenFile); err != nil {
			fmt.Fprintf(a.stderr, "warning: the gateway will not be able to read %s: %v\n", in.tokenFile, err)
		}
	}
	var block string
	var changed, removed []string
	path, err := editConfig(a, f.dev, "channels."+in.channel, func(src []byte) ([]byte, error) {
		var out []byte
		var err error
		out, block, changed, removed, err = applyChannelAdd(src, spec, in)
		return out, err
	})
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(a.stdout, map[string]any{"ok": true, "path": path, "channel": in.channel,
			"accountId": in.account, "set": nonEmpty(changed), "removed": nonEmpty(removed)})
	}
	// Keys only: the token itself is never printed.
	switch {
	case len(changed) == 0 && len(removed) == 0:
		fmt.Fprintf(a.stdout, "%s is already configured in %s; nothing to change.\n", block, path)
		return nil
	case len(changed) > 0:
		fmt.Fprintf(a.stdout, "Set %s in %s\n", strings.Join(changed, ", "), path)
	}
	if len(removed) > 0 {
		fmt.Fprintf(a.stdout, "Removed %s\n", strings.Join(removed, ", "))
	}
	fmt.Fprintln(a.stdout, "A running gateway picks this up on its own (hot reload).")
	if spec.next != "" {
		fmt.Fprintln(a.stdout, spec.next)
	}
	return nil
}

// channelFlagList names a network's own flags for an error message.
func channelFlagList(spec channelSpec) string {
	var fl []string
	for _, c := range spec.creds {
		fl = append(fl, "--"+c.flag)
	}
	for _, f := range spec.flags {
		fl = append(fl, "--"+f)
	}
	if len(fl) == 0 {
		return "no credential flags"
	}
	return strings.Join(fl, ", ")
}

// askChannelCreds asks guided setup's questions for what the flags left
// out: the credentials (echo off), the Slack mode and a display name.
func askChannelCreds(p *prompter, spec channelSpec, in *channelAddInput) error {
	if in.channel == "slack" && in.mode == "" {
		m, err := p.choose("How should Slack deliver events?", []choice{
			{"socket", "Socket Mode (no public URL needed)"}, {"http", "HTTP Events (needs a public URL and the signing secret)"}}, "socket")
		if err != nil {
			return err
		}
		in.mode = m
	}
	for _, c := range spec.creds {
		need := c.ask
		if in.channel == "slack" {
			need = c.key == "botToken" || (in.mode == "http") == (c.key == "signingSecret")
		}
		if !need || in.creds[c.key] != "" {
			continue
		}
		hint := ""
		if c.env != "" && (in.account == "" || in.account == "default") {
			hint = ", empty to use " + c.env
		}
		v, err := p.secret(c.label + " (input hidden" + hint + ")")
		if err != nil {
			return err
		}
		if v == "" && hint == "" {
			return usageErrorf("%s: no value given", c.label)
		}
		if v != "" {
			in.creds[c.key] = v
		}
	}
	if in.name == "" {
		n, err := p.ask("Display name for this account (optional)", "")
		if err != nil {
			return err
		}
		in.name = n
	}
	return nil
}

// applyChannelAdd writes in into the config text src: each credential
// (escaped for the loader, see configSecret), the name and mode, and a
// bare block when there is nothing else, so the channel starts.
func applyChannelAdd(src []byte, spec channelSpec, in channelAddInput) (out []byte, block string, changed, removed []string, err error) {
	tree, err := fileTree(src)
	if err != nil {
		return nil, "", nil, nil, err
	}
	block = channelBlock(tree, in.channel, in.account)
	segs, _ := config.ParsePath(block)
	out = src
	setKey := func(key string, v any) error {
		if cur, ok := lookupPath(tree, append(append([]string(nil), segs...), key)); ok && cur == v {
			return nil
		}
		next, err := config.Set(out, block+"."+key, v)
		if err != nil {
			return err
		}
		out = next
		changed = append(changed, block+"."+key)
		return nil
	}
	unset := func(key string) error {
		next, err := config.Unset(out, block+"."+key)
		if errors.Is(err, config.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		out = next
		removed = append(removed, block+"."+key)
		return nil
	}
	for _, c := range spec.creds {
		v, ok := in.creds[c.key]
		if !ok {
			continue
		}
		if err := setKey(c.key, configSecret(v)); err != nil {
			return nil, "", nil, nil, err
		}
	}
	// One source of the Telegram token: botToken wins over tokenFile, so
	// the other one is removed rather than left to confuse.
	if in.channel == "telegram" {
		switch {
		case in.creds["botToken"] != "":
			err = unset("tokenFile")
		case in.tokenFile != "":
			err = errors.Join(setKey("tokenFile", in.tokenFile), unset("botToken"))
		}
		if err != nil {
			return nil, "", nil, nil, err
		}
	}
	if in.useEnv {
		// The default account reads the variables when its keys are unset.
		for _, c := range spec.creds {
			if c.env != "" {
				if err := unset(c.key); err != nil {
					return nil, "", nil, nil, err
				}
			}
		}
		if in.channel == "telegram" {
			if err := unset("tokenFile"); err != nil {
				return nil, "", nil, nil, err
			}
		}
	}
	if in.mode != "" {
		if err := setKey("mode", in.mode); err != nil {
			return nil, "", nil, nil, err
		}
	}
	if in.name != "" {
		if err := setKey("name", in.name); err != nil {
			return nil, "", nil, nil, err
		}
	}
	if _, exists := lookupPath(tree, segs); !exists && len(changed) == 0 {
		// A bare block still starts the channel (the token may come
		// from the environment, WhatsApp links later).
		if out, err = config.Set(out, block, map[string]any{}); err != nil {
			return nil, "", nil, nil, err
		}
		changed = append(changed, block)
	}
	return out, block, changed, removed, nil
}

func runChannelsRemove(_ context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw channels remove --channel telegram|discord|slack|whatsapp [--account ID]")
	f := fs.configFlags()
	channel := fs.String("channel", "", "`channel` to remove: telegram, discord, slack or whatsapp")
	account := fs.String("account", "", "remove only this account `id` (default: the whole channel)")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	if err := channelEditArgs(*channel, *account); err != nil {
		return err
	}
	var block string
	path, err := editConfig(a, f.dev, "channels."+*channel, func(src []byte) ([]byte, error) {
		tree, err := fileTree(src)
		if err != nil {
			return nil, err
		}
		block = channelBlock(tree, *channel, *account)
		if *account != "" && block == "channels."+*channel {
			return nil, usageErrorf("account %q is the channel block itself; remove the channel without --account", *account)
		}
		target := block
		if accts, _ := lookupPath(tree, []string{"channels", *channel, "accounts"}); block != "channels."+*channel {
			if m, _ := accts.(map[string]any); len(m) == 1 {
				target = "channels." + *channel + ".accounts" // no empty accounts {} left behind
			}
		}
		out, err := config.Unset(src, target)
		if errors.Is(err, config.ErrNotFound) {
			return nil, fmt.Errorf("%s is not in the config file", block)
		}
		return out, err
	})
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(a.stdout, map[string]any{"ok": true, "path": path, "channel": *channel,
			"accountId": *account, "removed": []string{block}})
	}
	fmt.Fprintf(a.stdout, "Removed %s from %s\n", block, path)
	fmt.Fprintln(a.stdout, "A running gateway stops it on its own (hot reload).")
	return nil
}

// fileTree parses the config file's own text (includes not followed) for
// existence checks.
func fileTree(src []byte) (map[string]any, error) {
	if len(strings.TrimSpace(string(src))) == 0 {
		return map[string]any{}, nil
	}
	tree, err := config.ParseObject(src)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return tree, nil
}

func nonEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func runChannelsLogin(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw channels login --channel NAME [--account ID] [gateway flags]")
	g := fs.gatewayFlags()
	channel := fs.String("channel", "", "`channel` to log in to")
	account := fs.String("account", "", "account `id` (default: every account of the channel)")
	phone := fs.String("phone", "", "WhatsApp: link with a code typed on the phone with this `number` (E.164) instead of a QR code")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	if *channel == "" {
		return usageErrorf("--channel is required")
	}
	if *channel == "telegram" {
		msg := "Telegram needs no login: a bot token is set with `openclaw channels add --channel telegram --token-file FILE`."
		if g.json {
			return writeJSON(a.stdout, map[string]any{"ok": true, "channel": "telegram", "message": msg})
		}
		fmt.Fprintln(a.stdout, msg)
		return nil
	}
	if *channel == "whatsapp" {
		return a.linkDevice(ctx, g, *channel, *account, *phone)
	}
	return a.startStop(ctx, g, "channels.start", *channel, *account, "Started")
}

// linkDevice runs a device link (WhatsApp): it prints each QR code as it
// comes until the phone has scanned one, the link fails, or ctx ends.
func (a *app) linkDevice(ctx context.Context, g *gatewayFlags, channel, account, phone string) error {
	params := map[string]any{"channel": channel}
	if account != "" {
		params["accountId"] = account
	}
	var ignored json.RawMessage
	if err := a.callOnce(ctx, g, "channels.start", adminScope, params, &ignored, false); err != nil {
		return err
	}
	type step struct {
		Connected   bool   `json:"connected"`
		QR          string `json:"qr"`
		PairingCode string `json:"pairingCode"`
		Message     string `json:"message"`
		Error       string `json:"error"`
	}
	var cur step
	method := "web.login.start"
	for {
		p := map[string]any{"channel": channel, "timeoutMs": 8000, "currentQr": cur.QR}
		if account != "" {
			p["accountId"] = account
		}
		if phone != "" && method == "web.login.start" {
			p["phone"] = phone
		}
		var next step
		if err := a.callOnce(ctx, g, method, adminScope, p, &next, false); err != nil {
			return err
		}
		method = "web.login.wait"
		switch {
		case next.Error != "":
			return fmt.Errorf("%s login failed: %s", channel, next.Error)
		case next.Connected:
			fmt.Fprintf(a.stdout, "Linked %s. Messages to this number now reach your agents.\n", channel)
			return nil
		case next.QR != "" && next.QR != cur.QR:
			if q, err := qrcode.New(next.QR, qrcode.Low); err == nil {
				fmt.Fprintln(a.stdout, q.ToSmallString(false))
			}
			fmt.Fprintln(a.stdout, "Scan this code in WhatsApp: Settings → Linked devices → Link a device. Waiting…")
		case next.PairingCode != "" && next.PairingCode != cur.PairingCode:
			fmt.Fprintf(a.stdout, "Enter this code on the phone: %s\n", next.PairingCode)
		}
		cur = next
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

func runChannelsLogout(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw channels logout --channel NAME [--account ID] [gateway flags]")
	g := fs.gatewayFlags()
	channel := fs.String("channel", "", "`channel` to log out of")
	account := fs.String("account", "", "account `id` (default: every account of the channel)")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	if *channel == "" {
		return usageErrorf("--channel is required")
	}
	return a.startStop(ctx, g, "channels.logout", *channel, *account, "Logged out of")
}

// startStop calls channels.start or channels.logout, both admin acts.
func (a *app) startStop(ctx context.Context, g *gatewayFlags, method, channel, account, done string) error {
	params := map[string]any{"channel": channel}
	if account != "" {
		params["accountId"] = account
	}
	var out json.RawMessage
	if err := a.callOnce(ctx, g, method, adminScope, params, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	which := "every account"
	if account != "" {
		which = "account " + account
	}
	fmt.Fprintf(a.stdout, "%s %s (%s)\n", done, channel, which)
	return nil
}
