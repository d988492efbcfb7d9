package channels

import (
	"context"
	"sync"
	"time"

	"github.com/openclaw-go/openclaw/speech"
)

// preview shows a reply while it is written (streaming.mode "partial"):
// one message, sent once the answer has begun and edited as it grows,
// then edited into the reply's first message, so the chat sees one
// message rather than a draft and a copy.
type preview struct {
	ad       Adapter
	ed       Editor
	to       Target
	replyTo  string
	limit    int
	interval time.Duration

	mu   sync.Mutex
	text string // latest text heard

	kick    chan struct{}
	stop    chan struct{}
	stopped chan struct{}
	id      string // the preview message, "" until sent; owned by run, then finish
	shown   string
	// filter turns the text heard into the text shown, at each edit
	// (not at each delta: it may read the whole text).
	filter func(string) string
}

// newPreview starts a preview for a reply in to, or returns nil when the
// account does not stream partial replies or its network cannot edit.
func (m *Manager) newPreview(ctx context.Context, a *account, p AccountPolicy, in Inbound) *preview {
	if p.StreamMode != "partial" {
		return nil
	}
	ad := a.adapterNow()
	ed, ok := ad.(Editor)
	if !ok {
		return nil
	}
	pv := &preview{ad: ad, ed: ed, to: Target{ChatID: in.Chat.ID, ThreadID: in.Chat.ThreadID}, limit: p.TextLimit,
		interval: m.opts.PreviewInterval, kick: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
	if p.ReplyToMode != "off" && in.Chat.Kind != Direct {
		pv.replyTo = in.MessageID
	}
	if pv.interval == 0 {
		pv.interval = time.Second // about what the networks let one chat edit
	}
	if pv.interval < 0 {
		pv.interval = 0
	}
	if m.opts.Speech != nil {
		// The preview shows what the final reply will: no [[tts:...]]
		// tags, no audio-only text.
		pv.filter = func(text string) string {
			visible, _ := speech.ParseDirectives(text)
			return visible
		}
	}
	go pv.run(ctx)
	return pv
}

// update hears the answer so far; it never blocks the model's stream.
func (p *preview) update(text string) {
	p.mu.Lock()
	p.text = text
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

func (p *preview) run(ctx context.Context) {
	defer close(p.stopped)
	for {
		select {
		case <-p.stop:
			return
		case <-ctx.Done():
			return
		case <-p.kick:
		}
		p.mu.Lock()
		text := p.text
		p.mu.Unlock()
		if p.filter != nil {
			text = p.filter(text)
		}
		if limit := p.limit; limit > 0 {
			if parts := Chunk(text, limit, ChunkLength); len(parts) > 0 {
				text = parts[0]
			}
		}
		if text == "" || text == p.shown {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		if p.id == "" {
			if sent, err := p.ad.Send(cctx, Outbound{To: p.to, Text: text, ReplyToID: p.replyTo, Silent: true}); err == nil {
				p.id, p.shown = sent.MessageID, text
			}
		} else if err := p.ed.Edit(cctx, p.to, p.id, text); err == nil {
			p.shown = text
		}
		cancel()
		if p.interval > 0 {
			t := time.NewTimer(p.interval)
			select {
			case <-t.C:
			case <-p.stop:
				t.Stop()
				return
			case <-ctx.Done():
				t.Stop()
				return
			}
		}
	}
}

// finish stops the preview and turns it into the reply: the first
// message is edited in place and the rest returned to be sent; with no
// reply (or one the edit cannot carry) the preview is deleted.
func (p *preview) finish(ctx context.Context, outs []Outbound) []Outbound {
	close(p.stop)
	<-p.stopped
	if p.id == "" {
		return outs
	}
	if len(outs) > 0 && len(outs[0].Attachments) == 0 && len(outs[0].Buttons) == 0 {
		if err := p.ed.Edit(ctx, p.to, p.id, outs[0].Text); err == nil {
			return outs[1:]
		}
	}
	if d, ok := p.ad.(Deleter); ok {
		_ = d.Delete(ctx, p.to, p.id) // best effort: the full reply follows
	}
	return outs
}
