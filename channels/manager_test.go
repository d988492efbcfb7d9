package channels

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// memAdapter is an in-memory network: tests push events in and read what
// was sent.
type memAdapter struct {
	mu       sync.Mutex
	sink     Sink
	sent     []Outbound
	failNext []error // errors returned by the next sends, in order
	sentCh   chan Outbound
	typing   int
	answered []string
	reacts   []string // "<chat>/<message>:<emoji>"
	menus    [][]Command
}

func newMem() *memAdapter { return &memAdapter{sentCh: make(chan Outbound, 1000)} }

func (a *memAdapter) Start(ctx context.Context, sink Sink) error {
	a.mu.Lock()
	a.sink = sink
	a.mu.Unlock()
	sink.Status(Status{State: StateConnected, Bot: "testbot"})
	return nil
}
func (a *memAdapter) Stop(ctx context.Context) error { return nil }
func (a *memAdapter) Send(ctx context.Context, msg Outbound) (Sent, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.failNext) > 0 {
		err := a.failNext[0]
		a.failNext = a.failNext[1:]
		return Sent{}, err
	}
	a.sent = append(a.sent, msg)
	a.sentCh <- msg
	return Sent{MessageID: fmt.Sprint(len(a.sent))}, nil
}
func (a *memAdapter) Typing(ctx context.Context, to Target) error {
	a.mu.Lock()
	a.typing++
	a.mu.Unlock()
	return nil
}
func (a *memAdapter) React(ctx context.Context, to Target, messageID, emoji string) error {
	a.mu.Lock()
	a.reacts = append(a.reacts, to.ChatID+"/"+messageID+":"+emoji)
	a.mu.Unlock()
	return nil
}
func (a *memAdapter) SetCommands(ctx context.Context, cmds []Command) error {
	a.mu.Lock()
	a.menus = append(a.menus, cmds)
	a.mu.Unlock()
	return nil
}
func (a *memAdapter) AnswerCallback(ctx context.Context, id, text string) error {
	a.mu.Lock()
	a.answered = append(a.answered, text)
	a.mu.Unlock()
	return nil
}

func (a *memAdapter) push(t *testing.T, in Inbound) {
	t.Helper()
	a.mu.Lock()
	s := a.sink
	a.mu.Unlock()
	if err := s.Receive(context.Background(), in); err != nil {
		t.Fatal(err)
	}
}

func (a *memAdapter) waitSent(t *testing.T, n int) []Outbound {
	t.Helper()
	var got []Outbound
	deadline := time.After(20 * time.Second)
	for len(got) < n {
		select {
		case o := <-a.sentCh:
			got = append(got, o)
		case <-deadline:
			t.Fatalf("got %d sent messages, want %d: %+v", len(got), n, got)
		}
	}
	return got
}

// echoAgent answers "echo: <text>" and counts runs per run id.
type echoAgent struct {
	mu    sync.Mutex
	runs  map[string]int
	block chan struct{} // when set, runs wait for it (or ctx)
	reply func(Dispatch) string
}

func (e *echoAgent) Dispatch(ctx context.Context, d Dispatch) (Reply, error) {
	e.mu.Lock()
	if e.runs == nil {
		e.runs = map[string]int{}
	}
	e.runs[d.RunID]++
	block := e.block
	e.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return Reply{}, ctx.Err()
		}
	}
	if e.reply != nil {
		return Reply{Text: e.reply(d)}, nil
	}
	return Reply{Text: "echo: " + d.Text}, nil
}

type approverFunc func(ctx context.Context, id, decision, by string) error

func (f approverFunc) ResolveApproval(ctx context.Context, p ApprovalPress) error {
	return f(ctx, p.ID, p.Decision, p.By)
}

type harness struct {
	m   *Manager
	ad  *memAdapter
	st  *store.Store
	cfg *config.Config
}

func newHarness(t *testing.T, path string, policy AccountPolicy, agent Dispatcher, approver Approver) *harness {
	t.Helper()
	return newHarnessCfg(t, path, &config.Config{}, Network{Name: "telegram", Label: "Telegram"}, policy, agent, approver)
}

