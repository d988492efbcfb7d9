package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	wsfs "github.com/openclaw-go/openclaw/tools/fs"
	msgtool "github.com/openclaw-go/openclaw/tools/message"
)

// messageSubcommands are `openclaw message ...`: sending and acting on
// messages of a chat channel through the gateway's adapters.
var messageSubcommands = map[string]func(ctx context.Context, a *app, args []string) error{
	"send":   runMessageSend,
	"poll":   runMessagePoll,
	"react":  runMessageAction("react"),
	"edit":   runMessageAction("edit"),
	"delete": runMessageAction("delete"),
	"pin":    runMessageAction("pin"),
	"unpin":  runMessageAction("unpin"),

	"read":      runMessageRead("read", "read"),
	"reactions": runMessageRead("reactions", "reactions"),
	"pins":      runMessageRead("pins", "list-pins"),
}

// runMessage serves `openclaw message send|poll|react|edit|delete|pin|unpin|read|reactions|pins`.
func runMessage(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand("message", args, messageSubcommands)
	if err != nil {
		return err
	}
	a.cmd = "message " + args[0]
	return sub(ctx, a, rest)
}

var writeScope = []string{string(protocol.ScopeWrite)}

// messageTarget are the flags naming where a message goes.
type messageTarget struct {
	channel, account, target, threadID *string
}

func (fs *flagSet) messageTarget() messageTarget {
	return messageTarget{
		channel:  fs.String("channel", "", "`channel` (e.g. telegram; default: the target's prefix, as in telegram:123)"),
		account:  fs.String("account", "", "account `id` of the channel (default: its default account)"),
		target:   fs.StringP("target", "t", "", "chat to send to: a chat id, @username or prefixed `target`"),
		threadID: fs.String("thread-id", "", "forum topic or thread `id`"),
	}
}

// params puts the set target flags into p, the target under key.
func (t messageTarget) params(p map[string]any, key string) {
	p[key] = *t.target
	if *t.threadID != "" {
		p["threadId"] = *t.threadID
	}
}

func (t messageTarget) routing(p map[string]any) {
	if *t.channel != "" {
		p["channel"] = *t.channel
	}
	if *t.account != "" {
		p["accountId"] = *t.account
	}
}

func runMessageSend(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw message send --target T (--message TEXT | --media PATH) [--channel C] [--account ID] "+
		"[--reply-to ID] [--thread-id ID] [--silent] [--dry-run] [gateway flags]")
	g := fs.gatewayFlags()
	t := fs.messageTarget()
	message := fs.StringP("message", "m", "", "`text` to send (required unless --media is given)")
	var media stringList
	fs.Var(&media, "media", "attach a file of the default agent's workspace (`path`, repeatable; at most 20 MB each)")
	replyTo := fs.String("reply-to", "", "`id` of the message to reply to")
	silent := fs.Bool("silent", false, "send without a notification sound")
	dryRun := fs.Bool("dry-run", false, "print the payload and send nothing")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	switch {
	case *t.target == "":
		return usageErrorf("--target is required (usage: %s)", fs.usage)
	case *message == "" && len(media) == 0:
		return usageErrorf("--message is required unless --media is given (usage: %s)", fs.usage)
	}
	files, err := checkMedia(g.dev, media)
	if err != nil {
		return err
	}
	// A fresh key per command: a retry of the same call inside the client
	// is not sent twice, a second command is a second message.
	params := map[string]any{"message": *message, "idempotencyKey": uuid.NewString()}
	t.params(params, "to")
	t.routing(params)
	if *replyTo != "" {
		params["replyToId"] = *replyTo
	}
	if *silent {
		params["silent"] = true
	}
	if *dryRun {
		return printSendDryRun(a, g.json, params, files)
	}
	if len(files) > 0 {
		// The gateway's send takes text only: a file reaches a chat
		// through the agent's send_file tool, from the same workspace.
		return fmt.Errorf("message send: the gateway's send method takes text only, so --media cannot be sent from the CLI yet " +
			"(--dry-run shows the checked payload; an agent sends workspace files with its send_file tool)")
	}
	var out json.RawMessage
	if err := a.callOnce(ctx, g, "send", writeScope, params, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	var res struct {
		ChatID    string `json:"chatId"`
		MessageID string `json:"messageId"`
		Status    string `json:"status"`
	}
	_ = json.Unmarshal(out, &res)
	chat := cmp.Or(res.ChatID, *t.target)
	switch {
	case res.Status == "pending":
		fmt.Fprintf(a.stdout, "Queued for %s; it will be retried\n", chat)
	case res.MessageID != "":
		fmt.Fprintf(a.stdout, "Sent to %s (message %s)\n", chat, res.MessageID)
	default:
		fmt.Fprintf(a.stdout, "Sent to %s\n", chat)
	}
	return nil
}

