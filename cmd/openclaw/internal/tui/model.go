package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// Options configure a Model.
type Options struct {
	URL            string // the gateway, shown in the header
	SessionKey     string // "" for the agent's main session; "main" means agent:<agent>:main
	AgentID        string // "" for the gateway's default agent
	HistoryLimit   int    // history messages loaded on attach (0: 200)
	InitialMessage string // sent once the session is loaded
	Deliver        bool   // shown in the footer; delivery itself is the backend's
	Thinking       string // shown in the footer
	// NewID makes the last part of a /new session's key.
	NewID func() string
	// PickSession opens the session picker at start (openclaw resume).
	PickSession bool
}

type entryKind int

const (
	entryUser entryKind = iota
	entryAssistant
	entrySystem
	entryError
	entryTool
)

// entry is one block of the chat log. Its text is kept as it came and
// sanitized when drawn, so an escape sequence split across deltas is
// still seen whole.
type entry struct {
	kind   entryKind
	text   string
	tool   string // tool name
	args   string
	status string // running, done, failed
}

type pickerKind int

const (
	pickSession pickerKind = iota + 1
	pickAgent
	pickModel
)

type pickItem struct{ value, label string }

// picker is an overlay list with a type-to-filter line.
type picker struct {
	kind   pickerKind
	title  string
	items  []pickItem
	filter string
	cursor int
}

func (p *picker) visible() []pickItem {
	if p.filter == "" {
		return p.items
	}
	f := strings.ToLower(p.filter)
	var out []pickItem
	for _, it := range p.items {
		if strings.Contains(strings.ToLower(it.value+" "+it.label), f) {
			out = append(out, it)
		}
	}
	return out
}

// Model is the TUI's state. Create it with New and run it with
// tea.NewProgram.
type Model struct {
	ctx  context.Context
	b    Backend
	opts Options

	width, height int
	vp            viewport.Model
	input         textinput.Model

	agents     Agents
	agentID    string
	sessionKey string
	model      string // the session's model override set from here

	entries []entry
	runs    map[string]int // run id -> entry of its current assistant text
	tools   map[string]int // tool call id -> its entry
	active  string         // the run under way in this session ("" none)
	busy    bool           // a send is on its way (no run id yet)
	status  string

	approvals      []Approval // pending approvals of this session, oldest first
	approvalOpen   bool       // the approval prompt has the keys
	approvalChoice int

	picker      *picker
	lastCtrlC   bool
	expandTools bool
	sentInitial bool
	quitting    bool
}

// decisions are the answers of the approval prompt, in its order.
var decisions = []struct{ key, label, decision string }{
	{"a", "Allow once", "allow-once"},
	{"A", "Allow always", "allow-always"},
	{"d", "Deny", "deny"},
}

const denyChoice = 2

// New returns a Model that talks to b. ctx bounds every backend call.
func New(ctx context.Context, b Backend, opts Options) Model {
	if opts.HistoryLimit <= 0 {
		opts.HistoryLimit = 200
	}
	in := textinput.New()
	in.Prompt = "› "
	in.Placeholder = "Message, or /help"
	in.CharLimit = 0
	// A steady cursor: blinking would wake the program twice a second
	// for nothing.
	in.Cursor.SetMode(cursor.CursorStatic)
	in.Focus()
	return Model{
		ctx: ctx, b: b, opts: opts,
		width: 80, height: 24,
		vp:     viewport.New(80, 18),
		input:  in,
		runs:   map[string]int{},
		tools:  map[string]int{},
		status: "connecting",
	}
}

// Messages of the model's commands.
type (
	agentsMsg struct {
		agents Agents
		err    error
	}
	historyMsg struct {
		key  string
		msgs []Message
		err  error
	}
	sentMsg struct {
		key   string
		runID string
		err   error
	}
	eventMsg  Event
	closedMsg struct{}
	noticeMsg struct {
		text string
		err  error
	}
	sessionsMsg struct {
		list []Session
		err  error
	}
	agentPickMsg struct {
		agents Agents
		err    error
	}
	modelsMsg struct {
		list []string
		err  error
	}
	modelSetMsg struct {
		key, model string
		err        error
	}
	resetMsg struct {
		key string
		err error
	}
	resolvedMsg struct {
		id, decision string
		err          error
	}
)

