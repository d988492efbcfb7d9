package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/openclaw-go/openclaw/channels"
)

// Edit replaces the text of one of the bot's messages (HTML, with the
// plain-text fallback). An edit that changes nothing is not an error.
func (a *Adapter) Edit(ctx context.Context, to channels.Target, messageID, text string) error {
	p := tgbotapi.Params{"chat_id": to.ChatID, "message_id": messageID}
	a.linkPreview(p)
	_, err := a.callFormatted(ctx, "editMessageText", p, "text", text, nil)
	if isNotModified(err) {
		return nil
	}
	return err
}

// Delete removes a message.
func (a *Adapter) Delete(ctx context.Context, to channels.Target, messageID string) error {
	return a.callInto(ctx, "deleteMessage", tgbotapi.Params{"chat_id": to.ChatID, "message_id": messageID}, nil)
}

// React sets the bot's reaction on a message; "" removes it.
func (a *Adapter) React(ctx context.Context, to channels.Target, messageID, emoji string) error {
	reaction := "[]"
	if emoji != "" {
		b, err := json.Marshal([]map[string]string{{"type": "emoji", "emoji": emoji}})
		if err != nil {
			return err
		}
		reaction = string(b)
	}
	return a.callInto(ctx, "setMessageReaction", tgbotapi.Params{
		"chat_id": to.ChatID, "message_id": messageID, "reaction": reaction,
	}, nil)
}

// Typing shows "typing…" for about five seconds, in the topic when the
// target has one.
func (a *Adapter) Typing(ctx context.Context, to channels.Target) error {
	p := a.targetParams(to, true)
	p["action"] = "typing"
	return a.callInto(ctx, "sendChatAction", p, nil)
}

// Poll sends a native poll. DurationSecs outside Telegram's 5-600 is
// left out (the poll stays open).
func (a *Adapter) Poll(ctx context.Context, to channels.Target, poll channels.Poll) (channels.Sent, error) {
	if len(poll.Options) < 2 || len(poll.Options) > 10 {
		return channels.Sent{}, errors.New("telegram: a poll needs 2 to 10 options")
	}
	opts := make([]map[string]string, len(poll.Options))
	for i, o := range poll.Options {
		opts[i] = map[string]string{"text": o}
	}
	ob, err := json.Marshal(opts)
	if err != nil {
		return channels.Sent{}, err
	}
	p := a.targetParams(to, false)
	p["question"] = poll.Question
	p["options"] = string(ob)
	p["is_anonymous"] = strconv.FormatBool(poll.Anonymous)
	p["allows_multiple_answers"] = strconv.FormatBool(poll.MultiSelect)
	if poll.DurationSecs >= 5 && poll.DurationSecs <= 600 {
		p["open_period"] = strconv.Itoa(poll.DurationSecs)
	}
	res, err := a.call(ctx, "sendPoll", p, nil)
	if err != nil {
		return channels.Sent{}, err
	}
	id, err := messageID("sendPoll", res)
	return channels.Sent{MessageID: id}, err
}

// Pin pins a message without notifying the chat.
func (a *Adapter) Pin(ctx context.Context, to channels.Target, messageID string) error {
	return a.callInto(ctx, "pinChatMessage", tgbotapi.Params{
		"chat_id": to.ChatID, "message_id": messageID, "disable_notification": "true",
	}, nil)
}

// Unpin unpins a message.
func (a *Adapter) Unpin(ctx context.Context, to channels.Target, messageID string) error {
	return a.callInto(ctx, "unpinChatMessage", tgbotapi.Params{"chat_id": to.ChatID, "message_id": messageID}, nil)
}

// AnswerCallback stops the spinner of a pressed button, showing text
// briefly when it is not empty.
func (a *Adapter) AnswerCallback(ctx context.Context, callbackID, text string) error {
	p := tgbotapi.Params{"callback_query_id": callbackID}
	if text != "" {
		p["text"] = text
	}
	return a.callInto(ctx, "answerCallbackQuery", p, nil)
}

// SetCommands publishes the command menu: cmds, then the account's own
// (Options.Commands). Names are lower-cased and lose a leading slash, as
// Telegram wants them; a custom entry Telegram would refuse (a bad name,
// no description) or that repeats an earlier name is left out with a
// warning, so one typo does not lose the whole menu.
func (a *Adapter) SetCommands(ctx context.Context, cmds []channels.Command) error {
	type command struct {
		Command     string `json:"command"`
		Description string `json:"description"`
	}
	list := make([]command, 0, len(cmds)+len(a.opts.Commands))
	seen := map[string]bool{}
	for _, c := range cmds {
		name := strings.ToLower(strings.TrimPrefix(c.Name, "/"))
		desc := c.Description
		if desc == "" {
			desc = name
		}
		seen[name] = true
		list = append(list, command{Command: name, Description: desc})
	}
	for _, c := range a.opts.Commands {
		name := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(c.Name), "/"))
		desc := strings.TrimSpace(c.Description)
		switch {
		case !commandName().MatchString(name):
			a.log.Warn("telegram: custom command left out of the menu: a name is 1-32 of a-z, 0-9 and _", "command", c.Name)
			continue
		case desc == "":
			a.log.Warn("telegram: custom command left out of the menu: it has no description", "command", name)
			continue
		case seen[name]:
			a.log.Warn("telegram: custom command left out of the menu: the name is taken", "command", name)
			continue
		case len(list) == maxMenuCommands:
			a.log.Warn("telegram: custom command left out of the menu: Telegram takes 100 commands", "command", name)
			continue
		}
		if r := []rune(desc); len(r) > 256 {
			desc = string(r[:256])
		}
		seen[name] = true
		list = append(list, command{Command: name, Description: desc})
	}
	b, err := json.Marshal(list)
	if err != nil {
		return err
	}
	return a.callInto(ctx, "setMyCommands", tgbotapi.Params{"commands": string(b)}, nil)
}

// ChatInfo returns Telegram's Chat object for chatID.
func (a *Adapter) ChatInfo(ctx context.Context, chatID string) (map[string]any, error) {
	var out map[string]any
	err := a.callInto(ctx, "getChat", tgbotapi.Params{"chat_id": chatID}, &out)
	return out, err
}

// MemberInfo returns Telegram's ChatMember object for userID in chatID.
func (a *Adapter) MemberInfo(ctx context.Context, chatID, userID string) (map[string]any, error) {
	var out map[string]any
	err := a.callInto(ctx, "getChatMember", tgbotapi.Params{"chat_id": chatID, "user_id": userID}, &out)
	return out, err
}

// commandName is what Telegram accepts as a bot command name.
var commandName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9_]{1,32}$`) })

// maxMenuCommands is the most setMyCommands takes.
const maxMenuCommands = 100
