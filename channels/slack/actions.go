package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	slackapi "github.com/slack-go/slack"

	"github.com/openclaw-go/openclaw/channels"
)

// Edit replaces the text of one of the bot's messages (chat.update).
func (a *Adapter) Edit(ctx context.Context, to channels.Target, messageID, text string) error {
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	_, _, _, err := a.api.UpdateMessageContext(cctx, to.ChatID, messageID, slackapi.MsgOptionText(ToMrkdwn(text), false))
	return a.classify(cctx, "chat.update", err)
}

// Delete removes one of the bot's messages (chat.delete).
func (a *Adapter) Delete(ctx context.Context, to channels.Target, messageID string) error {
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	_, _, err := a.api.DeleteMessageContext(cctx, to.ChatID, messageID)
	return a.classify(cctx, "chat.delete", err)
}

// React adds the bot's reaction to a message (reactions.add). emoji is a
// Slack emoji name ("thumbsup"); surrounding colons are dropped. Adding a
// reaction the bot already added is not an error.
func (a *Adapter) React(ctx context.Context, to channels.Target, messageID, emoji string) error {
	name := strings.Trim(strings.TrimSpace(emoji), ":")
	if name == "" {
		return fmt.Errorf("slack: react: removing reactions: %w", channels.ErrUnsupported)
	}
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	err := a.classify(cctx, "reactions.add", a.api.AddReactionContext(cctx, name, slackapi.NewRefToMessage(to.ChatID, messageID)))
	if isCode(err, "already_reacted") {
		return nil
	}
	return err
}

// Typing is not available to bots: Slack's Web API has no typing
// indicator (the RTM API that had one is closed to new apps). Rather than
// fake one with a placeholder message, it reports ErrUnsupported, which
// the pipeline treats as "no indicator".
func (a *Adapter) Typing(ctx context.Context, to channels.Target) error {
	return fmt.Errorf("slack: typing indicator: %w", channels.ErrUnsupported)
}

// Pin pins a message to its channel (pins.add). Pinning a pinned message
// is not an error.
func (a *Adapter) Pin(ctx context.Context, to channels.Target, messageID string) error {
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	err := a.classify(cctx, "pins.add", a.api.AddPinContext(cctx, to.ChatID, slackapi.NewRefToMessage(to.ChatID, messageID)))
	if isCode(err, "already_pinned") {
		return nil
	}
	return err
}

// Unpin unpins a message (pins.remove). Unpinning a message that is not
// pinned is not an error.
func (a *Adapter) Unpin(ctx context.Context, to channels.Target, messageID string) error {
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	err := a.classify(cctx, "pins.remove", a.api.RemovePinContext(cctx, to.ChatID, slackapi.NewRefToMessage(to.ChatID, messageID)))
	if isCode(err, "no_pin") {
		return nil
	}
	return err
}

// AnswerCallback answers a button press. Slack already stopped the
// spinner when the interaction was acknowledged; a non-empty text is
// shown to the presser only, through the press's response_url (the
// callback id). Only Slack's own hosts (or the configured API host) are
// posted to.
func (a *Adapter) AnswerCallback(ctx context.Context, callbackID, text string) error {
	if text == "" || !strings.Contains(callbackID, "://") {
		return nil // nothing to show, or a trigger id without a response_url
	}
	if !a.trustedURL(callbackID) {
		return fmt.Errorf("slack: answer callback: response_url host is not Slack's")
	}
	body, err := json.Marshal(map[string]any{
		"text": ToMrkdwn(text), "response_type": "ephemeral", "replace_original": false,
	})
	if err != nil {
		return err
	}
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodPost, callbackID, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("slack: answer callback: bad response_url")
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		// The URL carries a one-time secret: never quote it.
		return a.classify(cctx, "response_url", fmt.Errorf("post failed: %w", redactURLError(err)))
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return a.classify(cctx, "response_url", slackapi.StatusCodeError{Code: resp.StatusCode, Status: resp.Status})
	}
	return nil
}