// Init loads the agent list, which names the session. Events are not
// the model's to wait for: Run hands them in, so Update never blocks
// and tests drive the model message by message.
func (m Model) Init() tea.Cmd {
	if m.opts.PickSession {
		return tea.Batch(m.loadAgents(), m.openSessions())
	}
	return m.loadAgents()
}

// Run shows the TUI on the terminal of opts until the user leaves or
// ctx ends, feeding it b's events.
func Run(ctx context.Context, b Backend, o Options, opts ...tea.ProgramOption) error {
	p := tea.NewProgram(New(ctx, b, o), append([]tea.ProgramOption{tea.WithContext(ctx)}, opts...)...)
	go func() {
		for ev := range b.Events() {
			p.Send(eventMsg(ev))
		}
		p.Send(closedMsg{})
	}()
	_, err := p.Run()
	if err != nil && ctx.Err() != nil {
		return nil // interrupted: not a failure of the TUI
	}
	return err
}

func (m Model) loadAgents() tea.Cmd {
	b, ctx := m.b, m.ctx
	return func() tea.Msg {
		a, err := b.Agents(ctx)
		return agentsMsg{agents: a, err: err}
	}
}

func (m Model) loadHistory() tea.Cmd {
	b, ctx, key, n := m.b, m.ctx, m.sessionKey, m.opts.HistoryLimit
	return func() tea.Msg {
		msgs, err := b.History(ctx, key, n)
		return historyMsg{key: key, msgs: msgs, err: err}
	}
}

func (m Model) send(text string) tea.Cmd {
	b, ctx, key := m.b, m.ctx, m.sessionKey
	return func() tea.Msg {
		id, err := b.Send(ctx, key, text)
		return sentMsg{key: key, runID: id, err: err}
	}
}

func (m Model) abort() tea.Cmd {
	b, ctx, key, run := m.b, m.ctx, m.sessionKey, m.active
	return func() tea.Msg {
		if err := b.Abort(ctx, key, run); err != nil {
			return noticeMsg{err: fmt.Errorf("abort: %w", err)}
		}
		return nil
	}
}

func (m Model) resolve(id, decision string) tea.Cmd {
	b, ctx := m.b, m.ctx
	return func() tea.Msg {
		return resolvedMsg{id: id, decision: decision, err: b.ResolveApproval(ctx, id, decision)}
	}
}

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := m.update(msg)
	m.layout()
	return m, cmd
}

