package slack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	slackapi "github.com/slack-go/slack"

	"github.com/openclaw-go/openclaw/channels"
)

// Block Kit limits.
const (
	sectionTextLimit = 3000 // characters of one section's text
	buttonTextLimit  = 75   // characters of a button label
	buttonValueLimit = 2000 // characters of a button value
	actionsPerBlock  = 25   // elements of one actions block
	maxBlocks        = 50   // blocks of one message
)

// ActionIDPrefix starts the action_id of every button the adapter sends.
const ActionIDPrefix = "openclaw_btn"

// Send delivers msg: the text as mrkdwn with chat.postMessage (buttons as
// a Block Kit actions block under a section carrying the text), then each
// attachment through Slack's external upload flow into the same thread.
// The message goes into To.ThreadID, or, when that is empty, into the
// thread of ReplyToID (Slack's way of replying to a message). Sent is the
// ts of the text message ("" when only files were sent).
func (a *Adapter) Send(ctx context.Context, msg channels.Outbound) (channels.Sent, error) {
	if msg.To.ChatID == "" {
		return channels.Sent{}, errors.New("slack: send: no channel id")
	}
	hasText := strings.TrimSpace(msg.Text) != ""
	if !hasText && len(msg.Attachments) == 0 {
		return channels.Sent{}, errors.New("slack: send: empty message")
	}
	files, err := a.prepareFiles(msg.Attachments)
	if err != nil {
		return channels.Sent{}, err
	}
	thread := msg.To.ThreadID
	if thread == "" {
		thread = msg.ReplyToID
	}
	var sent channels.Sent
	if hasText {
		text := ToMrkdwn(msg.Text)
		opts := []slackapi.MsgOption{slackapi.MsgOptionText(text, false)}
		if len(msg.Buttons) > 0 {
			blocks, err := buttonBlocks(text, msg.Buttons)
			if err != nil {
				return channels.Sent{}, err
			}
			opts = append(opts, slackapi.MsgOptionBlocks(blocks...))
		}
		if thread != "" {
			opts = append(opts, slackapi.MsgOptionTS(thread))
		}
		opts = append(opts, a.unfurl()...)
		cctx, cancel := a.callCtx(ctx)
		_, ts, err := a.api.PostMessageContext(cctx, msg.To.ChatID, opts...)
		err = a.classify(cctx, "chat.postMessage", err)
		cancel()
		if err != nil {
			return channels.Sent{}, err
		}
		sent.MessageID = ts
	}
	for _, f := range files {
		if err := a.upload(ctx, msg.To.ChatID, thread, f); err != nil {
			return sent, err
		}
	}
	return sent, nil
}

// buttonBlocks lays out text and button rows as Block Kit: the text in
// sections of at most 3000 characters, then one actions block per row.
// A button's value is its Data and comes back as Inbound.CallbackData.
func buttonBlocks(text string, rows [][]channels.Button) ([]slackapi.Block, error) {
	var blocks []slackapi.Block
	for _, part := range splitRunes(text, sectionTextLimit) {
		blocks = append(blocks, slackapi.NewSectionBlock(slackapi.NewTextBlockObject(slackapi.MarkdownType, part, false, false), nil, nil))
	}
	for r, row := range rows {
		if len(row) == 0 {
			continue
		}
		if len(row) > actionsPerBlock {
			return nil, fmt.Errorf("slack: a button row has %d buttons, Slack allows %d", len(row), actionsPerBlock)
		}
		var elems []slackapi.BlockElement
		for i, b := range row {
			if len([]rune(b.Data)) > buttonValueLimit {
				return nil, fmt.Errorf("slack: button %q: value is %d characters, Slack allows %d", b.Text, len([]rune(b.Data)), buttonValueLimit)
			}
			label := truncateRunes(b.Text, buttonTextLimit)
			if strings.TrimSpace(label) == "" {
				label = "…"
			}
			actionID := ActionIDPrefix + "_" + strconv.Itoa(r) + "_" + strconv.Itoa(i)
			elems = append(elems, slackapi.NewButtonBlockElement(actionID, b.Data,
				slackapi.NewTextBlockObject(slackapi.PlainTextType, label, false, false)))
		}
		blocks = append(blocks, slackapi.NewActionBlock(ActionIDPrefix+"_row_"+strconv.Itoa(r), elems...))
	}
	if len(blocks) > maxBlocks {
		return nil, fmt.Errorf("slack: message needs %d blocks, Slack allows %d", len(blocks), maxBlocks)
	}
	return blocks, nil
}

// outFile is an attachment checked and ready to upload.
type outFile struct {
	path, name string
	size       int64
}

// prepareFiles checks every attachment before anything is sent, so a
// file over the cap refuses the whole message.
func (a *Adapter) prepareFiles(atts []channels.Attachment) ([]outFile, error) {
	var out []outFile
	for _, at := range atts {
		c, err := channels.CheckAttachment("slack", at, a.opts.MediaMaxMb, ErrTooLarge)
		if err != nil {
			return nil, err
		}
		if c.Size == 0 {
			return nil, fmt.Errorf("slack: attachment %q is empty; Slack refuses empty uploads", c.Name)
		}
		out = append(out, outFile{path: c.Path, name: c.Name, size: c.Size})
	}
	return out, nil
}

// upload sends one file with files.getUploadURLExternal, a POST to the
// upload URL and files.completeUploadExternal into channel (and thread).
func (a *Adapter) upload(ctx context.Context, channel, thread string, f outFile) error {
	fh, err := os.Open(f.path)
	if err != nil {
		return fmt.Errorf("slack: attachment %q: %w", f.name, err)
	}
	defer fh.Close()
	cctx, cancel := a.callCtx(ctx)
	defer cancel()
	_, err = a.api.UploadFileContext(cctx, slackapi.UploadFileParameters{
		Reader:          fh,
		FileSize:        int(f.size),
		Filename:        f.name,
		Title:           f.name,
		Channel:         channel,
		ThreadTimestamp: thread,
	})
	return a.classify(cctx, "files.upload", err)
}

// splitRunes cuts s into pieces of at most n runes, preferring line
// breaks.
func splitRunes(s string, n int) []string {
	var out []string
	for {
		r := []rune(s)
		if len(r) <= n {
			return append(out, s)
		}
		cut := n
		if i := strings.LastIndex(string(r[:n]), "\n"); i > 0 {
			cut = len([]rune(string(r[:n])[:i]))
		}
		out = append(out, string(r[:cut]))
		s = strings.TrimLeft(string(r[cut:]), "\n")
	}
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// unfurl is chat.postMessage's unfurl_links (always sent: false unless
// the account sets unfurlLinks) and unfurl_media (sent only to turn it
// off; Slack's default is on).
func (a *Adapter) unfurl() []slackapi.MsgOption {
	opts := []slackapi.MsgOption{slackapi.MsgOptionDisableLinkUnfurl()}
	if a.opts.UnfurlLinks {
		opts[0] = slackapi.MsgOptionEnableLinkUnfurl()
	}
	if a.opts.NoMediaUnfurl {
		opts = append(opts, slackapi.MsgOptionDisableMediaUnfurl())
	}
	return opts
}
