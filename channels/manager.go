package channels

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/speech"
)

// NativeCommands is the command menu published on networks that have
// one; the agents service acts on these texts (session.resetTriggers).
var NativeCommands = []Command{
	{Name: "new", Description: "Start a new session"},
	{Name: "reset", Description: "Reset this session"},
}

// Dispatcher hands a message to an agent and waits for its answer. The
// gateway implements it over the agents service.
type Dispatcher interface {
	// Dispatch runs one turn. RunID is the same when an event is processed
	// again after a restart; the dispatcher must then not store the
	// message a second time. A context error means "stopped, try again
	// later"; any other error is the run's failure.
	Dispatch(ctx context.Context, d Dispatch) (Reply, error)
}

// Dispatch is one message for an agent.
type Dispatch struct {
	AgentID           string
	SessionKey        string
	RunID             string
	Text              string
	ExtraSystemPrompt string
	Origin            Route
	SenderID          string
	// CommandsRefused: commands.allowFrom does not list the sender, so a
	// command-only message from them is ignored, not answered.
	CommandsRefused bool
	// ToolsAllow and ToolsDeny are the chat's tool limits (its group's or
	// direct chat's tools block); the run may use no tool outside them.
	ToolsAllow, ToolsDeny []string
	// Model is channels.modelByChannel's model for this chat ("" for
	// none); it applies while the session has no model of its own.
	Model string
	// OnText, when set, hears the answer as it is written (the chat's
	// streaming preview); it must not block.
	OnText func(text string)
	// OnTextStart, when set, is called as the answer's text streams (at
	// each piece, once there is text); the typing indicator of the
	// "message" typing mode starts there. It must not block.
	OnTextStart func()
	// OnNotice, when set, sends the chat a short notice while the turn
	// runs (agents.defaults.compaction.notifyUser). It returns once the
	// notice is queued.
	OnNotice func(text string)
	// Visible is how the answer reaches the chat: "" posts it,
	// VisibleMessageTool and VisibleRoomEvent keep it private (the agent
	// speaks through the message tool).
	Visible string
}

// The strict delivery modes of Dispatch.Visible.
const (
	VisibleMessageTool = "message_tool"
	VisibleRoomEvent   = "room_event"
)

// Steerer is implemented by a Dispatcher that can hand a message to a
// session's running turn (messages.queue.mode steer); false when no turn
// can take it.
type Steerer interface {
	Steer(sessionKey, text string) bool
}

// Aborter is implemented by a Dispatcher that can stop a session's
// running turn (messages.queue.mode interrupt).
type Aborter interface {
	Abort(sessionKey string) bool
}

// Reply is an agent's answer; empty Text sends nothing. Provider and
// Model name the model that gave it, for responsePrefix's variables.
type Reply struct {
	Text            string
	Provider, Model string
	// Private: the agent's final answer is not for the chat (Dispatch.Visible).
	Private bool
	// Command: the text answers a gateway command (/status, /tts): it is
	// shown, never spoken.
	Command bool
	// Speak is said once as a voice note after the answer (/tts audio),
	// whatever tts.auto says.
	Speak string
}

// Approver resolves a Tool Guard approval from a button press.
type Approver interface {
	ResolveApproval(ctx context.Context, p ApprovalPress) error
}

// ApprovalPress is one press of an approval button: the request and
// decision its data names, who pressed it and on which message, so the
// approver can check the button was one posted for that request.
type ApprovalPress struct {
	ID, Decision string
	// By is "<channel>:<sender id>".
	By                           string
	Channel, AccountID, SenderID string
	ChatID, MessageID            string
}

// Options configure a Manager.
type Options struct {
	Store      *store.Store
	Log        *slog.Logger
	Dispatcher Dispatcher
	Approver   Approver
	Networks   []Network
	// Mount and Unmount publish an adapter's webhook on the gateway port.
	Mount   func(path string, h http.Handler)
	Unmount func(path string)
	// DefaultAgent names the agent that answers when no binding matches.
	DefaultAgent func(cfg *config.Config) string
	// SkillCommands, when set, lists the agent's skills as menu commands
	// (commands.nativeSkills); nil publishes none.
	SkillCommands func(ctx context.Context, agentID string) []Command
	// AgentMentionPatterns returns an agent's groupChat.mentionPatterns.
	AgentMentionPatterns func(cfg *config.Config, agentID string) []string
	// TypingInterval repeats the typing indicator; default
	// agents.defaults.typingIntervalSeconds.
	TypingInterval time.Duration
	// MaxAttempts bounds deliveries of one message; default 8.
	MaxAttempts int
	// Workspace is an agent's workspace directory, where inbound
	// attachments are saved (under inbox/); nil keeps them unsaved.
	Workspace func(agentID string) (string, error)
	// Speech transcribes inbound voice (tools.media.audio) and speaks
	// replies (tts); nil turns both off.
	Speech *speech.Client
	// MediaMaxMb caps one saved attachment when agents.defaults.mediaMaxMb
	// is unset; default 20.
	MediaMaxMb int
	// OnStatus hears every adapter state change (the gateway publishes
	// them in its health event). It must not block.
	OnStatus func(channel, accountID string, st Status)
	// OnPairing hears a DM pairing request made (resolved "") or
	// resolved ("approved" or "dismissed"), so operators' screens can
	// follow. It must not block.
	OnPairing func(req PairingRequest, resolved string)
	// BootstrapOwner makes an approved sender the owner when none is
	// configured yet (channels.pairing.approve with bootstrapCommandOwner),
	// answering OpenClaw's status: configured, already-configured or
	// unavailable. Nil: always unavailable.
	BootstrapOwner func(ctx context.Context, channel, senderID string) (status string, err error)
	// OwnerConfigured reports whether commands.ownerAllowFrom names anyone.
	OwnerConfigured func() bool
	// Now is the clock of the bot loop guard; default time.Now.
	Now func() time.Time
	// PreviewInterval is the least time between edits of a streaming
	// preview; default 1 s, negative for none.
	PreviewInterval time.Duration
}

// Manager runs the configured channel accounts, the inbound pipeline and
// outbound delivery.
type Manager struct {
	opts Options
	log  *slog.Logger
	db   db
	cfg  atomic.Pointer[config.Config]

	mu       sync.Mutex
	accounts map[accountKey]*account
	lanes    map[string]*lane
	logins   map[accountKey]*loginSession

	routes   sync.Map // session key -> Route last stored, to skip rewriting it
	history  groupHistory
	matchers sync.Map // joined mention patterns -> compiled matcher
	botLoop  botLoopGuard
	runSends runSends // what channel turns' tools sent, by inbound row
	// gateGen counts changes to what the gate reads besides the event
	// itself: the config and the accounts' policies (SetConfig) and DM
	// pairings (an approval). A message's verdict from when it queued is
	// used at its turn only while the count is the same.
	gateGen atomic.Uint64
	// pairedSender is the gate's lookup of a DM sender's pairing (the
	// database's; tests count the calls).
	pairedSender func(ctx context.Context, channel, accountID, senderID string) (bool, error)
	// errorsSeen remembers the errors a chat under errorPolicy "once"
	// was told of.
	errorsSeen onceGuard
	// ttsPrefs caches the stored tts preferences (ttsprefs.go) once read;
	// ttsMu orders their reads and writes.
	ttsMu    sync.Mutex
	ttsPrefs *TTSPrefs

	inKick, outKick chan struct{}
	ctx             context.Context
	cancel          context.CancelFunc
	wg              sync.WaitGroup
	cursor          int64 // highest inbound row handed to a lane
}