func (m Model) update(msg tea.Msg) (Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyMsg:
		return m.key(msg)
	case agentsMsg:
		if msg.err != nil {
			m.status = "error"
			m.system(entryError, "could not list agents: "+msg.err.Error())
			break
		}
		m.agents = msg.agents
		m.agentID = m.opts.AgentID
		if m.agentID == "" {
			m.agentID = msg.agents.DefaultID
		}
		key := m.opts.SessionKey
		if key == "" {
			key = msg.agents.MainKey
			if key == "" {
				key = "main"
			}
		}
		m.switchSession(m.expandKey(key))
		cmds = append(cmds, m.loadHistory())
	case historyMsg:
		if msg.key != m.sessionKey {
			break // an answer for a session left meanwhile
		}
		if msg.err != nil {
			m.status = "error"
			m.system(entryError, "could not load history: "+msg.err.Error())
		} else {
			m.status = "idle"
			for _, h := range msg.msgs {
				switch h.Role {
				case "user":
					m.entries = append(m.entries, entry{kind: entryUser, text: h.Text})
				case "assistant":
					m.entries = append(m.entries, entry{kind: entryAssistant, text: h.Text})
				}
			}
		}
		if !m.sentInitial && m.opts.InitialMessage != "" {
			m.sentInitial = true
			cmds = append(cmds, m.submit(m.opts.InitialMessage))
		}
	case sentMsg:
		if msg.key != m.sessionKey {
			break
		}
		m.busy = false
		if msg.err != nil {
			m.status = "error"
			m.system(entryError, "send failed: "+msg.err.Error())
			break
		}
		if _, done := m.runs[msg.runID]; !done || m.active == "" {
			m.active = msg.runID
		}
	case eventMsg:
		m.event(Event(msg))
	case closedMsg:
		m.status = "disconnected"
		m.active = ""
		m.system(entryError, "disconnected from the gateway")
	case noticeMsg:
		if msg.err != nil {
			m.system(entryError, msg.err.Error())
		} else if msg.text != "" {
			m.system(entrySystem, msg.text)
		}
	case sessionsMsg:
		if msg.err != nil {
			m.system(entryError, "could not list sessions: "+msg.err.Error())
			break
		}
		p := &picker{kind: pickSession, title: "Sessions of " + m.agentID}
		for _, s := range msg.list {
			p.items = append(p.items, pickItem{value: s.Key, label: s.Label})
		}
		m.picker = p
	case agentPickMsg:
		if msg.err != nil {
			m.system(entryError, "could not list agents: "+msg.err.Error())
			break
		}
		m.agents = msg.agents
		p := &picker{kind: pickAgent, title: "Agents"}
		for _, a := range msg.agents.List {
			p.items = append(p.items, pickItem{value: a.ID, label: a.Name})
		}
		m.picker = p
	case modelsMsg:
		if msg.err != nil {
			m.system(entryError, "could not list models: "+msg.err.Error())
			break
		}
		p := &picker{kind: pickModel, title: "Models", items: []pickItem{{value: "default", label: "clear the session's override"}}}
		for _, name := range msg.list {
			p.items = append(p.items, pickItem{value: name})
		}
		m.picker = p
	case modelSetMsg:
		if msg.err != nil {
			m.system(entryError, "could not set the model: "+msg.err.Error())
			break
		}
		if msg.key == m.sessionKey {
			m.model = msg.model
		}
		if msg.model == "" {
			m.system(entrySystem, "model override of "+msg.key+" cleared")
		} else {
			m.system(entrySystem, "model for "+msg.key+" is now "+msg.model)
		}
	case resetMsg:
		if msg.err != nil {
			m.system(entryError, "could not reset "+msg.key+": "+msg.err.Error())
			break
		}
		if msg.key == m.sessionKey {
			m.switchSession(msg.key)
			m.system(entrySystem, "session "+msg.key+" reset")
		}
	case resolvedMsg:
		if msg.err != nil {
			m.system(entryError, "could not answer approval "+shortID(msg.id)+": "+msg.err.Error())
			break
		}
		m.dropApproval(msg.id)
		m.system(entrySystem, "approval "+shortID(msg.id)+": "+msg.decision)
	}
	return m, tea.Batch(cmds...)
}