// checkMedia confines each --media to the default agent's workspace with
// the check the agent's send_file tool makes (tools/message.CheckFile):
// a regular file inside the workspace, no link out, at most 20 MB. A URL
// is refused: the gateway never fetches addresses on a sender's behalf.
// It returns the files as workspace-relative paths.
func checkMedia(dev bool, media []string) ([]string, error) {
	if len(media) == 0 {
		return nil, nil
	}
	for _, m := range media {
		if u, err := url.Parse(m); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
			return nil, usageErrorf("--media %q: URLs are not accepted (the gateway does not fetch media addresses); put the file in the agent's workspace", redactURL(m))
		}
	}
	paths, err := cliPaths(dev)
	if err != nil {
		return nil, err
	}
	snap, err := config.Load(paths.ConfigPath, config.LoadOptions{IncludeRoots: paths.IncludeRoots})
	if err != nil {
		return nil, fmt.Errorf("--media: read config %s for the workspace: %w", paths.ConfigPath, err)
	}
	dir, ok := agents.WorkspaceDir(snap.Config, paths.StateDir, "")
	if !ok {
		return nil, fmt.Errorf("--media: the config has no default agent, so there is no workspace to send from")
	}
	ws, err := wsfs.OpenWorkspace(dir)
	if err != nil {
		return nil, fmt.Errorf("--media: %w", err)
	}
	defer ws.Close()
	out := make([]string, 0, len(media))
	for _, m := range media {
		rel, _, err := msgtool.CheckFile(ws, m)
		if err != nil {
			return nil, usageErrorf("--media %q: %v (files are sent from the workspace %s)", m, err, dir)
		}
		out = append(out, rel)
	}
	return out, nil
}

// printSendDryRun prints what send would do, in the real CLI's dry-run
// shape, and sends nothing.
func printSendDryRun(a *app, asJSON bool, params map[string]any, files []string) error {
	channel, _ := params["channel"].(string)
	payload := map[string]any{"channel": channel, "to": params["to"], "via": "gateway", "dryRun": true, "message": params["message"]}
	payload["mediaUrl"] = nil
	if len(files) > 0 {
		payload["mediaUrl"] = files[0]
		payload["mediaUrls"] = files
	}
	for _, k := range []string{"accountId", "threadId", "replyToId", "silent"} {
		if v, ok := params[k]; ok {
			payload[k] = v
		}
	}
	if asJSON {
		return writeJSON(a.stdout, map[string]any{"action": "send", "channel": channel, "dryRun": true, "handledBy": "gateway", "payload": payload})
	}
	fmt.Fprintf(a.stdout, "[dry-run] would run send via %s to %v\n", cmp.Or(channel, "the target's channel"), params["to"])
	for _, f := range files {
		fmt.Fprintf(a.stdout, "  media: %s\n", f)
	}
	return nil
}

