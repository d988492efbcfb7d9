// Package message holds the tools that talk on chat channels: OpenClaw's
// message tool (send, react, edit, delete, pin, poll, ...) and MateClaw's
// send_file. They reach the channels through Messenger, which the gateway
// provides; a session that came from a chat may only message that chat.
package message

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/openclaw-go/openclaw/tools"
	wsfs "github.com/openclaw-go/openclaw/tools/fs"
)

// Conversation is the chat a session belongs to.
type Conversation struct {
	Channel   string
	AccountID string
	ChatID    string
	ThreadID  string
}

// Messenger is what these tools need from the channels.
type Messenger interface {
	// Conversation returns the chat run runID of sessionKey answers: for
	// a channel turn, the chat its message came from (a session several
	// chats share is not "the last chat's"); else the session's chat. ok
	// is false for sessions that did not start on a channel.
	Conversation(ctx context.Context, sessionKey, runID string) (c Conversation, ok bool, err error)
	// Act runs one message action in a conversation. params are the
	// action's own fields (message, messageId, emoji, question, options,
	// userId); idempotencyKey is stable across retries of one call.
	Act(ctx context.Context, to Conversation, action string, params map[string]any, idempotencyKey string) (any, error)
	// SendFile sends a file (an absolute path inside a workspace) as an
	// attachment, with an optional caption.
	SendFile(ctx context.Context, to Conversation, file, caption, idempotencyKey string) (any, error)
}

// MaxFileBytes is send_file's limit (MateClaw's 20 MB).
const MaxFileBytes = 20 << 20

