package tui

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// fakeBackend records what the model asks of the gateway.
type fakeBackend struct {
	mu       sync.Mutex
	calls    []string
	history  map[string][]Message
	sessions []Session
	agents   Agents
	models   []string
	sendErr  error
	runs     int
}

func newFake() *fakeBackend {
	return &fakeBackend{
		agents:  Agents{DefaultID: "main", MainKey: "main", List: []Agent{{ID: "main", Name: "Main"}, {ID: "ops", Name: "Ops"}}},
		history: map[string][]Message{},
	}
}

func (f *fakeBackend) record(format string, a ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, a...))
}

func (f *fakeBackend) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeBackend) Send(_ context.Context, key, text string) (string, error) {
	f.record("send %s %q", key, text)
	if f.sendErr != nil {
		return "", f.sendErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs++
	return fmt.Sprintf("run-%d", f.runs), nil
}
func (f *fakeBackend) Abort(_ context.Context, key, runID string) error {
	f.record("abort %s %s", key, runID)
	return nil
}
func (f *fakeBackend) History(_ context.Context, key string, n int) ([]Message, error) {
	f.record("history %s %d", key, n)
	return f.history[key], nil
}
func (f *fakeBackend) Sessions(_ context.Context, agent string) ([]Session, error) {
	f.record("sessions %s", agent)
	return f.sessions, nil
}
func (f *fakeBackend) Agents(context.Context) (Agents, error) {
	f.record("agents")
	return f.agents, nil
}
func (f *fakeBackend) Models(context.Context) ([]string, error) {
	f.record("models")
	return f.models, nil
}
func (f *fakeBackend) SetModel(_ context.Context, key, model string) error {
	f.record("model %s %q", key, model)
	return nil
}
func (f *fakeBackend) Reset(_ context.Context, key string) error {
	f.record("reset %s", key)
	return nil
}
func (f *fakeBackend) ResolveApproval(_ context.Context, id, decision string) error {
	f.record("resolve %s %s", id, decision)
	return nil
}
func (f *fakeBackend) Events() <-chan Event { return nil }

// driver runs a Model as the program would: every command's message is
// fed back to Update until none is left.
type driver struct {
	t    *testing.T
	m    Model
	quit bool
}

func start(t *testing.T, b Backend, o Options) *driver {
	t.Helper()
	if o.NewID == nil {
		o.NewID = func() string { return "n1" }
	}
	d := &driver{t: t, m: New(context.Background(), b, o)}
	d.msg(tea.WindowSizeMsg{Width: 100, Height: 30})
	d.run(d.m.Init())
	return d
}

func (d *driver) msg(msg tea.Msg) {
	nm, cmd := d.m.Update(msg)
	d.m = nm.(Model)
	d.run(cmd)
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.QuitMsg:
		d.quit = true
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
	default:
		d.msg(msg)
	}
}

// keys types each of ks: a named key (enter, esc, ctrl+c, ...) or text.
func (d *driver) keys(ks ...string) {
	named := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "ctrl+c": tea.KeyCtrlC, "ctrl+d": tea.KeyCtrlD,
		"ctrl+p": tea.KeyCtrlP, "ctrl+g": tea.KeyCtrlG, "ctrl+l": tea.KeyCtrlL, "ctrl+o": tea.KeyCtrlO,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight, "backspace": tea.KeyBackspace,
	}
	for _, k := range ks {
		if kt, ok := named[k]; ok {
			d.msg(tea.KeyMsg{Type: kt})
			continue
		}
		for _, r := range k {
			d.msg(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		}
	}
}

func (d *driver) events(evs ...Event) {
	for _, ev := range evs {
		d.msg(eventMsg(ev))
	}
}

func (d *driver) view() string { return d.m.View() }

const mainKey = "agent:main:main"

func delta(run, text string) Event {
	return Event{Kind: EventDelta, RunID: run, SessionKey: mainKey, Text: text}
}