type accountKey struct{ channel, account string }

type account struct {
	network Network
	id      string

	// When the account last stored an inbound event and last delivered a
	// message (unix ms, 0 for not since start): "running but receives
	// nothing" shows as an old lastInboundAt beside a fresh lastOutboundAt.
	lastIn, lastOut atomic.Int64

	mu      sync.Mutex // guards the fields below
	spec    AccountSpec
	adapter Adapter // nil while stopped
	cancel  context.CancelFunc
	status  Status
}

func (a *account) specNow() AccountSpec {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.spec
}

func (a *account) setSpec(s AccountSpec) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.spec = s
}

func (a *account) adapterNow() Adapter {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.adapter
}

func (a *account) setAdapter(ad Adapter, cancel context.CancelFunc) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.adapter, a.cancel = ad, cancel
}

// takeAdapter clears the running adapter and returns it, so only one
// caller stops it.
func (a *account) takeAdapter() (Adapter, context.CancelFunc) {
	a.mu.Lock()
	defer a.mu.Unlock()
	ad, cancel := a.adapter, a.cancel
	a.adapter, a.cancel = nil, nil
	return ad, cancel
}

// New makes a manager; Start runs it.
func New(cfg *config.Config, opts Options) *Manager {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.MaxAttempts == 0 {
		opts.MaxAttempts = 8
	}
	m := &Manager{
		opts: opts, log: opts.Log, db: newDB(opts.Store.DB),
		accounts: map[accountKey]*account{}, lanes: map[string]*lane{},
		inKick: make(chan struct{}, 1), outKick: make(chan struct{}, 1),
	}
	m.pairedSender = m.db.pairedSender
	m.cfg.Store(cfg)
	return m
}

// Start starts every enabled account and the pipeline workers. Accounts
// that fail to start are reported in status; they do not stop the others
// or the gateway.
func (m *Manager) Start(ctx context.Context) {
	m.ctx, m.cancel = context.WithCancel(context.WithoutCancel(ctx))
	m.apply(m.cfg.Load())
	m.wg.Add(2)
	go m.inboundLoop()
	go m.outboundLoop()
	kick(m.inKick)
	kick(m.outKick)
}

// SetConfig applies a reloaded config: accounts added, removed or changed
// are started, stopped or restarted; the rest keep running.
func (m *Manager) SetConfig(cfg *config.Config) {
	m.cfg.Store(cfg)
	if m.ctx != nil {
		m.apply(cfg)
	}
	// After apply, so a message gated while the accounts' policies were
	// being replaced is gated again at its turn.
	m.gateGen.Add(1)
}

// Close stops the adapters and workers. Work in flight stays in the
// database and resumes at the next start.
func (m *Manager) Close(ctx context.Context) {
	if m.cancel == nil {
		return
	}
	m.cancel()
	m.mu.Lock()
	accts := make([]*account, 0, len(m.accounts))
	for k, a := range m.accounts {
		accts = append(accts, a)
		delete(m.accounts, k)
	}
	m.mu.Unlock()
	for _, a := range accts {
		m.stopAccount(ctx, a)
	}
	m.wg.Wait()
}

func (m *Manager) apply(cfg *config.Config) {
	want := map[accountKey]struct {
		n Network
		s AccountSpec
	}{}
	for _, n := range m.opts.Networks {
		for _, s := range n.Accounts(cfg) {
			want[accountKey{n.Name, s.AccountID}] = struct {
				n Network
				s AccountSpec
			}{n, s}
		}
	}
	m.mu.Lock()
	var stop []*account
	for k, a := range m.accounts {
		w, ok := want[k]
		if !ok || !w.s.Enabled || w.s.Fingerprint != a.specNow().Fingerprint {
			stop = append(stop, a)
			delete(m.accounts, k)
			continue
		}
		a.setSpec(w.s) // policy changes apply without a restart
	}
	m.mu.Unlock()
	for _, a := range stop {
		m.stopAccount(m.ctx, a)
	}
	for k, w := range want {
		m.mu.Lock()
		_, running := m.accounts[k]
		m.mu.Unlock()
		if running {
			continue
		}
		a := &account{network: w.n, id: w.s.AccountID, spec: w.s, status: Status{State: StateStopped, At: time.Now()}}
		m.mu.Lock()
		m.accounts[k] = a
		m.mu.Unlock()
		if w.s.Enabled {
			m.startAccount(a)
		}
	}
	kick(m.inKick)
}

func (m *Manager) startAccount(a *account) {
	ad, err := a.specNow().New()
	if err != nil {
		a.setStatus(Status{State: StateStopped, Detail: err.Error(), LastError: err.Error(), At: time.Now()})
		m.log.Warn("channel account not started", "channel", a.network.Name, "accountId", a.id, "err", err)
		return
	}
	ctx, cancel := context.WithCancel(m.ctx)
	a.setAdapter(ad, cancel)
	a.setStatus(Status{State: StateStarting, At: time.Now()})
	if err := ad.Start(ctx, &sink{m: m, a: a}); err != nil {
		cancel()
		a.setAdapter(nil, nil)
		a.setStatus(Status{State: StateStopped, Detail: err.Error(), LastError: err.Error(), At: time.Now()})
		m.log.Warn("channel account failed to start", "channel", a.network.Name, "accountId", a.id, "err", err)
		return
	}
	if wh, ok := ad.(Webhook); ok && m.opts.Mount != nil {
		m.opts.Mount(wh.WebhookPath(), wh)
	}
	m.log.Info("channel account started", "channel", a.network.Name, "accountId", a.id)
	if menu, ok := ad.(CommandMenu); ok {
		// commands.native false clears a menu published before.
		cfg := m.cfg.Load()
		native, skills := a.specNow().Commands.Resolve(cfg.Commands)
		cmds := NativeCommands
		switch {
		case !native.Publish(true):
			cmds = []Command{}
		case skills.Publish(true) && m.opts.SkillCommands != nil:
			cmds = menuWithSkills(cmds, m.opts.SkillCommands(context.WithoutCancel(ctx), m.opts.DefaultAgent(cfg)))
		}
		go func() {
			cctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			if err := menu.SetCommands(cctx, cmds); err != nil && ctx.Err() == nil {
				m.log.Warn("channels: could not publish the command menu", "channel", a.network.Name, "accountId", a.id, "err", err)
			}
		}()
	}
	kick(m.outKick)
}

func (m *Manager) stopAccount(ctx context.Context, a *account) {
	ad, cancel := a.takeAdapter()
	if ad == nil {
		return
	}
	if wh, ok := ad.(Webhook); ok && m.opts.Unmount != nil {
		m.opts.Unmount(wh.WebhookPath())
	}
	sctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer stop()
	if err := ad.Stop(sctx); err != nil {
		m.log.Warn("channel account stop", "channel", a.network.Name, "accountId", a.id, "err", err)
	}
	cancel()
	a.setStatus(Status{State: StateStopped, At: time.Now()})
}