// Args are the message tool's arguments.
type Args struct {
	Action    string   `json:"action" jsonschema:"enum=send,enum=react,enum=edit,enum=delete,enum=pin,enum=unpin,enum=poll,enum=typing,enum=channel-info,enum=member-info,enum=reactions,enum=read,enum=list-pins,enum=thread-create,enum=thread-list,enum=thread-reply,enum=search,enum=channel-list,enum=sticker,enum=role-info,enum=role-add,enum=role-remove,enum=emoji-list,enum=emoji-upload,enum=sticker-upload,enum=voice-status,enum=event-list,enum=event-create,enum=timeout,enum=kick,enum=ban,enum=permissions,description=What to do"`
	Channel   string   `json:"channel,omitempty" jsonschema:"description=Channel id such as telegram (default: this conversation's)"`
	AccountID string   `json:"accountId,omitempty" jsonschema:"description=Channel account (default: this conversation's)"`
	Target    string   `json:"target,omitempty" jsonschema:"description=Chat id (default: this conversation)"`
	ThreadID  string   `json:"threadId,omitempty" jsonschema:"description=Thread or forum topic id"`
	Message   string   `json:"message,omitempty" jsonschema:"description=Text for send, edit, thread-reply, thread-create and sticker (Markdown); the caption with media"`
	Media     string   `json:"media,omitempty" jsonschema:"description=send and thread-reply: a file of your workspace (up to 20 MB) to attach; emoji-upload and sticker-upload: the image"`
	MessageID string   `json:"messageId,omitempty" jsonschema:"description=The message to react to, edit, delete, pin, list reactions of or start a thread on"`
	Emoji     string   `json:"emoji,omitempty" jsonschema:"description=Reaction emoji (for reactions: list who reacted with it)"`
	Question  string   `json:"question,omitempty" jsonschema:"description=Poll question"`
	Options   []string `json:"options,omitempty" jsonschema:"description=Poll options (2 to 12)"`
	UserID    string   `json:"userId,omitempty" jsonschema:"description=Member for member-info, permissions, voice-status, role-add, role-remove, timeout, kick and ban"`

	ThreadName         string   `json:"threadName,omitempty" jsonschema:"description=Name of the thread thread-create starts"`
	AutoArchiveMinutes int      `json:"autoArchiveMinutes,omitempty" jsonschema:"description=thread-create: minutes of inactivity before the thread archives (60, 1440, 4320 or 10080)"`
	Limit              int      `json:"limit,omitempty" jsonschema:"description=Most results for read, reactions, thread-list, search and emoji-list (at most 100)"`
	Before             string   `json:"before,omitempty" jsonschema:"description=read: messages older than this message id"`
	After              string   `json:"after,omitempty" jsonschema:"description=read: messages newer than this message id"`
	Query              string   `json:"query,omitempty" jsonschema:"description=Text to search for"`
	RoleID             string   `json:"roleId,omitempty" jsonschema:"description=Role for role-add and role-remove"`
	DurationMinutes    int      `json:"durationMinutes,omitempty" jsonschema:"description=timeout: how long (omit with until to lift a timeout)"`
	Until              string   `json:"until,omitempty" jsonschema:"description=timeout: when it ends (RFC 3339)"`
	DeleteDays         int      `json:"deleteDays,omitempty" jsonschema:"description=ban: days of the member's messages to delete (0 to 7)"`
	Reason             string   `json:"reason,omitempty" jsonschema:"description=Reason for timeout, kick and ban (the server's audit log)"`
	StickerID          []string `json:"stickerId,omitempty" jsonschema:"description=Stickers to send"`
	EmojiName          string   `json:"emojiName,omitempty" jsonschema:"description=emoji-upload: the new emoji's name (media is its image)"`
	StickerName        string   `json:"stickerName,omitempty" jsonschema:"description=sticker-upload: the new sticker's name (media is its PNG, APNG, GIF or Lottie JSON)"`
	StickerDesc        string   `json:"stickerDesc,omitempty" jsonschema:"description=sticker-upload: its description"`
	StickerTags        string   `json:"stickerTags,omitempty" jsonschema:"description=sticker-upload: a related emoji name for autocomplete"`
	EventName          string   `json:"eventName,omitempty" jsonschema:"description=event-create: the event's name"`
	StartTime          string   `json:"startTime,omitempty" jsonschema:"description=event-create: when it starts (RFC 3339)"`
	EndTime            string   `json:"endTime,omitempty" jsonschema:"description=event-create: when it ends (RFC 3339; required for external events)"`
	Desc               string   `json:"desc,omitempty" jsonschema:"description=event-create: description"`
	Location           string   `json:"location,omitempty" jsonschema:"description=event-create: where (an external event)"`
	EventType          string   `json:"eventType,omitempty" jsonschema:"enum=voice,enum=stage,enum=external,description=event-create: kind of event (default external with a location, else voice)"`
	EventChannelID     string   `json:"eventChannelId,omitempty" jsonschema:"description=event-create: the voice or stage channel it happens in"`
}

// ownerActions change who is in a chat, what they may do, or what its
// server holds: the tool runs them only for the owner, so a chat stranger
// (or a model their message talked into it) cannot ban or promote anyone.
var ownerActions = map[string]bool{
	"timeout": true, "kick": true, "ban": true, "role-add": true, "role-remove": true,
	"emoji-upload": true, "sticker-upload": true, "event-create": true,
}

// OwnerOnlyAction reports whether action runs only for the owner.
func OwnerOnlyAction(action string) bool { return ownerActions[action] }

// SendFileArgs are send_file's arguments.
type SendFileArgs struct {
	Path    string `json:"path" jsonschema:"description=File in your workspace to send"`
	Caption string `json:"caption,omitempty" jsonschema:"description=Text sent with the file"`
}