// TestKeysToBackend: what the user types becomes the right gateway calls.
func TestKeysToBackend(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		keys []string
		want []string // calls after attaching (agents, history)
		quit bool
	}{
		{name: "message", keys: []string{"hello", "enter"}, want: []string{`send agent:main:main "hello"`}},
		{name: "blank line sends nothing", keys: []string{"   ", "enter"}, want: nil},
		{name: "unknown slash command goes to the gateway", keys: []string{"/think high", "enter"},
			want: []string{`send agent:main:main "/think high"`}},
		{name: "status is also asked of the gateway", keys: []string{"/status", "enter"},
			want: []string{`send agent:main:main "/status"`}},
		{name: "model", keys: []string{"/model openai/gpt-5", "enter"}, want: []string{`model agent:main:main "openai/gpt-5"`}},
		{name: "model default clears", keys: []string{"/model default", "enter"}, want: []string{`model agent:main:main ""`}},
		{name: "new session", keys: []string{"/new", "enter"}, want: []string{"history agent:main:tui-n1 200"}},
		{name: "reset", keys: []string{"/reset", "enter"}, want: []string{"reset agent:main:main"}},
		{name: "session by short key", keys: []string{"/session work", "enter"}, want: []string{"history agent:main:work 200"}},
		{name: "session by full key", keys: []string{"/session agent:ops:x", "enter"}, want: []string{"history agent:ops:x 200"}},
		{name: "agent switch goes to its main session", keys: []string{"/agent ops", "enter"}, want: []string{"history agent:ops:main 200"}},
		{name: "abort with nothing running", keys: []string{"/abort", "enter"}, want: nil},
		{name: "esc aborts the running turn", keys: []string{"q", "enter", "esc"},
			want: []string{`send agent:main:main "q"`, "abort agent:main:main run-1"}},
		{name: "ctrl+c aborts the running turn", keys: []string{"q", "enter", "ctrl+c"},
			want: []string{`send agent:main:main "q"`, "abort agent:main:main run-1"}},
		{name: "/stop aborts", keys: []string{"q", "enter", "/stop", "enter"},
			want: []string{`send agent:main:main "q"`, "abort agent:main:main run-1"}},
		{name: "esc with nothing running does nothing", keys: []string{"esc"}, want: nil},
		{name: "ctrl+c twice quits", keys: []string{"ctrl+c", "ctrl+c"}, quit: true},
		{name: "ctrl+c then a key does not quit", keys: []string{"ctrl+c", "x", "ctrl+c"}},
		{name: "ctrl+d quits", keys: []string{"ctrl+d"}, quit: true},
		{name: "/quit quits", keys: []string{"/quit", "enter"}, quit: true},
		{name: "/exit quits", keys: []string{"/exit", "enter"}, quit: true},
		{name: "initial message", opts: Options{InitialMessage: "first"}, want: []string{`send agent:main:main "first"`}},
		{name: "--session main is the agent's", opts: Options{SessionKey: "main", AgentID: "ops"}, want: nil},
		{name: "approve by short id", keys: []string{"/approve 1234 deny", "enter"}, want: []string{"resolve 1234 deny"}},
		{name: "approve usage", keys: []string{"/approve 1234", "enter"}, want: nil},
		{name: "session picker", keys: []string{"ctrl+p"}, want: []string{"sessions main"}},
		{name: "agent picker", keys: []string{"ctrl+g"}, want: []string{"agents"}},
		{name: "model picker", keys: []string{"ctrl+l"}, want: []string{"models"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake()
			d := start(t, f, tt.opts)
			attach := len(f.Calls())
			d.keys(tt.keys...)
			got := f.Calls()[attach:]
			if tt.opts.InitialMessage != "" {
				got = f.Calls()[attach-1:]
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("calls %q, want %q", got, tt.want)
			}
			if d.quit != tt.quit {
				t.Fatalf("quit = %v, want %v", d.quit, tt.quit)
			}
		})
	}
}

// TestAttach: the session is named from agents.list and --session.
func TestAttach(t *testing.T) {
	tests := []struct {
		opts    Options
		agents  Agents
		history string
	}{
		{Options{}, Agents{DefaultID: "main", MainKey: "main"}, "history agent:main:main 200"},
		{Options{AgentID: "ops"}, Agents{DefaultID: "main", MainKey: "main"}, "history agent:ops:main 200"},
		{Options{SessionKey: "work", HistoryLimit: 5}, Agents{DefaultID: "main", MainKey: "main"}, "history agent:main:work 5"},
		{Options{SessionKey: "agent:x:y"}, Agents{DefaultID: "main", MainKey: "main"}, "history agent:x:y 200"},
		{Options{}, Agents{DefaultID: "main", MainKey: "home"}, "history agent:main:home 200"},
		{Options{SessionKey: "work"}, Agents{DefaultID: "main", MainKey: "main", Scope: "global"}, "history global 200"},
	}
	for _, tt := range tests {
		f := newFake()
		f.agents = tt.agents
		start(t, f, tt.opts)
		if got := f.Calls(); len(got) != 2 || got[1] != tt.history {
			t.Errorf("%+v: calls %q, want agents then %q", tt.opts, got, tt.history)
		}
	}
}