func (a *account) setStatus(st Status) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if st.At.IsZero() {
		st.At = time.Now()
	}
	if st.Bot == "" {
		st.Bot = a.status.Bot
	}
	a.status = st
}

func (a *account) snapshot() Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status
}

func (m *Manager) account(channel, accountID string) (*account, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	a, ok := m.accounts[accountKey{channel, accountID}]
	return a, ok
}

// sink is the Sink handed to one account's adapter.
type sink struct {
	m *Manager
	a *account
}

func (s *sink) Receive(ctx context.Context, in Inbound) error {
	in.Channel, in.AccountID = s.a.network.Name, s.a.id
	if in.EventID == "" {
		return errors.New("inbound event without an id")
	}
	if in.Time.IsZero() {
		in.Time = time.Now()
	}
	_, inserted, err := s.m.db.insertInbound(ctx, in)
	if err != nil {
		return err
	}
	s.a.lastIn.Store(time.Now().UnixMilli())
	if inserted {
		kick(s.m.inKick)
	}
	return nil
}

func (s *sink) Status(st Status) {
	s.a.setStatus(st)
	if s.m.opts.OnStatus != nil {
		s.m.opts.OnStatus(s.a.network.Name, s.a.id, st)
	}
	if st.State == StateConnected {
		kick(s.m.outKick)
	}
}

func kick(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// queueSafetyNet is how often the queue loops look at the database
// without being kicked. Every write kicks them, so this only bounds a
// missed kick; polling more often keeps an idle gateway's pages resident.
const queueSafetyNet = time.Minute

// inboundLoop hands pending events to per-chat lanes in arrival order.
func (m *Manager) inboundLoop() {
	defer m.wg.Done()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-m.inKick:
		case <-time.After(queueSafetyNet): // kicks do the work
		}
		for {
			rows, err := m.db.pendingInbound(m.ctx, m.cursor, 256)
			if err != nil {
				if m.ctx.Err() == nil {
					m.log.Error("channels: read pending inbound", "err", err)
				}
				break
			}
			for _, r := range rows {
				m.cursor = r.ID
				m.enqueue(r)
			}
			if len(rows) < 256 {
				break
			}
		}
	}
}

// A lane processes one chat's events in order; chats run concurrently.
// Messages that arrive while the chat's agent is answering wait in it,
// as messages.queue says (mode, cap, drop).
type lane struct {
	queue []inboundRow
	// abort stops the turn the lane is running (interrupt mode); nil
	// while none runs.
	abort func()
	// steer hands a message to the running turn of session steerKey
	// (steer mode); nil while none runs.
	steer    func(text string) bool
	steerKey string
	// steered are the rows handed to the running turn: they are settled
	// when that turn is, so a gateway killed mid-turn runs them again at
	// start instead of losing them.
	steered []int64
	// dropped describes messages the cap pushed out under drop
	// "summarize", for the next turn.
	dropped []string
}

func laneKey(channel, accountID, chatID, threadID string) string {
	return channel + "\x00" + accountID + "\x00" + chatID + "\x00" + threadID
}

func (m *Manager) enqueue(r inboundRow) {
	key := laneKey(r.In.Channel, r.In.AccountID, r.In.Chat.ID, r.In.Chat.ThreadID)
	if r.In.Kind == EventCallback {
		// A button press answers a question the chat's current run is
		// waiting on (a Tool Guard approval): queued behind that run it
		// would never be seen.
		key += "\x00callback\x00" + r.In.EventID
	}
	cfg := m.cfg.Load()
	q := cfg.Messages.Queue
	var admitted bool
	var g gated
	if r.In.Kind == EventMessage {
		// Only messages the gate admits may wait, push others out of the
		// queue or interrupt a turn: a stranger in a group must not.
		var ok bool
		if g, ok = m.gate(m.ctx, cfg, r.In, nil); ok && g.verdict.Verdict == Drop {
			m.keepHistory(cfg, g.policy, r.In, g.verdict)
			m.finishRow(r.ID, "dropped", g.verdict.Reason)
			return
		}
		admitted = ok
		if ok {
			// The turn uses this verdict unless the config or the account
			// changes while the message waits (gateAtTurn).
			r.gate = &g
		}
		if ok && g.verdict.Verdict == Allow && q.QueueMode(r.In.Channel) == "steer" && m.steerInto(cfg, key, g, r) {
			return
		}
	}
	m.mu.Lock()
	l, running := m.lanes[key]
	if !running {
		l = &lane{}
		m.lanes[key] = l
	}
	var drop []inboundRow
	var interrupt func()
	if admitted && running {
		mode := q.QueueMode(r.In.Channel)
		if mode == "interrupt" {
			// The newest message replaces whatever waits and stops the
			// turn running now.
			for _, w := range l.queue {
				if w.In.Kind == EventMessage {
					drop = append(drop, w)
				}
			}
			l.queue = slices.DeleteFunc(l.queue, func(w inboundRow) bool { return w.In.Kind == EventMessage })
			interrupt = l.abort
		} else if waiting := countMessages(l.queue); waiting >= q.QueueCap() {
			switch cmp.Or(q.Drop, "summarize") {
			case "new":
				drop = append(drop, r)
				r = inboundRow{}
			default:
				i := slices.IndexFunc(l.queue, func(w inboundRow) bool { return w.In.Kind == EventMessage })
				drop = append(drop, l.queue[i])
				if q.Drop != "old" && len(l.dropped) < q.QueueCap() {
					l.dropped = append(l.dropped, summaryLine(l.queue[i].In))
				}
				l.queue = slices.Delete(l.queue, i, i+1)
			}
		}
	}
	if r.ID != 0 {
		l.queue = append(l.queue, r)
	}
	m.mu.Unlock()
	for _, d := range drop {
		reason := "the chat's queue was full (messages.queue.cap)"
		if interrupt != nil || q.QueueMode(d.In.Channel) == "interrupt" {
			reason = "superseded by a newer message (messages.queue.mode interrupt)"
		}
		m.finishRow(d.ID, "dropped", reason)
	}
	if interrupt != nil {
		interrupt()
	}
	if running {
		return
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		for {
			m.mu.Lock()
			if len(l.queue) == 0 || m.ctx.Err() != nil {
				delete(m.lanes, key)
				m.mu.Unlock()
				return
			}
			batch := []inboundRow{l.queue[0]}
			l.queue = l.queue[1:]
			if batch[0].In.Kind == EventMessage && m.cfg.Load().Messages.Queue.QueueMode(batch[0].In.Channel) == "collect" {
				// Everything that waited runs as one turn.
				for len(l.queue) > 0 && l.queue[0].In.Kind == EventMessage {
					batch = append(batch, l.queue[0])
					l.queue = l.queue[1:]
				}
			}
			dropped := l.dropped
			l.dropped = nil
			m.mu.Unlock()
			m.process(l, batch, dropped)
		}
	}()
}

func countMessages(rows []inboundRow) int {
	n := 0
	for _, r := range rows {
		if r.In.Kind == EventMessage {
			n++
		}
	}
	return n
}

// summaryLine names a message the queue dropped, for the next turn.
func summaryLine(in Inbound) string {
	text := strings.Join(strings.Fields(in.Text), " ")
	if r := []rune(text); len(r) > 140 {
		text = string(r[:140]) + "…"
	}
	who := cmp.Or(in.Sender.Name, in.Sender.ID)
	return who + ": " + text
}