func runMessagePoll(ctx context.Context, a *app, args []string) error {
	fs := newFlagSet(a, "openclaw message poll --target T --question Q --option A --option B... "+
		"[--multi] [--channel C] [--account ID] [--thread-id ID] [gateway flags]")
	g := fs.gatewayFlags()
	t := fs.messageTarget()
	question := fs.String("question", "", "the poll's `question`")
	fs.StringVar(question, "poll-question", "", "same as --question")
	var options stringList
	fs.Var(&options, "option", "an `answer` (repeat for each, at least two)")
	fs.Var(&options, "poll-option", "same as --option")
	multi := fs.Bool("multi", false, "allow more than one answer")
	fs.BoolVar(multi, "poll-multi", false, "same as --multi")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	switch {
	case *t.target == "":
		return usageErrorf("--target is required (usage: %s)", fs.usage)
	case *question == "":
		return usageErrorf("--question is required (usage: %s)", fs.usage)
	case len(options) < 2:
		return usageErrorf("a poll needs at least two --option answers (usage: %s)", fs.usage)
	}
	params := map[string]any{"question": *question, "options": []string(options), "idempotencyKey": uuid.NewString()}
	t.params(params, "to")
	t.routing(params)
	if *multi {
		params["maxSelections"] = len(options)
	}
	var out json.RawMessage
	if err := a.callOnce(ctx, g, "poll", writeScope, params, &out, false); err != nil {
		return err
	}
	if g.json {
		return writeJSON(a.stdout, out)
	}
	var res struct {
		MessageID string `json:"messageId"`
	}
	_ = json.Unmarshal(out, &res)
	fmt.Fprintf(a.stdout, "Poll sent to %s%s\n", *t.target, msgSuffix(res.MessageID))
	return nil
}

// runMessageAction serves the actions on one sent message.
func runMessageAction(action string) func(context.Context, *app, []string) error {
	return func(ctx context.Context, a *app, args []string) error {
		usage := "openclaw message " + action + " --target T --message-id ID"
		switch action {
		case "react":
			usage += " --emoji E"
		case "edit":
			usage += " --message TEXT"
		}
		fs := newFlagSet(a, usage+" [--channel C] [--account ID] [gateway flags]")
		g := fs.gatewayFlags()
		t := fs.messageTarget()
		messageID := fs.String("message-id", "", "`id` of the message")
		var emoji, text *string
		switch action {
		case "react":
			emoji = fs.String("emoji", "", "reaction `emoji`")
		case "edit":
			text = fs.String("message", "", "new `text` of the message")
		}
		if _, err := fs.parse(args, 0, 0); err != nil {
			return err
		}
		switch {
		case *t.target == "":
			return usageErrorf("--target is required (usage: %s)", fs.usage)
		case *messageID == "":
			return usageErrorf("--message-id is required (usage: %s)", fs.usage)
		case emoji != nil && *emoji == "":
			return usageErrorf("--emoji is required (usage: %s)", fs.usage)
		case text != nil && *text == "":
			return usageErrorf("--message is required (usage: %s)", fs.usage)
		}
		inner := map[string]any{"messageId": *messageID}
		t.params(inner, "to")
		if emoji != nil {
			inner["emoji"] = *emoji
		}
		if text != nil {
			inner["message"] = *text
		}
		params := map[string]any{"action": action, "params": inner, "idempotencyKey": uuid.NewString()}
		t.routing(params)
		var out json.RawMessage
		if err := a.callOnce(ctx, g, "message.action", writeScope, params, &out, false); err != nil {
			return err
		}
		if g.json {
			return writeJSON(a.stdout, out)
		}
		done := map[string]string{"edit": "Edited", "delete": "Deleted", "pin": "Pinned", "unpin": "Unpinned"}[action]
		if action == "react" {
			fmt.Fprintf(a.stdout, "Reacted %s to message %s in %s\n", *emoji, *messageID, *t.target)
			return nil
		}
		fmt.Fprintf(a.stdout, "%s message %s in %s\n", done, *messageID, *t.target)
		return nil
	}
}

func msgSuffix(id string) string {
	if id == "" {
		return ""
	}
	return " (message " + id + ")"
}