// key handles a key press: the open picker or approval prompt takes
// it first, then the global keys, then the composer.
func (m Model) key(k tea.KeyMsg) (Model, tea.Cmd) {
	ctrlC := k.Type == tea.KeyCtrlC
	twice := ctrlC && m.lastCtrlC
	m.lastCtrlC = ctrlC
	if twice || k.Type == tea.KeyCtrlD {
		m.quitting = true
		return m, tea.Quit
	}
	if m.picker != nil {
		return m.pickerKey(k)
	}
	if m.approvalOpen && len(m.approvals) > 0 {
		if cmd, handled := m.approvalKey(k); handled {
			return m, cmd
		}
	}
	switch k.Type {
	case tea.KeyCtrlC:
		m.input.Reset()
		var cmd tea.Cmd
		if m.active != "" {
			cmd = m.abort()
			m.status = "aborting"
		}
		m.system(entrySystem, "press Ctrl+C again to exit (Ctrl+D exits too)")
		return m, cmd
	case tea.KeyEsc:
		if m.active != "" {
			m.status = "aborting"
			return m, m.abort()
		}
		return m, nil
	case tea.KeyCtrlP:
		return m, m.openSessions()
	case tea.KeyCtrlG:
		return m, m.openAgents()
	case tea.KeyCtrlL:
		return m, m.openModels()
	case tea.KeyCtrlO:
		m.expandTools = !m.expandTools
		return m, nil
	case tea.KeyPgUp:
		m.vp.PageUp()
		return m, nil
	case tea.KeyPgDown:
		m.vp.PageDown()
		return m, nil
	case tea.KeyEnter:
		text := m.input.Value()
		m.input.Reset()
		if strings.TrimSpace(text) == "" {
			return m, nil
		}
		return m, m.submit(text)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return m, cmd
}

func (m *Model) pickerKey(k tea.KeyMsg) (Model, tea.Cmd) {
	p := m.picker
	items := p.visible()
	switch k.Type {
	case tea.KeyEsc, tea.KeyCtrlC:
		if p.filter != "" {
			p.filter, p.cursor = "", 0
		} else {
			m.picker = nil
		}
	case tea.KeyUp:
		if p.cursor > 0 {
			p.cursor--
		}
	case tea.KeyDown:
		if p.cursor < len(items)-1 {
			p.cursor++
		}
	case tea.KeyBackspace:
		if r := []rune(p.filter); len(r) > 0 {
			p.filter, p.cursor = string(r[:len(r)-1]), 0
		}
	case tea.KeyRunes, tea.KeySpace:
		p.filter += string(k.Runes)
		p.cursor = 0
	case tea.KeyEnter:
		if p.cursor >= len(items) {
			return *m, nil
		}
		m.picker = nil
		return *m, m.pick(p.kind, items[p.cursor].value)
	}
	return *m, nil
}

// pick acts on a picker's choice.
func (m *Model) pick(kind pickerKind, value string) tea.Cmd {
	switch kind {
	case pickSession:
		m.switchSession(value)
		return m.loadHistory()
	case pickAgent:
		m.agentID = value
		main := m.agents.MainKey
		if main == "" {
			main = "main"
		}
		m.switchSession(m.expandKey(main))
		return m.loadHistory()
	case pickModel:
		return m.setModel(value)
	}
	return nil
}

func (m *Model) approvalKey(k tea.KeyMsg) (tea.Cmd, bool) {
	a := m.approvals[0]
	choose := func(i int) tea.Cmd {
		m.approvalOpen = len(m.approvals) > 1
		m.approvalChoice = denyChoice
		return m.resolve(a.ID, decisions[i].decision)
	}
	switch k.Type {
	case tea.KeyEsc:
		m.approvalOpen = false
		m.system(entrySystem, "approval "+shortID(a.ID)+" still waits: /approvals reopens it")
		return nil, true
	case tea.KeyLeft, tea.KeyShiftTab:
		m.approvalChoice = (m.approvalChoice + len(decisions) - 1) % len(decisions)
		return nil, true
	case tea.KeyRight, tea.KeyTab:
		m.approvalChoice = (m.approvalChoice + 1) % len(decisions)
		return nil, true
	case tea.KeyEnter:
		return choose(m.approvalChoice), true
	case tea.KeyRunes:
		for i, d := range decisions {
			if string(k.Runes) == d.key {
				return choose(i), true
			}
		}
		return nil, true // the prompt has the keys: typing goes nowhere
	}
	return nil, false
}

// submit handles a line from the composer: a command of the TUI's own,
// or a message (a slash command the TUI does not know goes to the
// gateway, which answers its own commands).
func (m *Model) submit(text string) tea.Cmd {
	if m.sessionKey == "" {
		m.system(entryError, "not connected to a session yet")
		return nil
	}
	line := strings.TrimSpace(text)
	if strings.HasPrefix(line, "/") && !strings.Contains(line, "\n") {
		name, arg, _ := strings.Cut(line[1:], " ")
		arg = strings.TrimSpace(arg)
		if cmd, handled := m.command(strings.ToLower(name), arg); handled {
			return cmd
		}
	}
	m.entries = append(m.entries, entry{kind: entryUser, text: text})
	m.busy = true
	m.status = "running"
	return m.send(text)
}

// helpText lists the TUI's own commands and keys.
const helpText = `Commands:
  /help                      this help
  /status                    the session's status (answered by the gateway)
  /new                       a fresh session under a new key
  /reset                     reset the current session in place
  /abort, /stop              abort the running answer
  /model <provider/model|default>   set (or clear) the session's model; /models picks one
  /agent <id>, /agents       switch agent (picker without an id)
  /session <key>, /sessions  switch session (picker without a key)
  /approve <id> allow-once|allow-always|deny, /approvals
  /quit, /exit               leave
Other slash commands (/think, /verbose, /usage, ...) go to the gateway.
Keys: Enter send · Esc abort · Ctrl+C clear/abort (twice: exit) · Ctrl+D exit
      Ctrl+P sessions · Ctrl+G agents · Ctrl+L models · Ctrl+O tool output · PgUp/PgDn scroll`

func (m *Model) command(name, arg string) (tea.Cmd, bool) {
	switch name {
	case "help", "?":
		m.system(entrySystem, helpText)
	case "quit", "exit":
		m.quitting = true
		return tea.Quit, true
	case "new":
		id := "x"
		if m.opts.NewID != nil {
			id = m.opts.NewID()
		}
		m.switchSession(m.expandKey("tui-" + id))
		m.system(entrySystem, "new session "+m.sessionKey)
		return m.loadHistory(), true
	case "reset":
		b, ctx, key := m.b, m.ctx, m.sessionKey
		return func() tea.Msg { return resetMsg{key: key, err: b.Reset(ctx, key)} }, true
	case "abort", "stop":
		if m.active == "" && !m.busy {
			m.system(entrySystem, "nothing is running")
			return nil, true
		}
		m.status = "aborting"
		return m.abort(), true
	case "status":
		// The gateway answers /status with the session's summary; what
		// only this end knows is added here.
		run := "idle"
		if m.active != "" {
			run = "running " + m.active
		}
		m.system(entrySystem, fmt.Sprintf("gateway %s · agent %s · session %s · %s · %d pending approval(s)",
			m.opts.URL, m.agentID, m.sessionKey, run, len(m.approvals)))
		return nil, false
	case "model", "models":
		if arg == "" {
			return m.openModels(), true
		}
		return m.setModel(arg), true
	case "agent", "agents":
		if arg == "" {
			return m.openAgents(), true
		}
		m.agentID = strings.ToLower(arg)
		main := m.agents.MainKey
		if main == "" {
			main = "main"
		}
		m.switchSession(m.expandKey(main))
		return m.loadHistory(), true
	case "session", "sessions":
		if arg == "" {
			return m.openSessions(), true
		}
		m.switchSession(m.expandKey(arg))
		return m.loadHistory(), true
	case "approve":
		f := strings.Fields(arg)
		if len(f) != 2 {
			m.system(entryError, "usage: /approve <id> allow-once|allow-always|deny")
			return nil, true
		}
		id := f[0]
		for _, a := range m.approvals {
			if strings.HasPrefix(a.ID, id) {
				id = a.ID
				break
			}
		}
		return m.resolve(id, f[1]), true
	case "approvals":
		if len(m.approvals) == 0 {
			m.system(entrySystem, "no approval waits")
		} else {
			m.approvalOpen = true
		}
	default:
		return nil, false
	}
	return nil, true
}

func (m *Model) setModel(name string) tea.Cmd {
	if name == "default" {
		name = ""
	}
	b, ctx, key := m.b, m.ctx, m.sessionKey
	return func() tea.Msg { return modelSetMsg{key: key, model: name, err: b.SetModel(ctx, key, name)} }
}

func (m *Model) openSessions() tea.Cmd {
	b, ctx, agent := m.b, m.ctx, m.agentID
	return func() tea.Msg {
		list, err := b.Sessions(ctx, agent)
		return sessionsMsg{list: list, err: err}
	}
}

func (m *Model) openAgents() tea.Cmd {
	b, ctx := m.b, m.ctx
	return func() tea.Msg {
		a, err := b.Agents(ctx)
		return agentPickMsg{agents: a, err: err}
	}
}

func (m *Model) openModels() tea.Cmd {
	b, ctx := m.b, m.ctx
	return func() tea.Msg {
		list, err := b.Models(ctx)
		return modelsMsg{list: list, err: err}
	}
}

// expandKey makes a full session key of what the user typed: "main"
// is the current agent's, "agent:x:y" and "global" are taken as they
// are.
func (m *Model) expandKey(key string) string {
	if m.agents.Scope == "global" {
		return "global"
	}
	if strings.HasPrefix(key, "agent:") || key == "global" {
		return strings.ToLower(key)
	}
	return "agent:" + m.agentID + ":" + strings.ToLower(key)
}

// switchSession starts showing key: the log, the runs and the approvals
// seen are of the session left.
func (m *Model) switchSession(key string) {
	m.sessionKey = key
	if rest, ok := strings.CutPrefix(key, "agent:"); ok {
		if agent, _, ok := strings.Cut(rest, ":"); ok {
			m.agentID = agent
		}
	}
	m.entries = nil
	m.runs = map[string]int{}
	m.tools = map[string]int{}
	m.active, m.busy = "", false
	m.approvals, m.approvalOpen = nil, false
	m.model = ""
	m.status = "loading"
}

// event applies one gateway event to the session shown.
func (m *Model) event(ev Event) {
	switch ev.Kind {
	case EventApproval:
		if ev.Approval.SessionKey != m.sessionKey || ev.Approval.ID == "" {
			return
		}
		for _, a := range m.approvals {
			if a.ID == ev.Approval.ID {
				return
			}
		}
		m.approvals = append(m.approvals, ev.Approval)
		if !m.approvalOpen {
			m.approvalChoice = denyChoice
		}
		m.approvalOpen = true
		m.status = "waiting for approval"
		return
	case EventApprovalResolved:
		m.dropApproval(ev.Approval.ID)
		return
	}
	if ev.SessionKey != m.sessionKey {
		return
	}
	switch ev.Kind {
	case EventDelta:
		i, ok := m.runs[ev.RunID]
		if !ok {
			m.entries = append(m.entries, entry{kind: entryAssistant})
			i = len(m.entries) - 1
			m.runs[ev.RunID] = i
		}
		if ev.Replace {
			m.entries[i].text = ""
			m.system(entrySystem, "retrying with another model")
			// the notice went after the text: keep streaming into a
			// fresh entry below it.
			m.entries = append(m.entries, entry{kind: entryAssistant})
			m.runs[ev.RunID] = len(m.entries) - 1
			i = len(m.entries) - 1
		}
		m.entries[i].text += ev.Text
		if m.active == "" {
			m.active = ev.RunID
		}
		m.status = "streaming"
	case EventToolStart:
		delete(m.runs, ev.RunID) // text after the tool goes below its card
		m.entries = append(m.entries, entry{kind: entryTool, tool: ev.ToolName, args: ev.ToolArgs, status: "running"})
		m.tools[ev.ToolID] = len(m.entries) - 1
		if m.active == "" {
			m.active = ev.RunID
		}
		m.status = "running " + ev.ToolName
	case EventToolResult:
		i, ok := m.tools[ev.ToolID]
		if !ok {
			m.entries = append(m.entries, entry{kind: entryTool, tool: ev.ToolName, args: ev.ToolArgs})
			i = len(m.entries) - 1
		}
		m.entries[i].status = "done"
		if ev.ToolError {
			m.entries[i].status = "failed"
		}
		m.entries[i].text = ev.Text
		delete(m.tools, ev.ToolID)
		m.status = "running"
	case EventFinal, EventAborted, EventError:
		i, ok := m.runs[ev.RunID]
		switch ev.Kind {
		case EventFinal:
			if ok && ev.Text != "" {
				m.entries[i].text = ev.Text
			} else if !ok && ev.Text != "" {
				m.entries = append(m.entries, entry{kind: entryAssistant, text: ev.Text})
			}
		case EventAborted:
			m.system(entrySystem, "aborted")
		case EventError:
			m.system(entryError, "error: "+ev.Text)
		}
		delete(m.runs, ev.RunID)
		for id, i := range m.tools {
			if m.entries[i].status == "running" {
				m.entries[i].status = "stopped"
			}
			delete(m.tools, id)
		}
		if m.active == ev.RunID || m.active == "" {
			m.active = ""
			m.busy = false
			m.status = "idle"
			if ev.Kind == EventError {
				m.status = "error"
			}
		}
	}
}

func (m *Model) dropApproval(id string) {
	for i, a := range m.approvals {
		if a.ID == id {
			m.approvals = append(m.approvals[:i:i], m.approvals[i+1:]...)
			break
		}
	}
	if len(m.approvals) == 0 {
		m.approvalOpen = false
		if m.active != "" {
			m.status = "running"
		}
	}
}

func (m *Model) system(kind entryKind, text string) {
	m.entries = append(m.entries, entry{kind: kind, text: text})
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// Styles. lipgloss leaves them out where the terminal has no colours.
var (
	styleHeader = lipgloss.NewStyle().Bold(true)
	styleUser   = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("12"))
	styleSystem = lipgloss.NewStyle().Faint(true)
	styleError  = lipgloss.NewStyle().Foreground(lipgloss.Color("9"))
	styleTool   = lipgloss.NewStyle().Foreground(lipgloss.Color("11"))
	styleBox    = lipgloss.NewStyle().Border(lipgloss.NormalBorder()).Padding(0, 1)
	styleChoice = lipgloss.NewStyle().Reverse(true)
)

// layout sizes the log to what the other parts leave of the screen and
// fills it.
func (m *Model) layout() {
	w := max(m.width, 20)
	fixed := 4 // header, status, input, footer
	if box := m.approvalBox(w); box != "" {
		fixed += lipgloss.Height(box)
	}
	h := max(m.height-fixed, 3)
	atBottom := m.vp.AtBottom() || m.vp.TotalLineCount() == 0
	m.vp.Width, m.vp.Height = w, h
	if m.picker != nil {
		m.vp.SetContent(m.pickerView(w, h))
		m.vp.GotoTop()
		return
	}
	m.vp.SetContent(m.logView(w))
	if atBottom {
		m.vp.GotoBottom()
	}
}

func (m *Model) logView(w int) string {
	var b strings.Builder
	wrap := lipgloss.NewStyle().Width(w)
	for i, e := range m.entries {
		if i > 0 {
			b.WriteByte('\n')
		}
		text := Sanitize(e.text)
		switch e.kind {
		case entryUser:
			b.WriteString(styleUser.Width(w).Render("you: " + text))
		case entryAssistant:
			b.WriteString(wrap.Render(text))
		case entrySystem:
			b.WriteString(styleSystem.Width(w).Render("· " + text))
		case entryError:
			b.WriteString(styleError.Width(w).Render("! " + text))
		case entryTool:
			mark := map[string]string{"running": "…", "done": "✓", "failed": "✗", "stopped": "■"}[e.status]
			line := fmt.Sprintf("⚙ %s %s %s", Sanitize(e.tool), e.status, mark)
			if m.expandTools {
				if e.args != "" {
					line += "\n  args: " + clip(Sanitize(e.args), 2000)
				}
				if text != "" {
					line += "\n  result: " + clip(text, 4000)
				}
			} else if e.args != "" {
				line += " " + clip(strings.ReplaceAll(Sanitize(e.args), "\n", " "), max(w-len(line)-2, 10))
			}
			b.WriteString(styleTool.Width(w).Render(line))
		}
	}
	return b.String()
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func (m *Model) pickerView(w, h int) string {
	p := m.picker
	var b strings.Builder
	fmt.Fprintf(&b, "%s  (type to filter, ↑/↓, Enter picks, Esc closes)\n", p.title)
	fmt.Fprintf(&b, "filter: %s\n", Sanitize(p.filter))
	items := p.visible()
	if len(items) == 0 {
		b.WriteString(styleSystem.Render("(none)"))
	}
	start := 0
	if p.cursor >= h-2 {
		start = p.cursor - (h - 3)
	}
	for i := start; i < len(items) && i-start < h-2; i++ {
		line := Sanitize(items[i].value)
		if items[i].label != "" && items[i].label != items[i].value {
			line += "  " + styleSystem.Render(Sanitize(items[i].label))
		}
		line = clip(line, w-2)
		if i == p.cursor {
			b.WriteString(styleChoice.Render("> " + line))
		} else {
			b.WriteString("  " + line)
		}
		if i < len(items)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func (m *Model) approvalBox(w int) string {
	if !m.approvalOpen || len(m.approvals) == 0 {
		return ""
	}
	a := m.approvals[0]
	var b strings.Builder
	fmt.Fprintf(&b, "Approval required (id %s): %s wants to run", shortID(a.ID), Sanitize(a.Tool))
	if a.Args != "" {
		b.WriteString("\nargs: " + clip(Sanitize(a.Args), 600))
	}
	if a.Reason != "" {
		b.WriteString("\nwhy: " + clip(Sanitize(a.Reason), 300))
	}
	b.WriteString("\n")
	for i, d := range decisions {
		label := "[" + d.key + "] " + d.label
		if i == m.approvalChoice {
			label = styleChoice.Render(label)
		}
		b.WriteString(label + "  ")
	}
	b.WriteString(styleSystem.Render("←/→ Enter · Esc later"))
	if n := len(m.approvals) - 1; n > 0 {
		fmt.Fprintf(&b, "\n(%d more waiting)", n)
	}
	return styleBox.Width(w - 2).Render(b.String())
}

// shortKey is the session's key as the user would type it.
func (m *Model) shortKey() string {
	if rest, ok := strings.CutPrefix(m.sessionKey, "agent:"+m.agentID+":"); ok {
		return rest
	}
	return m.sessionKey
}

// View draws the screen.
func (m Model) View() string {
	if m.quitting {
		return ""
	}
	w := max(m.width, 20)
	conn := "connected"
	if m.status == "connecting" || m.status == "disconnected" {
		conn = m.status
	}
	header := clip(fmt.Sprintf("openclaw tui · %s · %s · agent %s · session %s",
		Sanitize(m.opts.URL), conn, Sanitize(m.agentID), Sanitize(m.shortKey())), w)
	parts := []string{styleHeader.Render(header), m.vp.View()}
	if box := m.approvalBox(w); box != "" {
		parts = append(parts, box)
	}
	model := m.model
	if model == "" {
		model = "default"
	}
	think := m.opts.Thinking
	if think == "" {
		think = "default"
	}
	deliver := "off"
	if m.opts.Deliver {
		deliver = "on"
	}
	parts = append(parts,
		styleSystem.Render(clip("status: "+m.status, w)),
		m.input.View(),
		styleSystem.Render(clip(fmt.Sprintf("agent %s · session %s · model %s · think %s · deliver %s · /help",
			Sanitize(m.agentID), Sanitize(m.sessionKey), Sanitize(model), Sanitize(think), deliver), w)))
	return strings.Join(parts, "\n")
}