func (m *Manager) finishRow(id int64, status, reason string) {
	if err := m.db.finishInbound(context.WithoutCancel(m.ctx), id, status, reason, "", ""); err != nil {
		m.log.Error("channels: record inbound outcome", "id", id, "err", err)
	}
}

// gated is an event's account, route and gate verdict, and what they
// were worked out from.
type gated struct {
	a         *account
	policy    AccountPolicy
	binding   config.Binding
	agentID   string
	paired    bool
	verdict   GateResult
	mentioned func(GroupPolicy) bool

	cfg *config.Config // the config the verdict was reached under
	gen uint64         // Manager.gateGen then
	// botCounted: the bot loop guard counted this message and let it
	// through, so gating it again must not count it a second time.
	botCounted bool
}

// gate runs routing and the sender gate for in; ok is false when its
// account is no longer configured. prev is the verdict in had when it
// queued, when it is gated again at its turn (nil the first time).
func (m *Manager) gate(ctx context.Context, cfg *config.Config, in Inbound, prev *gated) (gated, bool) {
	gen := m.gateGen.Load() // before reading what it covers
	a, ok := m.account(in.Channel, in.AccountID)
	if !ok {
		return gated{}, false
	}
	g := gated{a: a, policy: a.specNow().Policy, cfg: cfg, gen: gen}
	routeIn := RouteInput{
		Channel: in.Channel, AccountID: in.AccountID, DefaultAccountID: m.defaultAccount(in.Channel),
		ChatKind: in.Chat.Kind, ChatID: in.Chat.ID, ThreadID: in.Chat.ThreadID,
		GuildID: in.GuildID, TeamID: in.TeamID, Roles: in.Roles,
	}
	g.binding, _ = ResolveAgent(cfg.Bindings, routeIn)
	g.agentID = g.binding.AgentID
	if _, configured := cfg.Agent(g.agentID); (g.agentID == "" || !configured) && m.opts.DefaultAgent != nil {
		// A binding to "main" when no agent of that id is configured
		// (OpenClaw accepts it) goes to the default agent.
		g.agentID = m.opts.DefaultAgent(cfg)
	}
	if in.Chat.Kind == Direct {
		var err error
		if g.paired, err = m.pairedSender(ctx, in.Channel, in.AccountID, in.Sender.ID); err != nil {
			m.log.Error("channels: pairing lookup", "err", err)
		}
	}
	policy := g.policy
	g.mentioned = func(gp GroupPolicy) bool {
		if in.Mentioned {
			return true
		}
		pats := policy.MentionPatterns
		if pats == nil && !policy.MentionScope.Applies(in.Chat.ID) {
			return false
		}
		if pats == nil && m.opts.AgentMentionPatterns != nil {
			aid := g.agentID
			if gp.AgentID != "" {
				aid = gp.AgentID
			}
			pats = m.opts.AgentMentionPatterns(cfg, aid)
		}
		return m.mentionMatcher(pats)(in.Text)
	}
	g.verdict = Gate{Policy: policy, Aliases: a.network.Aliases, AccessGroups: cfg.AccessGroups}.Check(in, g.paired, g.mentioned)
	if g.verdict.Verdict == Allow && in.Kind == EventMessage && in.Sender.IsBot {
		// Two bots that admit each other would answer each other forever.
		// A message counts once, though it may be gated again at its turn.
		if prev == nil || !prev.botCounted {
			if !m.botLoop.admit(laneKey(in.Channel, in.AccountID, in.Chat.ID, in.Sender.ID), policy.BotLoop, m.now()) {
				g.verdict = GateResult{Verdict: Drop, Reason: "bot loop protection: this bot sent too many messages here; ignored for its cooldown"}
			}
		}
		g.botCounted = g.verdict.Verdict == Allow
	}
	if in.Chat.Kind == Direct && g.verdict.Verdict == Allow {
		g.verdict.Group = policy.direct(in.Sender.ID)
	}
	if g.verdict.Group.AgentID != "" {
		g.agentID = g.verdict.Group.AgentID
	}
	return g, true
}

// gateAtTurn is an event's verdict when its turn comes: the one it got
// when it queued while the config, the policies, the pairings and its
// account are all as they were then (one gate, and one pairing lookup,
// per message), else a fresh one, so a sender the operator shut out
// while their message waited is refused. A row read back from the
// database after a restart carries no verdict and is always gated.
func (m *Manager) gateAtTurn(ctx context.Context, cfg *config.Config, r inboundRow) (gated, bool) {
	if g := r.gate; g != nil && g.cfg == cfg && g.gen == m.gateGen.Load() {
		// A login or logout may have replaced the account (a new one is
		// built when its config changes): the verdict holds only for the
		// account it was reached with, still the one configured.
		if a, ok := m.account(r.In.Channel, r.In.AccountID); ok && a == g.a {
			return *g, true
		}
	}
	return m.gate(ctx, cfg, r.In, r.gate)
}

// turn is one admitted message ready for its agent.
type turn struct {
	r    inboundRow
	g    gated
	text string
	key  string
	// voice: the message was a voice note or audio (tts.auto "inbound").
	voice bool
	// visible is Dispatch.Visible for this message.
	visible string
}

// process takes a batch of events (one, or what collect mode gathered)
// through the gate, routing and the agent. Whatever happens, each event
// ends in a final state, except when the gateway is stopping: then it
// stays pending and runs again at start.
func (m *Manager) process(l *lane, batch []inboundRow, dropped []string) {
	ctx := m.ctx
	cfg := m.cfg.Load()
	var turns []turn
	for _, r := range batch {
		if t, ok := m.admit(ctx, cfg, r); ok {
			turns = append(turns, t)
		}
	}
	if len(turns) == 0 {
		return
	}
	// Collected messages join the last one's turn when they share its
	// session; the others run on their own first.
	last := turns[len(turns)-1]
	var joined []turn
	for _, t := range turns[:len(turns)-1] {
		if t.key == last.key {
			joined = append(joined, t)
			continue
		}
		m.runTurn(ctx, cfg, l, t, nil, nil)
	}
	m.runTurn(ctx, cfg, l, last, joined, dropped)
}

