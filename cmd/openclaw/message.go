package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/protocol"
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
}

// runMessage serves `openclaw message send|poll|react|edit|delete|pin|unpin`.
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
		target:   fs.String("target", "", "chat to send to: a chat id, @username or prefixed `target`"),
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
	fs := newFlagSet(a, "openclaw message send --target T --message TEXT [--channel C] [--account ID] "+
		"[--reply-to ID] [--thread-id ID] [--silent] [gateway flags]")
	g := fs.gatewayFlags()
	t := fs.messageTarget()
	message := fs.String("message", "", "`text` to send")
	replyTo := fs.String("reply-to", "", "`id` of the message to reply to")
	silent := fs.Bool("silent", false, "send without a notification sound")
	if _, err := fs.parse(args, 0, 0); err != nil {
		return err
	}
	switch {
	case *t.target == "":
		return usageErrorf("--target is required (usage: %s)", fs.usage)
	case *message == "":
		return usageErrorf("--message is required (usage: %s)", fs.usage)
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