// Tools returns the message tool and send_file. workspace maps a caller
// to its workspace directory.
func Tools(m Messenger, workspace func(tools.Who) (string, error)) []tools.Tool {
	msg := tools.NewTyped(tools.Spec{
		Name: "message", Label: "Message",
		Description: "Act on the chat this conversation is in (or, outside a chat, a channel and target you name): send, react, edit, delete, pin, unpin, poll, read, reactions, list-pins, threads, channel and member info, roles, emoji, stickers, events and more where the network supports them. timeout, kick, ban, role-add, role-remove, uploads and event-create run only for the owner.",
		Source:      tools.SourceCore,
	}, func(ctx context.Context, c tools.Call, a Args) (tools.Result, error) {
		if ownerActions[a.Action] && !c.Who.Owner {
			return tools.Result{}, fmt.Errorf("%s changes members or the server: only the owner may ask for it", a.Action)
		}
		to, err := target(ctx, m, c.Who, a.Channel, a.AccountID, a.Target, a.ThreadID)
		if err != nil {
			return tools.Result{}, err
		}
		params := map[string]any{}
		if a.Media != "" && (a.Action == "emoji-upload" || a.Action == "sticker-upload") {
			copyPath, _, _, err := workspaceCopy(workspace, c.Who, a.Media)
			if err != nil {
				return tools.Result{}, fmt.Errorf("%s media: %w", a.Action, err)
			}
			params["media"] = copyPath
		} else if a.Media != "" {
			if a.Action != "send" && a.Action != "thread-reply" {
				return tools.Result{}, fmt.Errorf("media goes with send or thread-reply, not %s", a.Action)
			}
			text, err := sendWorkspaceFile(ctx, m, workspace, c, to, a.Media, a.Message)
			if err != nil {
				return tools.Result{}, fmt.Errorf("%s media: %w", a.Action, err)
			}
			return tools.Result{Text: text}, nil
		}
		set := func(k, v string) {
			if v != "" {
				params[k] = v
			}
		}
		set("message", a.Message)
		set("messageId", a.MessageID)
		set("emoji", a.Emoji)
		set("question", a.Question)
		set("userId", a.UserID)
		set("threadName", a.ThreadName)
		set("before", a.Before)
		set("after", a.After)
		set("query", a.Query)
		set("roleId", a.RoleID)
		set("until", a.Until)
		set("reason", a.Reason)
		set("eventName", a.EventName)
		set("startTime", a.StartTime)
		set("endTime", a.EndTime)
		set("desc", a.Desc)
		set("location", a.Location)
		set("eventType", a.EventType)
		set("eventChannelId", a.EventChannelID)
		set("emojiName", a.EmojiName)
		set("stickerName", a.StickerName)
		set("stickerDesc", a.StickerDesc)
		set("stickerTags", a.StickerTags)
		setNum := func(k string, v int) {
			if v != 0 {
				params[k] = float64(v)
			}
		}
		setNum("limit", a.Limit)
		setNum("durationMinutes", a.DurationMinutes)
		setNum("deleteDays", a.DeleteDays)
		setNum("autoArchiveMinutes", a.AutoArchiveMinutes)
		if len(a.StickerID) > 0 {
			ids := make([]any, len(a.StickerID))
			for i, id := range a.StickerID {
				ids[i] = id
			}
			params["stickerId"] = ids
		}
		if len(a.Options) > 0 {
			opts := make([]any, len(a.Options))
			for i, o := range a.Options {
				opts[i] = o
			}
			params["options"] = opts
		}
		res, err := m.Act(ctx, to, a.Action, params, c.Who.RunID+":"+c.ID)
		if err != nil {
			return tools.Result{}, err
		}
		return tools.Result{Text: fmt.Sprintf("%s done: %v", a.Action, res)}, nil
	})
	sendFile := tools.NewTyped(tools.Spec{
		Name: "send_file", Label: "Send file",
		Description: "Send a file from your workspace (up to 20 MB) as a native attachment to the chat this conversation is in.",
		Source:      tools.SourceCore, Groups: []string{"group:messaging", "group:mateclaw"},
	}, func(ctx context.Context, c tools.Call, a SendFileArgs) (tools.Result, error) {
		to, err := target(ctx, m, c.Who, "", "", "", "")
		if err != nil {
			return tools.Result{}, err
		}
		text, err := sendWorkspaceFile(ctx, m, workspace, c, to, a.Path, a.Caption)
		if err != nil {
			return tools.Result{}, fmt.Errorf("send_file: %w", err)
		}
		return tools.Result{Text: text}, nil
	})
	return []tools.Tool{msg, sendFile}
}