// newHarnessCfg runs one account of net (its Accounts replaced) under cfg.
func newHarnessCfg(t *testing.T, path string, cfg *config.Config, net Network, policy AccountPolicy, agent Dispatcher, approver Approver) *harness {
	t.Helper()
	st, err := openTestStore(t, path)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{ad: newMem(), st: st, cfg: cfg}
	net.Accounts = func(*config.Config) []AccountSpec {
		return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Policy: policy, Fingerprint: "x",
			New: func() (Adapter, error) { return h.ad, nil }}}
	}
	h.m = New(h.cfg, Options{Store: st, Dispatcher: agent, Approver: approver, Networks: []Network{net},
		DefaultAgent: func(*config.Config) string { return "main" }, TypingInterval: time.Hour})
	h.m.Start(context.Background())
	t.Cleanup(func() { h.close() })
	return h
}

func (h *harness) close() {
	if h.m != nil {
		h.m.Close(context.Background())
		h.st.Close()
		h.m = nil
	}
}

// waitIdle waits until no inbound event is pending.
func (h *harness) waitIdle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var n int
		if err := h.st.DB.QueryRow(`SELECT COUNT(*) FROM channel_inbound WHERE status = 'pending'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d events still pending", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func dmFrom(event, sender, text string) Inbound {
	return Inbound{EventID: event, Kind: EventMessage, MessageID: "m" + event, Chat: Chat{ID: sender, Kind: Direct}, Sender: Sender{ID: sender, Name: "Ann"}, Text: text}
}

func TestPipelineAnswersAndDedupes(t *testing.T) {
	agent := &echoAgent{}
	h := newHarness(t, storetest.Place(t), AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}}, agent, nil)
	h.ad.push(t, dmFrom("1", "42", "hello"))
	h.ad.push(t, dmFrom("1", "42", "hello")) // a redelivery
	got := h.ad.waitSent(t, 1)
	if got[0].Text != "echo: hello" || got[0].To.ChatID != "42" || got[0].ReplyToID != "m1" {
		t.Errorf("reply %+v", got[0])
	}
	h.ad.push(t, dmFrom("2", "42", "again"))
	h.ad.waitSent(t, 1)
	agent.mu.Lock()
	defer agent.mu.Unlock()
	if len(agent.runs) != 2 {
		t.Errorf("runs %v, want two distinct runs", agent.runs)
	}
	route, ok, err := h.m.RouteOf(context.Background(), "agent:main:main")
	if err != nil || !ok || route.ChatID != "42" {
		t.Errorf("route %+v %v %v", route, ok, err)
	}
}

func TestPipelinePairing(t *testing.T) {
	h := newHarness(t, storetest.Place(t), AccountPolicy{}, &echoAgent{}, nil)
	var evMu sync.Mutex
	var requested []string // senders whose new request was announced
	h.m.opts.OnPairing = func(r PairingRequest, resolved string) {
		evMu.Lock()
		defer evMu.Unlock()
		if resolved == "" {
			requested = append(requested, r.SenderID)
		}
	}
	h.ad.push(t, dmFrom("1", "42", "hi"))
	got := h.ad.waitSent(t, 1)
	if !strings.Contains(got[0].Text, "pairing code") {
		t.Fatalf("first DM got %q, want a pairing code", got[0].Text)
	}
	h.ad.push(t, dmFrom("2", "42", "hi again")) // no second code for a live request
	for i := range 4 {                          // three more strangers: only two fit under the cap
		h.ad.push(t, dmFrom(fmt.Sprint(10+i), fmt.Sprint(100+i), "hi"))
	}
	h.ad.waitSent(t, 2)
	h.waitIdle(t)
	reqs, err := h.m.db.pairingRequests(context.Background(), "telegram", "", time.Now())
	if err != nil || len(reqs) != PairingMaxPending {
		t.Fatalf("pending %d (%v), want %d", len(reqs), err, PairingMaxPending)
	}
	evMu.Lock()
	if len(requested) != PairingMaxPending || requested[0] != "42" {
		t.Errorf("announced requests %v, want one per new request (%d), the first from 42", requested, PairingMaxPending)
	}
	evMu.Unlock()
	var code string
	for _, r := range reqs {
		if r.SenderID == "42" {
			code = r.Code
		}
	}
	if len(code) != PairingCodeLength || strings.ContainsAny(code, "01OI") {
		t.Fatalf("code %q", code)
	}
	if _, err := h.m.db.takePairing(context.Background(), "telegram", "default", strings.ToLower(code), true, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := h.m.db.takePairing(context.Background(), "telegram", "default", code, true, time.Now()); !errors.Is(err, ErrPairingNotFound) {
		t.Errorf("second approval: %v, want single use", err)
	}
	h.ad.push(t, dmFrom("3", "42", "now?"))
	if got := h.ad.waitSent(t, 1); got[0].Text != "echo: now?" {
		t.Errorf("after approval: %q", got[0].Text)
	}
	// Expired requests free their slot.
	out, err := h.m.db.requestPairing(context.Background(), Inbound{Channel: "telegram", AccountID: "default", Sender: Sender{ID: "999"}}, time.Now().Add(2*PairingTTL))
	if err != nil || out.Request == nil {
		t.Errorf("after expiry: %+v %v", out, err)
	}
}

func TestPipelineChunksAndRetries(t *testing.T) {
	long := strings.Repeat("word ", 30)
	agent := &echoAgent{reply: func(Dispatch) string { return long }}
	h := newHarness(t, storetest.Place(t), AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}, TextLimit: 40, ReplyToMode: "all"}, agent, nil)
	h.ad.mu.Lock()
	h.ad.failNext = []error{&RetryableError{After: time.Millisecond, Err: errors.New("429")}, &RetryableError{Err: errors.New("502")}}
	h.ad.mu.Unlock()
	h.ad.push(t, dmFrom("1", "42", "go"))
	want := len(Chunk(long, 40, ""))
	got := h.ad.waitSent(t, want)
	var joined []string
	for _, o := range got {
		if UTF16Len(o.Text) > 40 || o.ReplyToID != "m1" {
			t.Errorf("chunk %q reply %q", o.Text, o.ReplyToID)
		}
		joined = append(joined, o.Text)
	}
	if strings.Join(strings.Fields(strings.Join(joined, " ")), " ") != strings.TrimSpace(long) {
		t.Errorf("chunks out of order or lost: %q", joined)
	}
}

func TestPipelineResumesAfterRestart(t *testing.T) {
	path := storetest.Place(t)
	agent := &echoAgent{block: make(chan struct{})}
	policy := AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}}
	h := newHarness(t, path, policy, agent, nil)
	for i := range 5 {
		h.ad.push(t, dmFrom(fmt.Sprint(i), fmt.Sprint(40+i), fmt.Sprint("msg ", i)))
	}
	// Wait until every chat is inside the (blocked) agent, then stop.
	deadline := time.Now().Add(20 * time.Second)
	for {
		agent.mu.Lock()
		n := len(agent.runs)
		agent.mu.Unlock()
		if n == 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d runs started", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.close()

	agent2 := &echoAgent{}
	h2 := newHarness(t, path, policy, agent2, nil)
	// The network redelivers what it never saw acknowledged: dropped.
	h2.ad.push(t, dmFrom("0", "40", "msg 0"))
	got := h2.ad.waitSent(t, 5)
	seen := map[string]int{}
	for _, o := range got {
		seen[o.To.ChatID]++
	}
	for i := range 5 {
		if seen[fmt.Sprint(40+i)] != 1 {
			t.Errorf("chat %d answered %d times", 40+i, seen[fmt.Sprint(40+i)])
		}
	}
	select {
	case o := <-h2.ad.sentCh:
		t.Errorf("extra message %+v", o)
	case <-time.After(100 * time.Millisecond):
	}
	// Same run ids as before the restart: the agent can find the message
	// it already stored.
	for id := range agent2.runs {
		if agent.runs[id] != 1 {
			t.Errorf("run %s was not started before the restart", id)
		}
	}
}

func TestPipelineApprovalButton(t *testing.T) {
	var mu sync.Mutex
	var got []string
	approver := approverFunc(func(ctx context.Context, id, decision, by string) error {
		mu.Lock()
		got = append(got, id+" "+decision+" "+by)
		mu.Unlock()
		return nil
	})
	h := newHarness(t, storetest.Place(t), AccountPolicy{DMPolicy: "allowlist", AllowFrom: []string{"42"}}, &echoAgent{}, approver)
	h.ad.push(t, Inbound{EventID: "c1", Kind: EventCallback, CallbackID: "cb1", CallbackData: "approve:ap-1:allow-once", Chat: Chat{ID: "42", Kind: Direct}, Sender: Sender{ID: "42"}})
	h.ad.push(t, Inbound{EventID: "c2", Kind: EventCallback, CallbackID: "cb2", CallbackData: "approve:ap-2:deny", Chat: Chat{ID: "43", Kind: Direct}, Sender: Sender{ID: "43"}})
	h.waitIdle(t)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "ap-1 allow-once telegram:42" {
		t.Errorf("approvals %q: want only the allowed sender's", got)
	}
}

// TestButtonWhileRunWaits: an approval button is handled while the
// chat's run is still waiting for it; queued behind that run it would
// deadlock.
func TestButtonWhileRunWaits(t *testing.T) {
	resolved := make(chan string, 1)
	agent := &echoAgent{block: make(chan struct{})}
	approver := approverFunc(func(ctx context.Context, id, decision, by string) error {
		resolved <- id + " " + decision
		close(agent.block) // the run's tool call may go on
		return nil
	})
	h := newHarness(t, storetest.Place(t), AccountPolicy{DMPolicy: "allowlist", AllowFrom: []string{"42"}}, agent, approver)
	h.ad.push(t, dmFrom("1", "42", "do the guarded thing"))
	h.ad.push(t, Inbound{EventID: "c1", Kind: EventCallback, CallbackID: "cb", CallbackData: "approve:ap-9:allow-once", Chat: Chat{ID: "42", Kind: Direct}, Sender: Sender{ID: "42"}})
	select {
	case got := <-resolved:
		if got != "ap-9 allow-once" {
			t.Errorf("resolved %q", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the button was never handled while the run waited")
	}
	if got := h.ad.waitSent(t, 1); got[0].Text != "echo: do the guarded thing" {
		t.Errorf("reply %q", got[0].Text)
	}
}

// TestReloadRestartsOnlyChangedAccounts: a reload restarts an account
// whose adapter settings changed, stops a removed one, and reports both
// in Status.
func TestReloadRestartsOnlyChangedAccounts(t *testing.T) {
	st, err := openTestStore(t, storetest.Place(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var mu sync.Mutex
	built := map[string]int{}
	specs := func(fp string, ids ...string) []AccountSpec {
		var out []AccountSpec
		for i, id := range ids {
			out = append(out, AccountSpec{AccountID: id, Default: i == 0, Enabled: true, Fingerprint: id + fp,
				New: func() (Adapter, error) {
					mu.Lock()
					built[id]++
					mu.Unlock()
					return newMem(), nil
				}})
		}
		return out
	}
	current := specs("1", "default", "work")
	net := Network{Name: "telegram", Label: "Telegram", Accounts: func(*config.Config) []AccountSpec { return current }}
	m := New(&config.Config{}, Options{Store: st, Dispatcher: &echoAgent{}, Networks: []Network{net}})
	m.Start(context.Background())
	defer m.Close(context.Background())

	current = append(specs("1", "default"), specs("2", "work")[0]) // only work changed
	m.SetConfig(&config.Config{})
	mu.Lock()
	if built["default"] != 1 || built["work"] != 2 {
		t.Errorf("adapters built %v, want default once and work twice", built)
	}
	mu.Unlock()

	current = specs("1", "default")
	m.SetConfig(&config.Config{})
	status := m.Status()
	accts := status["channelAccounts"].(map[string][]map[string]any)["telegram"]
	if len(accts) != 1 || accts[0]["accountId"] != "default" || accts[0]["connected"] != true {
		t.Errorf("status accounts %+v", accts)
	}
	if _, ok := m.account("telegram", "work"); ok {
		t.Error("removed account still running")
	}
}

// mediaAdapter is a memAdapter that can fetch attachments.
type mediaAdapter struct {
	*memAdapter
	files map[string]string
}

func (a *mediaAdapter) FetchMedia(ctx context.Context, m Media, max int64) (io.ReadCloser, error) {
	if m.FileID == "endless" {
		return io.NopCloser(endless{}), nil
	}
	body, ok := a.files[m.FileID]
	if !ok {
		return nil, errors.New("gone")
	}
	return io.NopCloser(strings.NewReader(body)), nil
}

func TestInboundMediaSavedToWorkspace(t *testing.T) {
	ws := t.TempDir()
	st, err := openTestStore(t, storetest.Place(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ad := &mediaAdapter{memAdapter: newMem(), files: map[string]string{"f1": "hello file", "f2": strings.Repeat("x", 2<<20)}}
	var got Dispatch
	agent := &echoAgent{reply: func(d Dispatch) string { got = d; return "ok" }}
	net := Network{Name: "telegram", Label: "Telegram", Accounts: func(*config.Config) []AccountSpec {
		return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Fingerprint: "m",
			Policy: AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}},
			New:    func() (Adapter, error) { return ad, nil }}}
	}}
	m := New(&config.Config{}, Options{Store: st, Dispatcher: agent, Networks: []Network{net}, MediaMaxMb: 1,
		DefaultAgent: func(*config.Config) string { return "main" },
		Workspace:    func(string) (string, error) { return ws, nil }})
	m.Start(context.Background())
	defer m.Close(context.Background())
	in := dmFrom("1", "42", "see attached")
	in.Media = []Media{
		{Kind: "document", FileID: "f1", Name: "../../etc/passwd"},
		{Kind: "document", FileID: "f2", Name: "big.bin"},
		{Kind: "photo", FileID: "missing"},
	}
	ad.push(t, in)
	ad.waitSent(t, 1)
	if !strings.Contains(got.Text, "see attached") || !strings.Contains(got.Text, "saved at inbox/") ||
		!strings.Contains(got.Text, "big.bin (not saved: larger than 1 MB)") || !strings.Contains(got.Text, "photo (not saved: gone)") {
		t.Fatalf("agent saw %q", got.Text)
	}
	rel := regexp.MustCompile(`saved at (\S+)\]`).FindStringSubmatch(got.Text)[1]
	b, err := os.ReadFile(filepath.Join(ws, rel))
	if err != nil || string(b) != "hello file" || strings.Contains(rel, "..") {
		t.Errorf("saved %q: %q %v", rel, b, err)
	}
	entries, _ := filepath.Glob(filepath.Join(ws, "inbox", "*", "*big.bin"))
	if len(entries) != 0 {
		t.Errorf("oversized file left behind: %v", entries)
	}
}

// loginAdapter is a memAdapter that links like WhatsApp: two QR codes,
// then done.
type loginAdapter struct {
	*memAdapter
	next      chan struct{}
	loggedOut bool
}

func (a *loginAdapter) Login(ctx context.Context, show func(LoginStep)) error {
	for _, qr := range []string{"2@one", "2@two"} {
		show(LoginStep{QR: qr})
		select {
		case <-a.next:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	show(LoginStep{Done: true})
	return nil
}

func (a *loginAdapter) Logout(ctx context.Context) error { a.loggedOut = true; return nil }

func TestDeviceLogin(t *testing.T) {
	st, err := openTestStore(t, storetest.Place(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ad := &loginAdapter{memAdapter: newMem(), next: make(chan struct{})}
	net := Network{Name: "whatsapp", Label: "WhatsApp", Accounts: func(*config.Config) []AccountSpec {
		return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Fingerprint: "w", New: func() (Adapter, error) { return ad, nil }}}
	}}
	m := New(&config.Config{}, Options{Store: st, Dispatcher: &echoAgent{}, Networks: []Network{net}})
	m.Start(context.Background())
	defer m.Close(context.Background())

	l, err := m.StartLogin("whatsapp", "", false)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := waitLogin(context.Background(), l, "", 10*time.Second)
	if r := first.(map[string]any); r["qr"] != "2@one" || !strings.HasPrefix(r["qrDataUrl"].(string), "data:image/png;base64,") {
		t.Fatalf("first step %v", r)
	}
	ad.next <- struct{}{}
	second, _ := waitLogin(context.Background(), l, "2@one", 10*time.Second)
	if r := second.(map[string]any); r["qr"] != "2@two" || r["connected"] != false {
		t.Fatalf("second step %v", r)
	}
	ad.next <- struct{}{}
	done, _ := waitLogin(context.Background(), l, "2@two", 10*time.Second)
	if r := done.(map[string]any); r["connected"] != true {
		t.Fatalf("final step %v", r)
	}
	if _, err := m.StartLogin("telegram", "", false); err == nil {
		t.Error("login on an unknown channel worked")
	}
	if _, err := m.StartPhoneLogin("whatsapp", "", "+4917600000001", true); !errors.Is(err, ErrUnsupported) {
		t.Errorf("phone login on an adapter without it: %v", err)
	}
}

// TestStatusTraffic: channels.status says when an account last stored an
// inbound message and last delivered one, so "running but receives
// nothing" can be told from "running and answering".
func TestStatusTraffic(t *testing.T) {
	h := newHarness(t, storetest.Place(t), AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}}, &echoAgent{}, nil)
	entry := func() map[string]any {
		t.Helper()
		accts := h.m.Status()["channelAccounts"].(map[string][]map[string]any)["telegram"]
		if len(accts) != 1 {
			t.Fatalf("accounts %v", accts)
		}
		return accts[0]
	}
	if e := entry(); e["lastInboundAt"] != nil || e["lastOutboundAt"] != nil {
		t.Fatalf("before any traffic: in %v out %v, want nil", e["lastInboundAt"], e["lastOutboundAt"])
	}
	before := time.Now().UnixMilli()
	h.ad.push(t, dmFrom("1", "42", "hi"))
	h.ad.waitSent(t, 1)
	h.waitIdle(t)
	e := entry()
	// The delivery is marked just after the adapter's Send returns.
	for deadline := time.Now().Add(5 * time.Second); e["lastOutboundAt"] == nil && time.Now().Before(deadline); e = entry() {
		time.Sleep(5 * time.Millisecond)
	}
	in, _ := e["lastInboundAt"].(int64)
	out, _ := e["lastOutboundAt"].(int64)
	if in < before || out < in {
		t.Fatalf("after a DM and its reply: in %v out %v (started %d)", e["lastInboundAt"], e["lastOutboundAt"], before)
	}
}

// TestBindingToUnconfiguredMainGoesToTheDefaultAgent: OpenClaw's validator
// lets a binding name "main" when no such agent is configured; its chats
// reach the default agent instead of a turn that cannot start.
func TestBindingToUnconfiguredMainGoesToTheDefaultAgent(t *testing.T) {
	got := make(chan string, 1)
	agent := &echoAgent{reply: func(d Dispatch) string { got <- d.AgentID; return "ok" }}
	h := newHarness(t, storetest.Place(t), AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}}, agent, nil)
	cfg := &config.Config{
		Agents:   config.Agents{Entries: map[string]config.AgentEntry{"codex": {}}},
		Bindings: []config.Binding{{AgentID: "main", Match: config.BindingMatch{Channel: "telegram"}}},
	}
	h.m.opts.DefaultAgent = func(c *config.Config) string { return c.DefaultAgentID() }
	h.m.SetConfig(cfg)
	h.ad.push(t, dmFrom("1", "42", "hello"))
	h.ad.waitSent(t, 1)
	if id := <-got; id != "codex" {
		t.Fatalf("dispatched to agent %q, want the default agent codex", id)
	}
}

// TestInboundMediaCapFromConfig performs the oversized-attachment attack
// against agents.defaults.mediaMaxMb: a 2 MB file under a 1 MB cap is
// refused and not written, and the same file under a 3 MB cap is saved.
func TestInboundMediaCapFromConfig(t *testing.T) {
	for _, c := range []struct {
		capMb int
		saved bool
	}{{1, false}, {3, true}} {
		t.Run(fmt.Sprint(c.capMb), func(t *testing.T) {
			ws := t.TempDir()
			st, err := openTestStore(t, storetest.Place(t))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ad := &mediaAdapter{memAdapter: newMem(), files: map[string]string{"big": strings.Repeat("x", 2<<20)}}
			var got Dispatch
			agent := &echoAgent{reply: func(d Dispatch) string { got = d; return "ok" }}
			net := Network{Name: "telegram", Label: "Telegram", Accounts: func(*config.Config) []AccountSpec {
				return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Fingerprint: "m",
					Policy: AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}},
					New:    func() (Adapter, error) { return ad, nil }}}
			}}
			cfg := &config.Config{}
			cfg.Agents.Defaults.MediaMaxMb = c.capMb
			m := New(cfg, Options{Store: st, Dispatcher: agent, Networks: []Network{net},
				DefaultAgent: func(*config.Config) string { return "main" },
				Workspace:    func(string) (string, error) { return ws, nil }})
			m.Start(context.Background())
			defer m.Close(context.Background())
			in := dmFrom("1", "42", "take this")
			in.Media = []Media{{Kind: "document", FileID: "big", Name: "big.bin"}}
			ad.push(t, in)
			ad.waitSent(t, 1)
			files, _ := filepath.Glob(filepath.Join(ws, "inbox", "*", "*big.bin"))
			if c.saved != (len(files) == 1) || c.saved != strings.Contains(got.Text, "saved at inbox/") {
				t.Fatalf("cap %d MB: agent saw %q, files %v", c.capMb, got.Text, files)
			}
			if !c.saved && !strings.Contains(got.Text, "not saved: larger than 1 MB") {
				t.Fatalf("refusal not said: %q", got.Text)
			}
		})
	}
}

// openTestStore opens the channels' store at place (storetest.Place) on
// the engine the test run names.
func openTestStore(t testing.TB, place string) (*store.Store, error) {
	t.Helper()
	return storetest.OpenAt(t, place, Migrations()), nil
}

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestSendUnderWayAtCrashIsNotSentTwice: a gateway that died in the
// middle of a send leaves its row "sending"; the network may have
// delivered it, so the next start marks it unknown instead of sending a
// second copy, while a row still pending goes out.
func TestSendUnderWayAtCrashIsNotSentTwice(t *testing.T) {
	path := storetest.Place(t)
	policy := AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}}
	h := newHarness(t, path, policy, &echoAgent{}, nil)
	h.ad.push(t, dmFrom("1", "51", "first"))
	h.ad.push(t, dmFrom("2", "52", "second"))
	h.ad.waitSent(t, 2)
	h.close()

	// What a kill -9 leaves: one send begun (maybe delivered), one not.
	st := storetest.OpenAt(t, path, Migrations())
	ctx := context.Background()
	for chat, status := range map[string]string{"51": "sending", "52": "pending"} {
		if _, err := st.DB.ExecContext(ctx, `UPDATE channel_outbound SET status = ? WHERE payload LIKE ?`, status, `%"ChatID":"`+chat+`"%`); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	h2 := newHarness(t, path, policy, &echoAgent{}, nil)
	got := h2.ad.waitSent(t, 1)
	if got[0].To.ChatID != "52" {
		t.Fatalf("after the restart sent to %s, want only the pending 52", got[0].To.ChatID)
	}
	select {
	case o := <-h2.ad.sentCh:
		t.Fatalf("the send under way at the crash went out again: %+v", o)
	case <-time.After(200 * time.Millisecond):
	}
	h2.close()
	st = storetest.OpenAt(t, path, Migrations())
	defer st.Close()
	var status, lastErr string
	if err := st.DB.QueryRowContext(ctx, `SELECT status, last_error FROM channel_outbound WHERE payload LIKE ?`, `%"ChatID":"51"%`).Scan(&status, &lastErr); err != nil {
		t.Fatal(err)
	}
	if status != "unknown" || !strings.Contains(lastErr, "delivery unknown") {
		t.Errorf("the row under way: %s %q, want unknown", status, lastErr)
	}
}