// admit gates one event and handles what does not start a turn (drops,
// pairing, buttons).
func (m *Manager) admit(ctx context.Context, cfg *config.Config, r inboundRow) (turn, bool) {
	in := r.In
	finish := func(status, reason, agentID, key string) {
		if err := m.db.finishInbound(context.WithoutCancel(ctx), r.ID, status, reason, agentID, key); err != nil {
			m.log.Error("channels: record inbound outcome", "id", r.ID, "err", err)
		}
	}
	g, ok := m.gateAtTurn(ctx, cfg, r)
	if !ok {
		finish("dropped", "account no longer configured", "", "")
		return turn{}, false
	}
	a, verdict, agentID := g.a, g.verdict, g.agentID
	switch verdict.Verdict {
	case Drop:
		m.keepHistory(cfg, g.policy, in, verdict)
		m.log.Debug("channels: inbound dropped", "channel", in.Channel, "accountId", in.AccountID, "reason", verdict.Reason)
		finish("dropped", verdict.Reason, "", "")
		return turn{}, false
	case Pair:
		out, err := m.db.requestPairing(ctx, in, time.Now())
		if err != nil {
			m.log.Error("channels: pairing request", "err", err)
			finish("failed", err.Error(), "", "")
			return turn{}, false
		}
		if out.Request == nil {
			finish("dropped", out.Reason, "", "")
			return turn{}, false
		}
		m.log.Info("channels: pairing requested", "channel", in.Channel, "accountId", in.AccountID, "requestId", out.Request.RequestID)
		m.pairingEvent(*out.Request, "")
		msg := Outbound{
			AccountID: in.AccountID, To: Target{ChatID: in.Chat.ID},
			Text:           pairingText(in.Channel, out.Request.Code),
			IdempotencyKey: "in-" + strconv.FormatInt(r.ID, 10) + "-pair",
		}
		m.answer(ctx, r, "", "", []Outbound{msg})
		return turn{}, false
	}
	switch in.Kind {
	case EventCallback:
		m.handleCallback(ctx, a, in)
		finish("answered", "button", "", "")
		return turn{}, false
	case EventMessage:
	default:
		finish("dropped", string(in.Kind)+" events do not start a turn", "", "")
		return turn{}, false
	}
	text := strings.TrimSpace(in.Text)
	voice := slices.ContainsFunc(in.Media, isAudio)
	if len(in.Media) > 0 {
		described, transcripts := m.saveMedia(ctx, cfg, a, agentID, r.ID, in.Media)
		text = strings.TrimSpace(text + "\n\n" + described)
		m.echoTranscripts(ctx, cfg, in, r.ID, transcripts)
	}
	if text == "" {
		finish("dropped", "empty message", "", "")
		return turn{}, false
	}
	key := SessionKey(cfg, agentID, g.binding, in, a.network.TopicThreads)
	return turn{r: r, g: g, text: text, key: key, voice: voice, visible: visibleMode(cfg, g, in, text)}, true
}

// visibleMode is how an admitted message's answer reaches its chat
// (Dispatch.Visible). An unmentioned message in a group that needs no
// mention is a room event where the agent's unmentionedInbound says so
// and the network has them; a mention, a command, a direct message never
// is. Otherwise messages.visibleReplies decides (groupChat's in groups).
func visibleMode(cfg *config.Config, g gated, in Inbound, text string) string {
	group := in.Chat.Kind != Direct
	if group && g.a.network.RoomEvents && !g.verdict.Group.RequireMention &&
		cfg.UnmentionedInbound(g.agentID) == VisibleRoomEvent &&
		!strings.HasPrefix(text, "/") && !strings.HasPrefix(text, "!") &&
		!(g.mentioned != nil && g.mentioned(g.verdict.Group)) {
		return VisibleRoomEvent
	}
	if cfg.VisibleReplies(group) == VisibleMessageTool {
		return VisibleMessageTool
	}
	return ""
}

// runTurn runs an admitted message (with the messages collected into it)
// on its agent, or on each agent of a broadcast chat, and queues the
// replies.
func (m *Manager) runTurn(ctx context.Context, cfg *config.Config, l *lane, t turn, joined []turn, dropped []string) {
	in, a, policy := t.r.In, t.g.a, t.g.policy
	// A turn that answers anyone's request is not a room event, even when
	// room chatter was collected into it.
	visible := t.visible
	for _, j := range joined {
		if visible == VisibleRoomEvent && j.visible != VisibleRoomEvent {
			visible = j.visible
		}
	}
	t.visible = visible
	origin := Route{Channel: in.Channel, AccountID: in.AccountID, ChatID: in.Chat.ID, ChatKind: in.Chat.Kind, ThreadID: in.Chat.ThreadID}
	text := t.text
	if len(joined) > 0 {
		var b strings.Builder
		b.WriteString("Messages sent while you were answering, oldest first:")
		for i, j := range append(joined, t) {
			fmt.Fprintf(&b, "\n\n%d. %s", i+1, j.text)
		}
		text = b.String()
	}
	if h := m.takeHistory(in); len(h) > 0 {
		text = "Recent messages in this chat that were not addressed to you, for context only:\n" +
			strings.Join(h, "\n") + "\n\nThe message to answer:\n" + text
	}
	if len(dropped) > 0 {
		text = "(" + strconv.Itoa(len(dropped)) + " earlier messages were dropped unanswered because too many waited: " +
			strings.Join(dropped, " | ") + ")\n\n" + text
	}
	agentIDs := []string{t.g.agentID}
	var known []string
	for _, id := range cfg.Broadcast.Agents(in.Channel, in.Chat.ID) {
		if _, ok := cfg.Agent(id); ok { // config load warned about the others
			known = append(known, id)
		}
	}
	if len(known) > 0 {
		agentIDs = known
	}
	// Each agent of a broadcast chat keeps its own session.
	keys := make([]string, len(agentIDs))
	for i, aid := range agentIDs {
		keys[i] = t.key
		if len(agentIDs) > 1 || aid != t.g.agentID {
			keys[i] = SessionKey(cfg, aid, t.g.binding, in, a.network.TopicThreads)
		}
	}
	m.acknowledge(ctx, cfg, t)
	// The streaming preview shows one reply growing; a broadcast chat's
	// several replies are sent whole.
	var pv *preview
	var onText func(string)
	// A private answer must not stream into the chat either.
	if len(agentIDs) == 1 && visible == "" {
		if pv = m.newPreview(ctx, a, policy, in); pv != nil {
			onText = pv.update
		}
	}
	typing := &typingLatch{start: func() func() {
		return m.typing(ctx, a, Target{ChatID: in.Chat.ID, ThreadID: in.Chat.ThreadID}, m.typingInterval(cfg))
	}}
	var onNotice func(string)
	if visible == "" {
		onNotice = m.noticer(ctx, in, t.r.ID)
	}
	var onTextStart func()
	mode := typingMode(cfg, in)
	if visible == VisibleRoomEvent {
		mode = "never" // the room stays silent unless the agent sends
	}
	switch mode {
	case "instant":
		typing.begin()
	case "message":
		onTextStart = typing.begin
	}
	type result struct {
		agentID, key string
		reply        Reply
		err          error
	}
	results := make([]result, len(agentIDs))
	runOne := func(i int) {
		aid, key, runID := agentIDs[i], keys[i], RunIDOf(t.r.ID)
		if key != t.key {
			runID += ":" + aid
		}
		m.saveRoute(ctx, key, origin)
		reply, err := m.opts.Dispatcher.Dispatch(ctx, Dispatch{
			AgentID: aid, SessionKey: key, RunID: runID,
			Text: text, ExtraSystemPrompt: t.g.verdict.Group.SystemPrompt, Origin: origin, SenderID: in.Sender.ID,
			CommandsRefused: m.commandsRefused(cfg, a, in),
			ToolsAllow:      t.g.verdict.Group.ToolsAllow, ToolsDeny: t.g.verdict.Group.ToolsDeny,
			Model:  cfg.ResolveModel(ChannelModel(cfg, in, a.network.TopicThreads)),
			OnText: onText, OnTextStart: onTextStart, Visible: visible, OnNotice: onNotice,
		})
		results[i] = result{agentID: aid, key: key, reply: reply, err: err}
	}
	if ab, ok := m.opts.Dispatcher.(Aborter); ok {
		m.mu.Lock()
		l.abort = func() {
			for _, k := range keys {
				ab.Abort(k)
			}
		}
		m.mu.Unlock()
	}
	// A room event's answer is private: a request steered into it would
	// go unanswered, so requests wait for their own turn.
	if st, ok := m.opts.Dispatcher.(Steerer); ok && len(keys) == 1 && visible != VisibleRoomEvent {
		m.mu.Lock()
		l.steer = func(text string) bool { return st.Steer(keys[0], text) }
		l.steerKey = keys[0]
		m.mu.Unlock()
	}
	if len(agentIDs) > 1 && cfg.Broadcast.Strategy != "sequential" {
		var wg sync.WaitGroup
		for i := range agentIDs {
			wg.Go(func() { runOne(i) })
		}
		wg.Wait()
	} else {
		for i := range agentIDs {
			runOne(i)
		}
	}
	m.mu.Lock()
	l.abort, l.steer, l.steerKey = nil, nil, ""
	steered := l.steered
	l.steered = nil
	m.mu.Unlock()
	typing.end()
	var outs []Outbound
	sentByTool := m.runSends.take(RunIDOf(t.r.ID), in.Chat.ID)
	for i, res := range results {
		if res.err != nil {
			if ctx.Err() != nil {
				return // stopping: the event stays pending
			}
			m.log.Warn("channels: agent run failed", "channel", in.Channel, "sessionKey", res.key, "err", res.err)
			if visible == VisibleRoomEvent {
				continue // a room event stays quiet, failures too
			}
			res.reply = m.errorReply(policy, t.g.verdict.Group, in, res.err)
		}
		if res.reply.Private {
			// The operator can tell a model that missed message(action=send)
			// from one that chose silence.
			m.log.Info("channels: final reply kept private", "channel", in.Channel, "sessionKey", res.key,
				"visible", visible, "chars", len(res.reply.Text), "didSendViaMessagingTool", sentByTool)
			continue
		}
		prefix := m.responsePrefix(cfg, policy, res.agentID, res.reply)
		shown, voiceNote := res.reply.Text, (*Outbound)(nil)
		switch {
		case res.err != nil:
		case res.reply.Speak != "":
			voiceNote = m.speakOnce(ctx, cfg, a, res.agentID, in, t.r.ID, i, res.reply.Speak)
		case !res.reply.Command:
			shown, voiceNote = m.speakReply(ctx, cfg, a, res.agentID, in, t.r.ID, i, res.reply.Text, t.voice)
		}
		o := m.replyMessages(policy, in, t.r.ID, prefix, shown)
		if voiceNote != nil {
			o = append(o, *voiceNote)
		}
		if len(agentIDs) > 1 {
			for j := range o {
				o[j].IdempotencyKey += "-" + strconv.Itoa(i)
			}
		}
		outs = append(outs, o...)
	}
	if pv != nil {
		outs = pv.finish(context.WithoutCancel(ctx), outs)
	}
	for _, id := range steered {
		if err := m.db.finishInbound(context.WithoutCancel(ctx), id, "answered", "steered into the running turn (messages.queue.mode steer)", t.g.agentID, t.key); err != nil {
			m.log.Error("channels: record inbound outcome", "id", id, "err", err)
		}
	}
	for _, j := range joined {
		if err := m.db.finishInbound(context.WithoutCancel(ctx), j.r.ID, "answered", "collected into a later turn (messages.queue.mode collect)", t.g.agentID, t.key); err != nil {
			m.log.Error("channels: record inbound outcome", "id", j.r.ID, "err", err)
		}
	}
	m.answer(ctx, t.r, t.g.agentID, t.key, outs)
}