// TestEventsToView: what the gateway streams is what the screen shows.
func TestEventsToView(t *testing.T) {
	approval := Event{Kind: EventApproval, Approval: Approval{ID: "abcdef123456", SessionKey: mainKey, Tool: "exec", Args: "rm -rf /tmp/x", Reason: "guarded"}}
	tests := []struct {
		name   string
		events []Event
		want   []string
		absent []string
	}{
		{name: "deltas stream into one message",
			events: []Event{delta("r1", "Hel"), delta("r1", "lo wor"), delta("r1", "ld")},
			want:   []string{"Hello world", "status: streaming"}},
		{name: "final ends the run", events: []Event{delta("r1", "Hi"), {Kind: EventFinal, RunID: "r1", SessionKey: mainKey, Text: "Hi!"}},
			want: []string{"Hi!", "status: idle"}},
		{name: "a command's answer comes as a final only",
			events: []Event{{Kind: EventFinal, RunID: "r1", SessionKey: mainKey, Text: "Session: agent:main:main"}},
			want:   []string{"Session: agent:main:main"}},
		{name: "other sessions are not shown",
			events: []Event{{Kind: EventDelta, RunID: "r9", SessionKey: "agent:main:other", Text: "secret elsewhere"}},
			absent: []string{"secret elsewhere"}},
		{name: "tool running then done",
			events: []Event{{Kind: EventToolStart, RunID: "r1", SessionKey: mainKey, ToolID: "t1", ToolName: "web_fetch", ToolArgs: `{"url":"x"}`}},
			want:   []string{"⚙ web_fetch running", `{"url":"x"}`, "status: running web_fetch"}},
		{name: "tool result",
			events: []Event{
				{Kind: EventToolStart, RunID: "r1", SessionKey: mainKey, ToolID: "t1", ToolName: "web_fetch"},
				{Kind: EventToolResult, RunID: "r1", SessionKey: mainKey, ToolID: "t1", ToolName: "web_fetch", Text: "page"},
				delta("r1", "after the tool"),
			},
			want: []string{"⚙ web_fetch done ✓", "after the tool"}},
		{name: "failed tool", events: []Event{
			{Kind: EventToolStart, RunID: "r1", SessionKey: mainKey, ToolID: "t1", ToolName: "exec"},
			{Kind: EventToolResult, RunID: "r1", SessionKey: mainKey, ToolID: "t1", ToolName: "exec", ToolError: true},
		}, want: []string{"⚙ exec failed ✗"}},
		{name: "aborted", events: []Event{delta("r1", "partial"), {Kind: EventAborted, RunID: "r1", SessionKey: mainKey}},
			want: []string{"partial", "· aborted", "status: idle"}},
		{name: "error", events: []Event{{Kind: EventError, RunID: "r1", SessionKey: mainKey, Text: "model down"}},
			want: []string{"! error: model down", "status: error"}},
		{name: "fallback restarts the text", events: []Event{delta("r1", "first try"), {Kind: EventDelta, RunID: "r1", SessionKey: mainKey, Replace: true, Text: "second"}},
			want: []string{"retrying with another model", "second"}, absent: []string{"first try"}},
		{name: "approval prompt", events: []Event{approval},
			want: []string{"Approval required (id abcdef12): exec wants to run", "rm -rf /tmp/x", "why: guarded", "[a] Allow once", "[A] Allow always", "[d] Deny"}},
		{name: "another session's approval is not shown",
			events: []Event{{Kind: EventApproval, Approval: Approval{ID: "zz", SessionKey: "agent:main:other", Tool: "exec"}}},
			absent: []string{"Approval required"}},
		{name: "approval answered elsewhere closes", events: []Event{approval, {Kind: EventApprovalResolved, Approval: Approval{ID: "abcdef123456"}}},
			absent: []string{"Approval required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := start(t, newFake(), Options{})
			d.events(tt.events...)
			v := d.view()
			for _, w := range tt.want {
				if !strings.Contains(v, w) {
					t.Errorf("view lacks %q:\n%s", w, v)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(v, a) {
					t.Errorf("view shows %q:\n%s", a, v)
				}
			}
		})
	}
}

// TestApprovalKeys: the prompt takes the keys while it is open, answers
// with the choice and Deny is what Enter picks unless moved.
func TestApprovalKeys(t *testing.T) {
	ev := Event{Kind: EventApproval, Approval: Approval{ID: "abcdef123456", SessionKey: mainKey, Tool: "exec"}}
	tests := []struct {
		keys []string
		want string // the resolve call, "" none
	}{
		{[]string{"a"}, "resolve abcdef123456 allow-once"},
		{[]string{"A"}, "resolve abcdef123456 allow-always"},
		{[]string{"d"}, "resolve abcdef123456 deny"},
		{[]string{"enter"}, "resolve abcdef123456 deny"},
		{[]string{"left", "left", "enter"}, "resolve abcdef123456 allow-once"},
		{[]string{"right", "enter"}, "resolve abcdef123456 allow-once"},
		{[]string{"x", "y"}, ""},            // typing goes nowhere while it is open
		{[]string{"esc", "a", "enter"}, ""}, // collapsed: "a" is a message (sent), not an answer
		{[]string{"esc", "/approvals", "enter", "a"}, "resolve abcdef123456 allow-once"},
	}
	for _, tt := range tests {
		f := newFake()
		d := start(t, f, Options{})
		attach := len(f.Calls())
		d.events(ev)
		d.keys(tt.keys...)
		var got string
		for _, c := range f.Calls()[attach:] {
			if strings.HasPrefix(c, "resolve") {
				got = c
			}
		}
		if got != tt.want {
			t.Errorf("keys %q: resolve call %q, want %q (calls %q)", tt.keys, got, tt.want, f.Calls()[attach:])
		}
		if tt.want != "" && strings.Contains(d.view(), "Approval required") {
			t.Errorf("keys %q: the prompt stayed after the answer:\n%s", tt.keys, d.view())
		}
	}
}

// TestPickers: choosing in a picker switches session or agent, or sets
// the model; the filter narrows; Esc clears the filter, then closes.
func TestPickers(t *testing.T) {
	f := newFake()
	f.sessions = []Session{{Key: "agent:main:main"}, {Key: "agent:main:work", Label: "Work"}, {Key: "agent:main:play"}}
	f.models = []string{"fake/a", "fake/b"}
	d := start(t, f, Options{})

	d.keys("ctrl+p")
	if v := d.view(); !strings.Contains(v, "agent:main:work") || !strings.Contains(v, "Work") {
		t.Fatalf("session picker:\n%s", v)
	}
	d.keys("pla")
	if v := d.view(); strings.Contains(v, "agent:main:work") || !strings.Contains(v, "agent:main:play") {
		t.Fatalf("filter did not narrow:\n%s", v)
	}
	d.keys("esc")
	if v := d.view(); !strings.Contains(v, "agent:main:work") {
		t.Fatalf("first Esc did not clear the filter:\n%s", v)
	}
	d.keys("down", "enter")
	if c := f.Calls(); c[len(c)-1] != "history agent:main:work 200" {
		t.Fatalf("picking a session: calls %q", c)
	}
	if v := d.view(); !strings.Contains(v, "session work") {
		t.Fatalf("header does not name the picked session:\n%s", v)
	}

	d.keys("ctrl+g", "ops", "enter")
	if c := f.Calls(); c[len(c)-1] != "history agent:ops:main 200" {
		t.Fatalf("picking an agent: calls %q", c)
	}

	d.keys("ctrl+l", "down", "down", "enter")
	if c := f.Calls(); c[len(c)-1] != `model agent:ops:main "fake/b"` {
		t.Fatalf("picking a model: calls %q", c)
	}
	if v := d.view(); !strings.Contains(v, "model fake/b") {
		t.Fatalf("footer does not show the model:\n%s", v)
	}

	d.keys("ctrl+p", "esc")
	if d.m.picker != nil {
		t.Fatal("Esc did not close the picker")
	}
}

// TestSessionSwitchDropsRun: a /new while a run streams shows the new
// session empty; the old run's text does not leak into it.
func TestSessionSwitchDropsRun(t *testing.T) {
	f := newFake()
	f.history[mainKey] = []Message{{Role: "user", Text: "old question"}, {Role: "assistant", Text: "old answer"}}
	d := start(t, f, Options{})
	if v := d.view(); !strings.Contains(v, "you: old question") || !strings.Contains(v, "old answer") {
		t.Fatalf("history not shown:\n%s", v)
	}
	d.keys("q", "enter")
	d.events(delta("run-1", "streaming..."))
	d.keys("/new", "enter")
	d.events(delta("run-1", " more"))
	v := d.view()
	if strings.Contains(v, "old answer") || strings.Contains(v, "streaming") || strings.Contains(v, "more") {
		t.Fatalf("the old session leaks into the new one:\n%s", v)
	}
	if !strings.Contains(v, "new session agent:main:tui-n1") {
		t.Fatalf("no notice of the new session:\n%s", v)
	}
}

// TestSendErrorShown: a refused send is said, and the TUI is idle again.
func TestSendErrorShown(t *testing.T) {
	f := newFake()
	f.sendErr = errors.New("send denied by policy")
	d := start(t, f, Options{})
	d.keys("hi", "enter")
	if v := d.view(); !strings.Contains(v, "send failed: send denied by policy") {
		t.Fatalf("error not shown:\n%s", v)
	}
}

// sgr matches the only escape sequences the TUI may write: its own
// colours and styles.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// TestHostileTextInert performs the attack of a prompt-injected model or
// tool: its text, tool names, arguments, approval reasons and session
// labels carry terminal control sequences. With colours on (so the
// TUI's own styling is there too), nothing but SGR styling reaches the
// terminal, and the words around the sequences are still shown.
func TestHostileTextInert(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	hostile := []string{
		"\x1b]52;c;cHduZWQ=\x07",      // OSC 52: write the clipboard
		"\x1b]0;pwned\x07",            // window title
		"\x1b]2;pwned\x1b\\",          // title, ST-terminated
		"\x1b[2J\x1b[H",               // clear screen, cursor home
		"\x1b[10A",                    // cursor up
		"\x1bP+q544e\x1b\\",           // DCS query
		"\u009b31m",                   // 8-bit CSI
		"\u009d0;pwned\u009c",         // 8-bit OSC
		"\x1b]8;;http://evil\x07link", // hyperlink
		"\r",                          // overwrite the line
		"\x08\x08\x08",                // backspaces
		"\u202e",                      // right-to-left override
	}
	payload := "start " + strings.Join(hostile, " mid ") + " end"
	f := newFake()
	f.sessions = []Session{{Key: "agent:main:x", Label: payload}}
	d := start(t, f, Options{})
	d.events(
		delta("r1", payload[:9]), delta("r1", payload[9:]), // a sequence split across deltas
		Event{Kind: EventToolStart, RunID: "r1", SessionKey: mainKey, ToolID: "t", ToolName: "to\x1b]0;x\x07ol", ToolArgs: payload},
		Event{Kind: EventApproval, Approval: Approval{ID: "id1", SessionKey: mainKey, Tool: payload, Args: payload, Reason: payload}},
	)
	check := func(where, v string) {
		t.Helper()
		rest := sgr.ReplaceAllString(v, "")
		if i := strings.IndexFunc(rest, func(r rune) bool {
			return r == 0x1b || r == 0x07 || r == '\r' || r == 0x08 || (r >= 0x80 && r <= 0x9f) || r == 0x202e
		}); i >= 0 {
			t.Fatalf("%s: a control character reaches the terminal at %d: %q", where, i, rest[max(0, i-20):min(len(rest), i+20)])
		}
		if strings.Contains(rest, "pwned") {
			t.Fatalf("%s: the body of a hidden sequence is shown: %q", where, rest)
		}
		if !strings.Contains(rest, "start") || !strings.Contains(rest, "end") {
			t.Fatalf("%s: the text around the sequences is gone: %q", where, rest)
		}
	}
	check("log and approval", d.view())
	d.keys("esc", "ctrl+o")
	check("expanded tool", d.view())
	d.keys("ctrl+p")
	check("session picker", d.view())
}