// workspaceCopy confines file p to the caller's workspace (CheckFile)
// and returns a private copy's path, its workspace path and size. The
// copy is read through the workspace root: the path itself could be
// swapped for a symlink between this check and the upload, which happens
// later (and again on retries).
func workspaceCopy(workspace func(tools.Who) (string, error), who tools.Who, p string) (copyPath, rel string, size int64, err error) {
	dir, err := workspace(who)
	if err != nil {
		return "", "", 0, err
	}
	ws, err := wsfs.OpenWorkspace(dir)
	if err != nil {
		return "", "", 0, err
	}
	defer ws.Close()
	if rel, size, err = CheckFile(ws, p); err != nil {
		return "", "", 0, err
	}
	copyPath, err = snapshot(ws, rel)
	return copyPath, rel, size, err
}

// sendWorkspaceFile sends file p of the caller's workspace, confined as
// CheckFile says, with caption.
func sendWorkspaceFile(ctx context.Context, m Messenger, workspace func(tools.Who) (string, error), c tools.Call, to Conversation, p, caption string) (string, error) {
	copyPath, rel, size, err := workspaceCopy(workspace, c.Who, p)
	if err != nil {
		return "", err
	}
	res, err := m.SendFile(ctx, to, copyPath, caption, c.Who.RunID+":"+c.ID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("sent %s (%d bytes): %v", path.Base(rel), size, res), nil
}

// CheckFile is the confinement of a file to send: p, relative to the
// workspace or absolute inside it, must name a regular file reached
// through the workspace root (no link leads out) of at most MaxFileBytes.
// It returns the path relative to the workspace and the size. The CLI's
// message send --media uses it too, so both send the same files.
func CheckFile(ws *wsfs.Workspace, p string) (rel string, size int64, err error) {
	rel, err = ws.Rel(p)
	if err != nil {
		return "", 0, err
	}
	st, err := ws.Root().Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", 0, fmt.Errorf("%s does not exist in the workspace", p)
	case err != nil:
		return "", 0, err
	case st.IsDir():
		return "", 0, fmt.Errorf("%s is a directory; send one file", p)
	case !st.Mode().IsRegular():
		return "", 0, fmt.Errorf("%s is not a regular file", p)
	case st.Size() > MaxFileBytes:
		return "", 0, fmt.Errorf("%s is %.1f MB; the limit is 20 MB", p, float64(st.Size())/(1<<20))
	}
	return rel, st.Size(), nil
}

// target resolves where a call goes. In a session bound to a chat only
// that chat is allowed, so a prompt-injected model cannot message
// strangers; elsewhere the caller must name channel and target.
func target(ctx context.Context, m Messenger, who tools.Who, channel, account, chat, thread string) (Conversation, error) {
	conv, bound, err := m.Conversation(ctx, who.SessionKey, who.RunID)
	if err != nil {
		return Conversation{}, err
	}
	if bound {
		if (channel != "" && channel != conv.Channel) || (account != "" && account != conv.AccountID) || (chat != "" && chat != conv.ChatID) {
			return Conversation{}, fmt.Errorf("this conversation is %s chat %s: messages from it may only go to that chat", conv.Channel, conv.ChatID)
		}
		if thread != "" {
			conv.ThreadID = thread
		}
		return conv, nil
	}
	if chat == "" {
		return Conversation{}, errors.New("this session is not a chat conversation: name a channel and a target")
	}
	return Conversation{Channel: channel, AccountID: account, ChatID: chat, ThreadID: thread}, nil
}

// snapshot copies a workspace file (through the os.Root, so no link can
// lead outside) to a private temp file keeping its base name, and returns
// the copy's path.
func snapshot(ws *wsfs.Workspace, rel string) (string, error) {
	src, err := ws.Open(rel)
	if err != nil {
		return "", err
	}
	defer src.Close()
	dir, err := os.MkdirTemp("", "openclaw-send-")
	if err != nil {
		return "", err
	}
	dst := filepath.Join(dir, path.Base(rel))
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	_, err = io.Copy(f, io.LimitReader(src, MaxFileBytes+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return dst, err
}
