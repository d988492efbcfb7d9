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
	"text/tabwriter"
	"time"

	qrcode "github.com/skip2/go-qrcode"

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

// editableChannels are the channels whose config add and remove write.
var editableChannels = []string{"telegram"}

// accountIDPattern is what add and remove accept as an account id, so it
// can be a key path step without quoting.
var accountIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

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
	found := false
	for _, ch := range editableChannels {
		found = found || ch == channel
	}
	if !found {
		return usageErrorf("channel %q cannot be configured here (one of %s)", channel, strings.Join(editableChannels, ", "))
	}
	if account != "" && !accountIDPattern.MatchString(account) {
		return usageErrorf("account id %q must be letters, digits, '-' and '_'", account)
	}
	return nil
}

func runChannelsAdd(_ context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw channels add --channel telegram [--account ID] [--token T | --token-file FILE] [--name NAME]")
	f := fs.configFlags()
	channel := fs.String("channel", "", "`channel` to configure (telegram)")
	account := fs.String("account", "", "account `id` (default: the channel's default account)")
	token := fs.String("token", "", "bot `token` from @BotFather; - reads it from stdin")
	tokenFile := fs.String("token-file", "", "`file` holding the bot token")
	name := fs.String("name", "", "display `name` of the account")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	if err := channelEditArgs(*channel, *account); err != nil {
		return err
	}
	if *token != "" && *tokenFile != "" {
		return usageErrorf("--token and --token-file are exclusive")
	}
	if *token == "-" {
		line, err := bufio.NewReader(a.stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read token from stdin: %w", err)
		}
		if *token = strings.TrimSpace(line); *token == "" {
			return usageErrorf("--token -: stdin held no token")
		}
	}
	if *tokenFile != "" && !strings.HasPrefix(*tokenFile, "~") {
		// The gateway runs elsewhere than this shell's directory.
		abs, err := filepath.Abs(*tokenFile)
		if err != nil {
			return fmt.Errorf("token file: %w", err)
		}
		*tokenFile = abs
		if _, err := os.Stat(*tokenFile); err != nil {
			fmt.Fprintf(a.stderr, "warning: the gateway will not be able to read %s: %v\n", *tokenFile, err)
		}
	}
	var block string
	var changed, removed []string
	path, err := editConfig(a, f.dev, "channels."+*channel, func(src []byte) ([]byte, error) {
		tree, err := fileTree(src)
		if err != nil {
			return nil, err
		}
		block = channelBlock(tree, *channel, *account)
		segs, _ := config.ParsePath(block)
		out := src
		set := func(key string, v any) error {
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
		// One source of the token: botToken wins over tokenFile, so the
		// other one is removed rather than left to confuse.
		switch {
		case *token != "":
			err = errors.Join(set("botToken", *token), unset("tokenFile"))
		case *tokenFile != "":
			err = errors.Join(set("tokenFile", *tokenFile), unset("botToken"))
		}
		if err != nil {
			return nil, err
		}
		if *name != "" {
			if err := set("name", *name); err != nil {
				return nil, err
			}
		}
		if _, exists := lookupPath(tree, segs); !exists && len(changed) == 0 {
			// A bare block still starts the channel (the token may come
			// from TELEGRAM_BOT_TOKEN).
			if out, err = config.Set(out, block, map[string]any{}); err != nil {
				return nil, err
			}
			changed = append(changed, block)
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	if f.json {
		return writeJSON(a.stdout, map[string]any{"ok": true, "path": path, "channel": *channel,
			"accountId": *account, "set": nonEmpty(changed), "removed": nonEmpty(removed)})
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
	return nil
}

func runChannelsRemove(_ context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw channels remove --channel telegram [--account ID]")
	f := fs.configFlags()
	channel := fs.String("channel", "", "`channel` to remove (telegram)")
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