// ChatInfo returns Slack's conversation object (conversations.info).
func (a *Adapter) ChatInfo(ctx context.Context, chatID string) (map[string]any, error) {
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	ch, err := a.api.GetConversationInfoContext(cctx, &slackapi.GetConversationInfoInput{ChannelID: chatID, IncludeNumMembers: true})
	if err != nil {
		return nil, a.classify(cctx, "conversations.info", err)
	}
	return toMap(ch)
}

// MemberInfo returns Slack's user object for userID (users.info); chatID
// is not needed on Slack.
func (a *Adapter) MemberInfo(ctx context.Context, chatID, userID string) (map[string]any, error) {
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	u, err := a.api.GetUserInfoContext(cctx, userID)
	if err != nil {
		return nil, a.classify(cctx, "users.info", err)
	}
	return toMap(u)
}

// FetchMedia downloads an inbound file: m.FileID is its url_private
// (download) URL, fetched with the bot token as bearer. The token is only
// ever sent to Slack's hosts (or the configured API host), and more than
// maxBytes is refused with ErrTooLarge (MediaMaxMb when maxBytes <= 0).
func (a *Adapter) FetchMedia(ctx context.Context, m channels.Media, maxBytes int64) (io.ReadCloser, error) {
	if maxBytes <= 0 {
		maxBytes = int64(a.opts.MediaMaxMb) << 20
	}
	if m.Size > maxBytes {
		return nil, fmt.Errorf("slack: file %q is %d bytes, over the %d byte cap: %w", m.Name, m.Size, maxBytes, ErrTooLarge)
	}
	if !a.trustedURL(m.FileID) {
		return nil, fmt.Errorf("slack: file %q: not a Slack file URL; the token is not sent there", m.Name)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.FileID, nil)
	if err != nil {
		return nil, fmt.Errorf("slack: file %q: bad URL", m.Name)
	}
	req.Header.Set("Authorization", "Bearer "+a.opts.BotToken)
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, a.classify(ctx, "files.download", redactURLError(err))
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, a.classify(ctx, "files.download", slackapi.StatusCodeError{Code: resp.StatusCode, Status: resp.Status})
	}
	if resp.ContentLength > maxBytes {
		resp.Body.Close()
		return nil, fmt.Errorf("slack: file %q is %d bytes, over the %d byte cap: %w", m.Name, resp.ContentLength, maxBytes, ErrTooLarge)
	}
	return &cappedBody{r: io.LimitReader(resp.Body, maxBytes+1), c: resp.Body, left: maxBytes}, nil
}

// cappedBody fails with ErrTooLarge once more than its cap was read.
type cappedBody struct {
	r    io.Reader
	c    io.Closer
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n + int(b.left), fmt.Errorf("slack: download: %w", ErrTooLarge)
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.c.Close() }

// trustedURL reports whether raw is an https URL on a Slack host, or on
// the configured API URL's scheme and host (a test fake).
func (a *Adapter) trustedURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if u.Scheme == "https" && (host == "slack.com" || strings.HasSuffix(host, ".slack.com")) {
		return true
	}
	api, err := url.Parse(a.opts.APIURL)
	return err == nil && api.Host != "" && u.Scheme == api.Scheme && strings.EqualFold(u.Host, api.Host)
}

// redactURLError drops the URL from a transport error (response URLs and
// file URLs carry secrets of their own).
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s: %w", ue.Op, ue.Err)
	}
	return err
}

func isCode(err error, code string) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == code
}

func toMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	err = json.Unmarshal(b, &out)
	return out, err
}

// OpenDirect returns the DM conversation with userID (conversations.open):
// Slack posts to a user id too, but into the app's home DM only once the
// conversation exists, so it is opened first.
func (a *Adapter) OpenDirect(ctx context.Context, userID string) (string, error) {
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	ch, _, _, err := a.api.OpenConversationContext(cctx, &slackapi.OpenConversationParameters{Users: []string{userID}, ReturnIM: true})
	if err != nil {
		return "", a.classify(cctx, "conversations.open", err)
	}
	if ch == nil || ch.ID == "" {
		return "", fmt.Errorf("slack conversations.open for %s: no channel id", userID)
	}
	return ch.ID, nil
}