// maxMenuCommands is the most commands a menu holds (Telegram's and
// Discord's limit); maxMenuDescription the longest description both take.
const (
	maxMenuCommands    = 100
	maxMenuDescription = 100
)

// menuWithSkills adds the skill commands to the built-in ones, within
// the networks' limits: built-in names win, a description is cut to fit.
func menuWithSkills(builtin, skills []Command) []Command {
	out := slices.Clone(builtin)
	for _, c := range skills {
		if len(out) == maxMenuCommands {
			break
		}
		if slices.ContainsFunc(out, func(b Command) bool { return b.Name == c.Name }) {
			continue
		}
		if d := []rune(c.Description); len(d) > maxMenuDescription {
			c.Description = string(d[:maxMenuDescription-1]) + "…"
		}
		if c.Description == "" {
			c.Description = "Run the " + c.Name + " skill"
		}
		out = append(out, c)
	}
	return out
}

// noticer returns what sends the chat of in a notice during its turn:
// queued (persisted) like a reply, each under its own idempotency key so
// a retried turn does not send it twice. A failure to queue is logged;
// a notice is never worth failing the turn.
func (m *Manager) noticer(ctx context.Context, in Inbound, rowID int64) func(string) {
	var mu sync.Mutex
	n := 0
	return func(text string) {
		mu.Lock()
		n++
		key := "in-" + strconv.FormatInt(rowID, 10) + "-notice-" + strconv.Itoa(n)
		mu.Unlock()
		row := outboundRow{Channel: in.Channel, Out: Outbound{AccountID: in.AccountID, To: Target{ChatID: in.Chat.ID, ThreadID: in.Chat.ThreadID}, Text: text, IdempotencyKey: key}}
		save := context.WithoutCancel(ctx)
		err := m.db.tx(save, func(c store.Conn) error {
			_, err := insertOutbound(save, c, row)
			return err
		})
		if err != nil {
			m.log.Warn("channels: queue notice", "channel", in.Channel, "err", err)
			return
		}
		kick(m.outKick)
	}
}

// saveRoute remembers the chat a session last talked in.
func (m *Manager) saveRoute(ctx context.Context, key string, origin Route) {
	if prev, ok := m.routes.Load(key); ok && prev.(Route) == origin {
		return
	}
	if err := m.db.setRoute(ctx, key, origin); err != nil {
		m.log.Error("channels: save session route", "err", err)
		return
	}
	m.routes.Store(key, origin)
}

func (m *Manager) answer(ctx context.Context, r inboundRow, agentID, key string, outs []Outbound) {
	rows := make([]outboundRow, len(outs))
	for i, o := range outs {
		rows[i] = outboundRow{Channel: r.In.Channel, Out: o, InboundID: r.ID}
	}
	if err := m.db.answerInbound(context.WithoutCancel(ctx), r.ID, agentID, key, rows); err != nil {
		m.log.Error("channels: queue reply", "id", r.ID, "err", err)
		return
	}
	kick(m.outKick)
}

