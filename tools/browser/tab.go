package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// consoleKeep is how many console messages a tab remembers.
const consoleKeep = 200

// tab is one page target the tool drives.
type tab struct {
	b      *instance
	id     target.ID
	ctx    context.Context // the tab's chromedp context; cancelling closes the tab
	cancel context.CancelFunc

	// work receives dialogs, which need a command in reply; the listener
	// may not send commands itself (it runs on the tab's reader).
	work chan any

	mu      sync.Mutex
	refs    map[string]cdp.BackendNodeID // from the last snapshot
	console []ConsoleMessage             // ring, oldest first
	dialog  *dialogReply                 // armed answer to the next dialog
	// loaded is closed while the main frame is not loading, and replaced
	// by an open channel when a navigation starts (a click that submits a
	// form, a script setting location).
	loaded chan struct{}
}

// ConsoleMessage is one console call of a page.
type ConsoleMessage struct {
	Level string    `json:"level"`
	Text  string    `json:"text"`
	Time  time.Time `json:"time"`
}

type dialogReply struct {
	accept     bool
	promptText string
}

func newTab(b *instance, id target.ID, ctx context.Context, cancel context.CancelFunc) *tab {
	loaded := make(chan struct{})
	close(loaded)
	return &tab{b: b, id: id, ctx: ctx, cancel: cancel, work: make(chan any, 256), loaded: loaded}
}

// setLoading records the main frame starting or stopping a load.
func (t *tab) setLoading(loading bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-t.loaded:
		if loading {
			t.loaded = make(chan struct{})
		}
	default:
		if !loading {
			close(t.loaded)
		}
	}
}

// settle waits, at most max, for a navigation under way to finish.
// Chromium never answers a screenshot asked for between a navigation's
// start and its commit, so captures wait here first. A page that never
// stops loading (a long poll, a stalled subresource) only costs max.
func (t *tab) settle(ctx context.Context, max time.Duration) {
	t.mu.Lock()
	loaded := t.loaded
	t.mu.Unlock()
	timer := time.NewTimer(max)
	defer timer.Stop()
	select {
	case <-loaded:
	case <-timer.C:
	case <-ctx.Done():
	}
}

// arm subscribes to the tab's console and dialog events. (Requests are
// guarded browser-wide; see instance.guard.)
func (t *tab) arm(context.Context) error {
	if err := chromedp.Listen(t.ctx, t.onEvent); err != nil {
		return fmt.Errorf("listen on tab: %w", err)
	}
	go t.worker()
	return nil
}

// onEvent runs on the tab's reader goroutine: it records and queues, and
// never sends a command.
func (t *tab) onEvent(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		t.addConsole(string(ev.Type), consoleText(ev.Args))
	case *runtime.EventExceptionThrown:
		text := ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil && ev.ExceptionDetails.Exception.Description != "" {
			text = ev.ExceptionDetails.Exception.Description
		}
		t.addConsole("error", text)
	case *page.EventFrameStartedLoading:
		if ev.FrameID == cdp.FrameID(t.id) { // a page's main frame has its target's id
			t.setLoading(true)
		}
	case *page.EventFrameStoppedLoading:
		if ev.FrameID == cdp.FrameID(t.id) {
			t.setLoading(false)
		}
	case *page.EventJavascriptDialogOpening:
		select {
		case t.work <- ev:
		default:
			// A full queue means the worker is stuck; a request left
			// paused fails with the page, which is safe.
		}
	}
}

// worker answers dialogs.
func (t *tab) worker() {
	for {
		select {
		case <-t.ctx.Done():
			return
		case ev := <-t.work:
			if ev, ok := ev.(*page.EventJavascriptDialogOpening); ok {
				t.answerDialog(ev)
			}
		}
	}
}

func (t *tab) answerDialog(ev *page.EventJavascriptDialogOpening) {
	t.mu.Lock()
	reply := t.dialog
	t.dialog = nil
	t.mu.Unlock()
	// An unarmed dialog would stall the page and every later command, so
	// it is dismissed and reported instead.
	p := page.HandleJavaScriptDialogParams{Accept: false}
	how := "dismissed (not armed)"
	if reply != nil {
		p.Accept, p.PromptText = reply.accept, reply.promptText
		how = map[bool]string{true: "accepted", false: "dismissed"}[reply.accept]
	}
	ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
	defer cancel()
	if _, err := chromedp.Call(ctx, page.HandleJavaScriptDialog, p); err != nil {
		t.b.log.Warn("answer dialog", "err", err)
		how = "could not be answered: " + err.Error()
	}
	t.addConsole("dialog", fmt.Sprintf("%s: %s (%s)", ev.Type, ev.Message, how))
}

func (t *tab) armDialog(accept bool, promptText string) {
	t.mu.Lock()
	t.dialog = &dialogReply{accept: accept, promptText: promptText}
	t.mu.Unlock()
}

func (t *tab) addConsole(level, text string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.console = append(t.console, ConsoleMessage{Level: level, Text: text, Time: time.Now().UTC()})
	if len(t.console) > consoleKeep {
		t.console = append(t.console[:0:0], t.console[len(t.console)-consoleKeep:]...)
	}
}

// consoleMessages returns the remembered messages at level (all when
// empty; "warn" matches "warning").
func (t *tab) consoleMessages(level string) []ConsoleMessage {
	level = strings.ToLower(level)
	if level == "warn" {
		level = "warning"
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := []ConsoleMessage{}
	for _, m := range t.console {
		if level == "" || m.Level == level {
			out = append(out, m)
		}
	}
	return out
}

func consoleText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		switch {
		case a == nil:
		case len(a.Value) > 0:
			var s string
			if json.Unmarshal(a.Value, &s) == nil {
				parts = append(parts, s)
			} else {
				parts = append(parts, string(a.Value))
			}
		case a.UnserializableValue != "":
			parts = append(parts, string(a.UnserializableValue))
		case a.Description != "":
			parts = append(parts, a.Description)
		default:
			parts = append(parts, string(a.Type))
		}
	}
	return strings.Join(parts, " ")
}

func (t *tab) setRefs(refs map[string]cdp.BackendNodeID) {
	t.mu.Lock()
	t.refs = refs
	t.mu.Unlock()
}

// ref resolves a ref of the last snapshot to its DOM node.
func (t *tab) ref(ref string) (cdp.BackendNodeID, error) {
	ref = strings.TrimPrefix(strings.TrimSpace(ref), "ref=")
	if ref == "" {
		return 0, fmt.Errorf("a ref is needed (take a snapshot; refs look like e12)")
	}
	if _, err := strconv.Atoi(ref); err == nil {
		// OpenClaw's "ai" snapshots number their refs (12); ours are the
		// same numbers with an e.
		ref = "e" + ref
	}
	t.mu.Lock()
	id, ok := t.refs[ref]
	t.mu.Unlock()
	if !ok {
		return 0, staleRef(ref)
	}
	return id, nil
}

func staleRef(ref string) error {
	return fmt.Errorf("ref %s is not in the current snapshot of this tab or no longer on the page: take a new snapshot and use its refs", ref)
}

// bound derives a context for one call's commands from the tab's.
func (t *tab) bound(call context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return boundTo(t.ctx, call, d)
}

func (t *tab) gone() bool {
	if t.ctx.Err() != nil {
		return true
	}
	ch, err := chromedp.Detached(t.ctx)
	if err != nil {
		return true
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// close stops driving the tab; closeTab has closed the target.
func (t *tab) close() { t.cancel() }

// detach forgets the tab without waiting on the browser, for a browser
// that is about to stop.
func (t *tab) detach() { t.cancel() }
