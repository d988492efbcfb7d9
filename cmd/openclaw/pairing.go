package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// pairingSubcommands are `openclaw pairing ...`: the DM pairing requests
// of chat channels (a stranger who writes to the bot gets a code; the
// owner approves it here). Device pairing is `openclaw devices`.
var pairingSubcommands = map[string]func(ctx context.Context, a *app, args []string) error{
	"list":    runPairingList,
	"approve": runPairingTake("approve"),
	"dismiss": runPairingTake("dismiss"),
}

// runPairing serves `openclaw pairing list|approve|dismiss`.
func runPairing(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("pairing", args, pairingSubcommands)
	if err != nil {
		return err
	}
	a.cmd = "pairing " + args[0]
	return sub(ctx, a, rest)
}

func runPairingList(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw pairing list [CHANNEL] [--channel CHANNEL] [--account ID] [gateway flags]")
	g := fs.gatewayFlags()
	channel := fs.String("channel", "", "only the requests of this `channel` (as the positional CHANNEL)")
	account := fs.String("account", "", "only the requests of this account `id`")
	pos, err := fs.parse(args, 0, 1)
	if err != nil {
		return err
	}
	ch, err := pairingChannel(fs, *channel, pos, 1)
	if err != nil {
		return err
	}
	if err := checkAccount(fs, *account); err != nil {
		return err
	}
	params := map[string]any{}
	if ch != "" {
		params["channel"] = ch
	}
	if *account != "" {
		params["accountId"] = *account
	}
	var out json.RawMessage
	if err := a.callOnce(ctx, g, "channels.pairing.list", pairingScope, params, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	return formatPairingList(a.stdout, out)
}

// runPairingTake serves approve and dismiss, which take a channel and the
// code the sender was given (a request id works too).
func runPairingTake(verb string) func(context.Context, *app, []string) error {
	return func(ctx context.Context, a *app, args []string) error {
		usage := "openclaw pairing " + verb + " CHANNEL CODE | --channel CHANNEL CODE [--account ID]"
		if verb == "approve" {
			usage += " [--notify]"
		}
		fs := newFlagSet(a, usage+" [gateway flags]")
		g := fs.gatewayFlags()
		channel := fs.String("channel", "", "`channel` of the request (instead of the positional CHANNEL)")
		account := fs.String("account", "", "account `id` of the request (default: any account of the channel)")
		var notify *bool
		if verb == "approve" {
			notify = fs.Bool("notify", false, "tell the sender they were approved")
		}
		pos, err := fs.parse(args, 1, 2)
		if err != nil {
			return err
		}
		ch, err := pairingChannel(fs, *channel, pos, 2)
		if err != nil {
			return err
		}
		if ch == "" {
			return usageErrorf("which channel? pass it first (openclaw pairing %s telegram CODE) or with --channel", verb)
		}
		code := pos[len(pos)-1]
		if err := checkAccount(fs, *account); err != nil {
			return err
		}
		pos = []string{ch, code}
		params := map[string]any{"channel": ch, "requestId": code}
		if *account != "" {
			params["accountId"] = *account
		}
		// Approving lets a stranger talk to an agent; like approving a
		// device it asks for admin as well as pairing.
		scopes := pairingScope
		if verb == "approve" {
			params["notify"] = *notify
			// As OpenClaw's CLI: the first sender approved on a gateway
			// without an owner becomes the owner.
			params["bootstrapCommandOwner"] = true
			scopes = pairingAdminScope
		}
		var out json.RawMessage
		if err := a.callOnce(ctx, g, "channels.pairing."+verb, scopes, params, &out, false); err != nil {
			return err
		}
		if g.json {
			return writeJSON(a.stdout, out)
		}
		var res struct {
			SenderID     string `json:"senderId"`
			Notification string `json:"notification"`
			Owner        string `json:"commandOwnerBootstrap"`
		}
		_ = json.Unmarshal(out, &res)
		sender := cmp.Or(res.SenderID, "the sender of "+pos[1])
		if verb == "dismiss" {
			fmt.Fprintf(a.stdout, "Dismissed the request of %s on %s\n", sender, pos[0])
			return nil
		}
		fmt.Fprintf(a.stdout, "Approved %s on %s (DMs only; groups still follow groupPolicy)\n", sender, pos[0])
		if res.Owner == "configured" {
			fmt.Fprintf(a.stdout, "Command owner configured: %s:%s (commands.ownerAllowFrom was empty)\n", pos[0], res.SenderID)
		}
		switch res.Notification {
		case "sent":
			fmt.Fprintln(a.stdout, "The sender was told they are approved.")
		case "failed":
			fmt.Fprintln(a.stdout, "Could not tell the sender they are approved; they can write to the bot now.")
		}
		return nil
	}
}

// pairingChannel is the channel of a pairing command: --channel, or the
// first positional when the command has full positionals (full: 1 for
// list's [CHANNEL], 2 for approve's CHANNEL CODE). Both given must agree.
func pairingChannel(fs *flagSet, flagValue string, pos []string, full int) (string, error) {
	if fs.Changed("channel") && strings.TrimSpace(flagValue) == "" {
		return "", usageErrorf("--channel must not be blank")
	}
	flagValue = strings.TrimSpace(flagValue)
	if len(pos) < full {
		return flagValue, nil
	}
	if flagValue != "" && !strings.EqualFold(flagValue, pos[0]) {
		return "", usageErrorf("channel given twice: %q and --channel %q", pos[0], flagValue)
	}
	return pos[0], nil
}

// checkAccount refuses an explicitly blank --account, as the real CLI:
// it would otherwise silently mean every account.
func checkAccount(fs *flagSet, account string) error {
	if fs.Changed("account") && strings.TrimSpace(account) == "" {
		return usageErrorf("--account must not be blank")
	}
	return nil
}

// formatPairingList prints channels.pairing.list as a table of pending
// requests.
func formatPairingList(w io.Writer, raw json.RawMessage) error {
	var l struct {
		Requests []struct {
			RequestID    string            `json:"requestId"`
			Channel      string            `json:"channel"`
			AccountID    string            `json:"accountId"`
			SenderID     string            `json:"senderId"`
			SenderLabel  string            `json:"senderLabel"`
			Metadata     map[string]string `json:"metadata"`
			CreatedAt    string            `json:"createdAt"`
			ExpiresAt    string            `json:"expiresAt"`
			ChannelLabel string            `json:"channelLabel"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return fmt.Errorf("decode pairing list: %w", err)
	}
	if len(l.Requests) == 0 {
		fmt.Fprintln(w, "No pending pairing requests.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHANNEL\tACCOUNT\tCODE\tSENDER\tREQUESTED\tEXPIRES")
	for _, r := range l.Requests {
		sender := r.SenderID
		if r.SenderLabel != "" && r.SenderLabel != r.SenderID {
			sender = r.SenderLabel + " (" + r.SenderID + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", orDash(r.Channel), orDash(r.AccountID),
			orDash(cmp.Or(r.Metadata["code"], r.RequestID)), orDash(sender), shortTime(r.CreatedAt), shortTime(r.ExpiresAt))
	}
	return tw.Flush()
}

// shortTime prints an RFC 3339 time in UTC to the minute, or the text as
// it came when it is not one.
func shortTime(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return orDash(s)
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}