// replyMessages cuts a reply into the network's message size and sets
// reply-to as replyToMode says.
func (m *Manager) replyMessages(p AccountPolicy, in Inbound, rowID int64, prefix, text string) []Outbound {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	if prefix != "" {
		text = prefix + " " + text
	}
	limit := p.TextLimit
	if limit <= 0 {
		limit = 4000
	}
	chunks := Chunk(text, limit, p.ChunkMode)
	outs := make([]Outbound, 0, len(chunks))
	for i, c := range chunks {
		o := Outbound{
			AccountID: in.AccountID, To: Target{ChatID: in.Chat.ID, ThreadID: in.Chat.ThreadID}, Text: c,
			IdempotencyKey: "in-" + strconv.FormatInt(rowID, 10) + "-" + strconv.Itoa(i),
		}
		switch cmp.Or(p.ReplyToMode, "first") {
		case "all":
			o.ReplyToID = in.MessageID
		case "first", "batched":
			if i == 0 {
				o.ReplyToID = in.MessageID
			}
		}
		outs = append(outs, o)
	}
	return outs
}

// MediaMaxMb is the attachment cap of an account, in megabytes: its own
// mediaMaxMb, else agents.defaults.mediaMaxMb, else 0 (the adapter's
// default), as OpenClaw resolves a channel's media limit.
func MediaMaxMb(cfg *config.Config, account int) int {
	return cmp.Or(account, cfg.Agents.Defaults.MediaMaxMb)
}

// typingMode is when a turn shows "typing…" (agents.defaults.typingMode):
// never, instant (as the turn starts) or message (at the answer's first
// text). Unset, it is instant in direct chats and when the bot was
// mentioned, and message in group chats otherwise, as in OpenClaw.
// "thinking" starts at the first reasoning the model streams, and the
// models here stream none, so it shows no indicator, as OpenClaw does
// for a model without reasoning output.
func typingMode(cfg *config.Config, in Inbound) string {
	switch mode := cfg.Agents.Defaults.TypingMode; mode {
	case "never", "instant", "message":
		return mode
	case "thinking":
		return "never"
	}
	if in.Chat.Kind == Direct || in.Mentioned {
		return "instant"
	}
	return "message"
}

// typingInterval is how often the indicator is repeated: the Manager's
// own setting, else agents.defaults.typingIntervalSeconds, else 6 s.
func (m *Manager) typingInterval(cfg *config.Config) time.Duration {
	if m.opts.TypingInterval > 0 {
		return m.opts.TypingInterval
	}
	if s := cfg.Agents.Defaults.TypingIntervalSeconds; s > 0 {
		return time.Duration(s) * time.Second
	}
	return 6 * time.Second
}

// typingLatch starts the typing indicator at most once per turn, from
// whichever goroutine asks first, and stops it when the turn ends; a
// begin after the end does nothing.
type typingLatch struct {
	start func() (stop func())

	mu    sync.Mutex
	stop  func()
	ended bool
}

func (l *typingLatch) begin() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ended && l.stop == nil {
		l.stop = l.start()
	}
}

