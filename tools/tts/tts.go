// Package tts is the tts tool: the model turns text into speech, sent to
// the chat the conversation is in as a voice note (Telegram, WhatsApp,
// Discord) or an audio file elsewhere. It reaches the speech providers
// and the chat through a Speaker the gateway implements, so the tool
// itself holds no key and knows no network.
package tts

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// Speaker synthesizes text under the calling agent's tts settings and
// sends it to the caller's conversation. It fails when the caller is not
// in a chat, when the text is over tts.maxTextLength, or when the
// provider refuses (the error says why in plain words: quota, key).
type Speaker interface {
	SpeakTo(ctx context.Context, who tools.Who, text string, timeout time.Duration, idempotencyKey string) (sent string, err error)
}

// Args are the tts tool's arguments.
type Args struct {
	Text      string `json:"text" jsonschema:"description=What to say (plain text; at most tts.maxTextLength characters, 4096 by default)"`
	Channel   string `json:"channel,omitempty" jsonschema:"description=Accepted for OpenClaw's shape; the voice note always goes to this conversation's chat"`
	TimeoutMs int    `json:"timeoutMs,omitempty" jsonschema:"description=Provider request timeout in milliseconds (default tts.timeoutMs, 30000)"`
}

// maxTimeout bounds a call's own timeoutMs.
const maxTimeout = 10 * time.Minute

// Tool returns the tts tool; nil speaker gives a tool that says speech is
// not available here.
func Tool(s Speaker) tools.Tool {
	return tools.NewTyped(tools.Spec{
		Name: "tts", Label: "Text to speech",
		Description: "Say text aloud: it is sent to this chat as a voice message (Telegram, WhatsApp, Discord) or an audio file, through the configured speech provider (tts.provider).",
		Source:      tools.SourceCore, Groups: []string{"group:media"},
	}, func(ctx context.Context, c tools.Call, a Args) (tools.Result, error) {
		text := strings.TrimSpace(a.Text)
		if text == "" {
			return tools.Result{}, fmt.Errorf("tts: text is required")
		}
		if s == nil {
			return tools.Result{}, fmt.Errorf("tts: speech is not available in this gateway")
		}
		timeout := min(time.Duration(max(a.TimeoutMs, 0))*time.Millisecond, maxTimeout)
		sent, err := s.SpeakTo(ctx, c.Who, text, timeout, c.Who.RunID+":"+c.ID)
		if err != nil {
			return tools.Result{}, err
		}
		return tools.Result{Text: "voice message sent: " + sent}, nil
	})
}