func (l *typingLatch) end() {
	l.mu.Lock()
	l.ended = true
	stop := l.stop
	l.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// typing shows the typing indicator until the returned func is called.
func (m *Manager) typing(ctx context.Context, a *account, to Target, interval time.Duration) func() {
	t, ok := a.adapterNow().(Typer)
	if !ok {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			tctx, c := context.WithTimeout(ctx, 10*time.Second)
			_ = t.Typing(tctx, to) // best effort: a missed indicator is harmless
			c()
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}

// handleCallback resolves an approval from a button: data is
// "approve:<id>:<decision>".
func (m *Manager) handleCallback(ctx context.Context, a *account, in Inbound) {
	answer := "Unknown button."
	if rest, ok := strings.CutPrefix(in.CallbackData, "approve:"); ok && m.opts.Approver != nil {
		id, decision, _ := strings.Cut(rest, ":")
		press := ApprovalPress{ID: id, Decision: decision, By: in.Channel + ":" + in.Sender.ID,
			Channel: in.Channel, AccountID: in.AccountID, SenderID: in.Sender.ID, ChatID: in.Chat.ID, MessageID: in.MessageID}
		if err := m.opts.Approver.ResolveApproval(ctx, press); err != nil {
			answer = "Could not record: " + firstLine(err.Error())
		} else {
			answer = "Recorded: " + decision
		}
	}
	if ca, ok := a.adapterNow().(CallbackAnswerer); ok && in.CallbackID != "" {
		if err := ca.AnswerCallback(ctx, in.CallbackID, answer); err != nil {
			m.log.Debug("channels: answer callback", "err", err)
		}
	}
}

// defaultAccount is the channel's default account among those running
// (asking the network would re-read its config, on every message).
func (m *Manager) defaultAccount(channel string) string {
	m.mu.Lock()
	accts := make([]*account, 0, len(m.accounts))
	for k, a := range m.accounts {
		if k.channel == channel {
			accts = append(accts, a)
		}
	}
	m.mu.Unlock()
	for _, a := range accts {
		if a.specNow().Default {
			return a.id
		}
	}
	return "default"
}

func pairingText(channel, code string) string {
	return fmt.Sprintf("This bot does not know you yet.\n\nYour pairing code: %s\n\nAsk its owner to approve it with:\nopenclaw pairing approve %s %s\n\nThe code expires in one hour.", code, channel, code)
}

// mentionMatcher compiles a pattern list once and keeps it: group
// messages would otherwise compile every regexp on every message.
func (m *Manager) mentionMatcher(patterns []string) func(string) bool {
	key := strings.Join(patterns, "\x00")
	if f, ok := m.matchers.Load(key); ok {
		return f.(func(string) bool)
	}
	f := MentionMatcher(patterns)
	m.matchers.Store(key, f)
	return f
}

// saveMedia downloads a message's attachments into the agent's workspace
// (inbox/<date>/) when the adapter can fetch them, and describes them for
// the agent: a path it can read, or what the attachment was.
func (m *Manager) saveMedia(ctx context.Context, cfg *config.Config, a *account, agentID string, rowID int64, media []Media) (described string, transcripts []string) {
	fetcher, _ := a.adapterNow().(MediaFetcher)
	var ws string
	if fetcher != nil && m.opts.Workspace != nil {
		var err error
		if ws, err = m.opts.Workspace(agentID); err != nil {
			m.log.Warn("channels: no workspace for attachments", "agentId", agentID, "err", err)
		}
	}
	// The account's own mediaMaxMb ("sent or received") first: a voice
	// note or file over it is refused before the download.
	limit := int64(cmp.Or(a.specNow().Policy.MediaMaxMb, m.cfg.Load().Agents.Defaults.MediaMaxMb, m.opts.MediaMaxMb, 20)) << 20
	parts := make([]string, len(media))
	for i, md := range media {
		label := md.Kind
		if md.Name != "" {
			label += ": " + md.Name
		}
		parts[i] = "[" + label + "]"
		if ws == "" {
			continue
		}
		rel, err := saveAttachment(ctx, fetcher, ws, rowID, i, md, limit)
		if err != nil {
			m.log.Warn("channels: attachment not saved", "kind", md.Kind, "err", err)
			parts[i] = "[" + label + " (not saved: " + firstLine(err.Error()) + ")]"
			continue
		}
		parts[i] = "[" + label + " saved at " + rel + "]"
		if isAudio(md) {
			if p, heard, ok := m.transcribe(ctx, cfg, ws, rel, md); ok {
				parts[i] = p
				if heard != "" {
					transcripts = append(transcripts, heard)
				}
			}
		}
	}
	return strings.Join(parts, " "), transcripts
}

// saveAttachment writes one attachment under ws/inbox/<date>/ through an
// os.Root, so a name from the network cannot point outside it.
func saveAttachment(ctx context.Context, f MediaFetcher, ws string, rowID int64, i int, md Media, limit int64) (string, error) {
	body, err := f.FetchMedia(ctx, md, limit)
	if err != nil {
		return "", err
	}
	defer body.Close()
	if err := os.MkdirAll(ws, 0o700); err != nil { // a new agent's workspace may not exist yet
		return "", err
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return "", err
	}
	defer root.Close()
	dir := path.Join("inbox", time.Now().Format("2006-01-02"))
	if err := root.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	name := safeFileName(md.Name)
	if name == "" {
		name = md.Kind
	}
	rel := path.Join(dir, fmt.Sprintf("%d-%d-%s", rowID, i, name))
	out, err := root.OpenFile(rel, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	n, err := io.Copy(out, io.LimitReader(body, limit+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > limit {
		root.Remove(rel)
		err = fmt.Errorf("larger than %d MB", limit>>20)
	}
	return rel, err
}

// safeFileName keeps a network-supplied name to one harmless path
// element.
func safeFileName(name string) string {
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '/' || r == ':' {
			return '_'
		}
		return r
	}, name)
	if name == "." || name == ".." || name == "/" {
		return ""
	}
	if len(name) > 120 {
		name = name[len(name)-120:]
	}
	return name
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// outboundLoop delivers queued messages: per chat in order, chats in
// parallel, retrying what the network asked to retry.
func (m *Manager) outboundLoop() {
	defer m.wg.Done()
	if n, err := m.db.recoverSending(m.ctx); err != nil {
		m.log.Error("channels: settle the sends the last run left under way", "err", err)
	} else if n > 0 {
		m.log.Warn("channels: sends were under way when the gateway last stopped; they may have been delivered and are not sent again", "count", n)
	}
	for {
		wait := queueSafetyNet
		if at, ok := m.db.nextOutboundAt(m.ctx); ok {
			if d := time.Until(at); d < wait {
				wait = max(d, 0)
			}
		}
		if wait > 0 {
			select {
			case <-m.ctx.Done():
				return
			case <-m.outKick:
			case <-time.After(wait):
			}
		}
		if m.ctx.Err() != nil {
			return
		}
		m.deliverDue()
	}
}

func (m *Manager) deliverDue() {
	rows, err := m.db.dueOutbound(m.ctx, time.Now(), 512)
	if err != nil {
		if m.ctx.Err() == nil {
			m.log.Error("channels: read outbound queue", "err", err)
		}
		return
	}
	// Group by chat, keeping order; one goroutine per chat.
	byChat := map[string][]outboundRow{}
	var order []string
	for _, r := range rows {
		k := laneKey(r.Channel, r.Out.AccountID, r.Out.To.ChatID, r.Out.To.ThreadID)
		if _, ok := byChat[k]; !ok {
			order = append(order, k)
		}
		byChat[k] = append(byChat[k], r)
	}
	var wg sync.WaitGroup
	for _, k := range order {
		wg.Add(1)
		go func(rows []outboundRow) {
			defer wg.Done()
			for _, r := range rows {
				if !m.deliver(r) {
					return // keep the chat's order: later messages wait
				}
			}
		}(byChat[k])
	}
	wg.Wait()
}

// deliver sends one queued message; false means it is still pending.
func (m *Manager) deliver(r outboundRow) bool {
	ctx := context.WithoutCancel(m.ctx)
	a, ok := m.account(r.Channel, r.Out.AccountID)
	var ad Adapter
	if ok {
		ad = a.adapterNow()
	}
	if ad == nil {
		if !ok {
			m.db.markFailed(ctx, r.ID, "channel account not configured")
			return true
		}
		m.db.markRetry(ctx, r.ID, time.Now().Add(deliveryBackoff(r.Attempts)), "channel account not running")
		return false
	}
	if err := m.db.markSending(ctx, r.ID); err != nil {
		if !errors.Is(err, errNotPending) {
			m.log.Error("channels: could not begin a send; it stays queued", "id", r.ID, "err", err)
		}
		return false
	}
	sctx, cancel := context.WithTimeout(m.ctx, 60*time.Second)
	sent, err := ad.Send(sctx, r.Out)
	cancel()
	if err == nil {
		a.lastOut.Store(time.Now().UnixMilli())
		if err := m.db.markSent(ctx, r.ID, sent.MessageID); err != nil {
			m.log.Error("channels: mark sent", "id", r.ID, "err", err)
		}
		return true
	}
	var re *RetryableError
	if (errors.As(err, &re) || m.ctx.Err() != nil) && r.Attempts+1 < m.opts.MaxAttempts {
		d := deliveryBackoff(r.Attempts)
		if re != nil && re.After > d {
			d = re.After
		}
		m.db.markRetry(ctx, r.ID, time.Now().Add(d), err.Error())
		return false
	}
	m.log.Warn("channels: delivery failed", "channel", r.Channel, "accountId", r.Out.AccountID, "key", r.Out.IdempotencyKey, "err", err)
	m.db.markFailed(ctx, r.ID, err.Error())
	return true
}

// deliveryBackoff is the wait before delivery attempt n+1: 1 s doubling to
// 5 min, with jitter.
func deliveryBackoff(attempts int) time.Duration {
	return Backoff(time.Second, 5*time.Minute, attempts, nil)
}

// pairingEvent tells Options.OnPairing, if set, about a request.
func (m *Manager) pairingEvent(r PairingRequest, resolved string) {
	if m.opts.OnPairing != nil {
		m.opts.OnPairing(r, resolved)
	}
}

func (m *Manager) now() time.Time {
	if m.opts.Now != nil {
		return m.opts.Now()
	}
	return time.Now()
}

// errorCooldown is how long errorPolicy "once" keeps an error from being
// told again in the same chat (OpenClaw's 4 hours).
const errorCooldown = 4 * time.Hour

// onceGuard remembers keys for errorCooldown after they were first seen.
type onceGuard struct {
	mu   sync.Mutex
	seen map[string]time.Time // key -> when it may be told again
}

// first reports whether key was not seen within the cooldown, and
// remembers it if so.
func (g *onceGuard) first(key string, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seen == nil {
		g.seen = map[string]time.Time{}
	}
	if until, ok := g.seen[key]; ok && now.Before(until) {
		return false
	}
	if len(g.seen) >= maxBotPairs {
		for k, until := range g.seen {
			if !now.Before(until) {
				delete(g.seen, k)
			}
		}
	}
	g.seen[key] = now.Add(errorCooldown)
	return true
}

// errorReply is what the chat is told of a failed run, under the chat's
// or account's errorPolicy: always (default), once per distinct error for
// a while, or silent.
func (m *Manager) errorReply(policy AccountPolicy, group GroupPolicy, in Inbound, err error) Reply {
	msg := firstLine(err.Error())
	switch cmp.Or(group.ErrorPolicy, policy.ErrorPolicy, "always") {
	case "silent":
		return Reply{}
	case "once":
		if !m.errorsSeen.first(laneKey(in.Channel, in.AccountID, in.Chat.ID, in.Chat.ThreadID)+"\x00"+msg, m.now()) {
			return Reply{}
		}
	}
	return Reply{Text: "⚠️ " + msg}
}
