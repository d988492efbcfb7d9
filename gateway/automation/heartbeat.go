package automation

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/agents"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/cron"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

// eventHeartbeat is broadcast after every heartbeat turn (or skip).
const eventHeartbeat = "heartbeat"

// heartbeatToken is the answer by which the model says nothing needs
// attention; such answers are not delivered.
const heartbeatToken = "HEARTBEAT_OK"

// HeartbeatAckMaxChars is how much text may come with the token and
// still count as "nothing to report"; health reports it.
const HeartbeatAckMaxChars = 300

// DefaultHeartbeatPrompt is sent when heartbeat.prompt is unset; health
// reports it.
const DefaultHeartbeatPrompt = "This is a scheduled heartbeat. If HEARTBEAT.md exists in your workspace, read it and do what it says. " +
	"Do not pick up old tasks from earlier conversations on your own. When nothing needs attention, answer with HEARTBEAT_OK alone."

// wakePrompt is sent when the turn was woken for queued system events.
const wakePrompt = "The system notices above arrived for you (a scheduled reminder or a wake). Act on them now. " +
	"Tell the user only what they need to know; if nothing needs their attention, answer with HEARTBEAT_OK alone."

// Heartbeat statuses, as OpenClaw reports them in heartbeat events.
const (
	hbSent    = "sent"     // an answer went to the target chat
	hbOKToken = "ok-token" // HEARTBEAT_OK: nothing to report
	hbOKEmpty = "ok-empty" // the model said nothing
	hbSkipped = "skipped"  // not run, or nowhere to deliver (reason says)
	hbFailed  = "failed"   // the turn or the delivery failed
)

// heartbeatEvent is the payload of the heartbeat event and of
// last-heartbeat.
type heartbeatEvent struct {
	TS         int64  `json:"ts"`
	AgentID    string `json:"agentId"`
	SessionKey string `json:"sessionKey,omitempty"`
	Status     string `json:"status"`
	Reason     string `json:"reason,omitempty"`
	Trigger    string `json:"trigger,omitempty"`
	Preview    string `json:"preview,omitempty"`
	DurationMs int64  `json:"durationMs"`
	Channel    string `json:"channel,omitempty"`
	To         string `json:"to,omitempty"`
	Message    string `json:"message,omitempty"`
}

// heartbeats is the gateway's heartbeat state: the runtime on/off switch
// (set-heartbeats) and the last event.
type heartbeats struct {
	mu   sync.Mutex
	off  bool
	last *heartbeatEvent
}

func (h *heartbeats) disabled() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.off
}

// heartbeat runs one heartbeat turn in the agent's main session.
func (w *Wing) heartbeat(ctx context.Context, agentID, runID, trigger string) (heartbeatEvent, cron.Outcome) {
	return w.heartbeatIn(ctx, agentID, w.agents.MainSessionKey(agentID), runID, trigger)
}

// heartbeatIn runs one heartbeat turn in a session: skipped when turned
// off, outside active hours, or when there is nothing to do (an empty
// HEARTBEAT.md and no queued events); an answer that is only the token is
// kept quiet; anything else goes to the heartbeat's target.
func (w *Wing) heartbeatIn(ctx context.Context, agentID, key, runID, trigger string) (heartbeatEvent, cron.Outcome) {
	start := time.Now()
	hb := w.cfg().HeartbeatFor(agentID)
	ev := heartbeatEvent{AgentID: agentID, SessionKey: key, Trigger: trigger}
	out := cron.Outcome{Status: cron.StatusOK, SessionKey: key, DeliveryStatus: "not-requested"}
	finish := func() (heartbeatEvent, cron.Outcome) {
		ev.TS, ev.DurationMs = time.Now().UnixMilli(), time.Since(start).Milliseconds()
		w.beats.mu.Lock()
		last := ev
		w.beats.last = &last
		w.beats.mu.Unlock()
		w.events.Broadcast(eventHeartbeat, ev)
		if out.Summary == "" {
			out.Summary = ev.Status
			if ev.Reason != "" {
				out.Summary += ": " + ev.Reason
			}
		}
		return ev, out
	}
	pending := w.agents.PendingSystemEvents(key)
	scheduled := trigger == "interval"
	if scheduled {
		if w.beats.disabled() {
			ev.Status, ev.Reason = hbSkipped, "heartbeats are turned off (set-heartbeats)"
			return finish()
		}
		if ok, err := hb.ActiveHours.Active(time.Now(), time.Local); err == nil && !ok {
			ev.Status, ev.Reason = hbSkipped, "outside activeHours"
			return finish()
		}
		if !w.agents.HasModel(agentID) {
			ev.Status, ev.Reason = hbSkipped, "no model configured (agents.defaults.model)"
			return finish()
		}
		if pending == 0 && w.heartbeatFileEmpty(agentID) {
			ev.Status, ev.Reason = hbSkipped, "HEARTBEAT.md has no tasks"
			return finish()
		}
		if t := strings.TrimSpace(hb.Target); t == "" || t == "owner" {
			// A poll whose answer could reach nobody costs a model call
			// for nothing: OpenClaw skips it before the agent runs.
			if _, err := w.ownerRoute(ctx); err != nil {
				ev.Status, ev.Reason = hbSkipped, "no-route"
				ev.Message = noOwnerMessage(err)
				return finish()
			}
		}
	}
	prompt := hb.Prompt
	if prompt == "" {
		prompt = DefaultHeartbeatPrompt
	}
	if !scheduled && pending > 0 {
		prompt = wakePrompt
	}
	req := agents.StartRequest{AgentID: agentID, SessionKey: key, Message: prompt, RunID: runID, Heartbeat: true}
	if runID == "" {
		req.RunID = "heartbeat-" + uuid.NewString()
	}
	if hb.Model != "" {
		req.Models = []string{hb.Model}
	}
	if d, ok := ctx.Deadline(); ok {
		req.Timeout = time.Until(d)
	}
	res, run, err := w.runAndWait(ctx, req)
	if run != nil {
		out.SessionID = run.SessionID
	}
	if err == nil && res.Status != "ok" {
		err = errors.New(cmp.Or(res.Error, "the heartbeat turn ended "+res.Status))
	}
	if err != nil {
		ev.Status, ev.Reason = hbFailed, err.Error()
		out.Status, out.Error = cron.StatusError, err.Error()
		return finish()
	}
	out.Provider, out.Model = res.Provider, res.Model
	text := strings.TrimSpace(res.Text)
	ev.Preview = clip(text, 200)
	rest, hadToken := stripHeartbeatToken(text)
	switch {
	case text == "" || text == silentReply:
		ev.Status = hbOKEmpty
		return finish()
	case hadToken && len(rest) <= HeartbeatAckMaxChars:
		ev.Status = hbOKToken
		return finish()
	}
	target := strings.TrimSpace(hb.Target)
	if target == "none" {
		ev.Status, ev.Reason = hbSkipped, "target none"
		ev.Message = "The heartbeat answered, but agents.defaults.heartbeat.target is none: set it to owner, last or a channel to receive heartbeat messages."
		out.DeliveryStatus = "not-requested"
		return finish()
	}
	t := deliveryTarget{AgentID: agentID, Channel: target, To: hb.To, AccountID: hb.AccountID}
	if target == "" || target == "owner" {
		// OpenClaw's default: the owner's DM, never a group; to is ignored.
		r, err := w.ownerRoute(ctx)
		if err != nil {
			ev.Status, ev.Reason = hbSkipped, "no-route"
			ev.Message = noOwnerMessage(err)
			out.DeliveryStatus, out.DeliveryError = "not-delivered", err.Error()
			return finish()
		}
		t = deliveryTarget{AgentID: agentID, Channel: r.Channel, To: r.ChatID, AccountID: r.AccountID}
		target = r.Channel
	}
	ev.Channel, ev.To = target, hb.To
	if err := w.deliver(ctx, t, rest, "heartbeat:"+req.RunID); err != nil {
		ev.Status, ev.Reason = hbFailed, err.Error()
		if strings.HasPrefix(err.Error(), "no chat to deliver to") {
			ev.Status, ev.Reason = hbSkipped, "no-route"
		}
		out.DeliveryStatus, out.DeliveryError = "not-delivered", err.Error()
		return finish()
	}
	ev.Status, out.DeliveryStatus = hbSent, "delivered"
	return finish()
}

// stripHeartbeatToken removes HEARTBEAT_OK from the start or end of an
// answer (models add it either way, sometimes in bold).
func stripHeartbeatToken(text string) (rest string, had bool) {
	t := strings.TrimSpace(text)
	for _, tok := range []string{"**" + heartbeatToken + "**", heartbeatToken} {
		if strings.HasPrefix(t, tok) {
			return strings.TrimSpace(strings.TrimLeft(strings.TrimPrefix(t, tok), " .:-—")), true
		}
		if strings.HasSuffix(t, tok) {
			return strings.TrimSpace(strings.TrimSuffix(t, tok)), true
		}
	}
	return t, false
}

// heartbeatFileEmpty reports whether the agent's HEARTBEAT.md exists and
// holds nothing but headings and blank lines: then a heartbeat would
// only cost a model call. A missing file is not empty (the prompt still
// asks the model to check in).
func (w *Wing) heartbeatFileEmpty(agentID string) bool {
	ws, err := w.agents.Workspace(agentID)
	if err != nil {
		return false
	}
	b, err := os.ReadFile(filepath.Join(ws, "HEARTBEAT.md"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "#") || l == "-" || l == "- [ ]" || l == "*" {
			continue
		}
		return false
	}
	return true
}

// Wake queues a system event for a session (the agent's main session
// when sessionKey is "") and, with mode "now", runs a heartbeat turn at
// once in the background.
func (w *Wing) Wake(agentID, sessionKey, mode, text string) {
	if sessionKey == "" {
		sessionKey = w.agents.MainSessionKey(agentID)
	}
	w.agents.EnqueueSystemEvent(sessionKey, text)
	if mode != cron.WakeNow {
		return
	}
	w.goBG(func(bg context.Context) {
		ctx, cancel := context.WithTimeout(bg, 10*time.Minute)
		defer cancel()
		w.heartbeatIn(ctx, agentID, sessionKey, "", "wake")
	})
}

// wakeParams are the params of wake and system-event. The struct is
// unnamed so a decode error reads as it always has ("Go struct field
// .text").
type wakeParams = struct {
	Mode       string `json:"mode"`
	Text       string `json:"text"`
	SessionKey string `json:"sessionKey"`
	AgentID    string `json:"agentId"`
}

// setHeartbeatsParams are the params of set-heartbeats (unnamed, as
// wakeParams).
type setHeartbeatsParams = struct {
	Enabled *bool `json:"enabled"`
}

// okResult is the answer of wake and system-event.
type okResult struct {
	OK bool `json:"ok"`
}

// setHeartbeatsResult is the answer of set-heartbeats.
type setHeartbeatsResult struct {
	Enabled bool `json:"enabled"`
	OK      bool `json:"ok"`
}

// registerHeartbeatMethods adds wake, system-event, last-heartbeat and
// set-heartbeats.
func (w *Wing) registerHeartbeatMethods(srv *rpc.Server) {
	srv.HandleFunc("wake", rpc.Typed(w.handleWake("")))
	// system-event queues without waking: the next heartbeat (or message)
	// sees it.
	srv.HandleFunc("system-event", rpc.Typed(w.handleWake(cron.WakeNextHeartbeat)))
	// last-heartbeat reads no params, so it takes any (rpc.Typed would
	// refuse a non-object).
	srv.HandleFunc("last-heartbeat", w.handleLastHeartbeat)
	srv.HandleFunc("set-heartbeats", rpc.Typed(w.handleSetHeartbeats))
}

// handleLastHeartbeat answers the last heartbeat event, or nothing (an
// absent payload, not a null one) before the first.
func (w *Wing) handleLastHeartbeat(ctx context.Context, req *rpc.Request) (any, error) {
	w.beats.mu.Lock()
	defer w.beats.mu.Unlock()
	if w.beats.last == nil {
		return nil, nil
	}
	return *w.beats.last, nil
}

func (w *Wing) handleSetHeartbeats(ctx context.Context, req *rpc.Request, p setHeartbeatsParams) (setHeartbeatsResult, error) {
	if p.Enabled == nil {
		return setHeartbeatsResult{}, protocol.InvalidParams(req.Method, errors.New("enabled (boolean) is required"))
	}
	w.beats.mu.Lock()
	w.beats.off = !*p.Enabled
	w.beats.mu.Unlock()
	w.log.Info("heartbeats switched", "enabled", *p.Enabled)
	return setHeartbeatsResult{OK: true, Enabled: *p.Enabled}, nil
}

// handleWake serves wake (mode from the params) and system-event (mode
// fixed).
func (w *Wing) handleWake(fixedMode string) func(context.Context, *rpc.Request, wakeParams) (okResult, error) {
	return func(ctx context.Context, req *rpc.Request, p wakeParams) (okResult, error) {
		if strings.TrimSpace(p.Text) == "" {
			return okResult{}, protocol.InvalidParams(req.Method, errors.New("text is required"))
		}
		if fixedMode != "" {
			p.Mode = fixedMode
		}
		if p.Mode != cron.WakeNow && p.Mode != cron.WakeNextHeartbeat {
			return okResult{}, protocol.InvalidParams(req.Method, errors.New(`mode must be "now" or "next-heartbeat"`))
		}
		agentID, err := agentFor(w.cfg(), p.AgentID, p.SessionKey)
		if err != nil {
			return okResult{}, protocol.InvalidParams(req.Method, err)
		}
		w.Wake(agentID, p.SessionKey, p.Mode, p.Text)
		return okResult{OK: true}, nil
	}
}

// agentFor picks the agent of a wake: the one named, the session's, or
// the default.
func agentFor(cfg *config.Config, agentID, sessionKey string) (string, error) {
	if agentID == "" && strings.HasPrefix(sessionKey, "agent:") {
		agentID, _, _ = strings.Cut(strings.TrimPrefix(sessionKey, "agent:"), ":")
	}
	if agentID == "" {
		return cfg.DefaultAgentID(), nil
	}
	if _, ok := cfg.Agent(agentID); !ok {
		return "", errors.New("unknown agent " + agentID + ": configured agents are " + strings.Join(cfg.AgentIDs(), ", "))
	}
	return strings.ToLower(agentID), nil
}

// ownerRoute is the owner's DM, heartbeat target "owner" (the default).
func (w *Wing) ownerRoute(ctx context.Context) (channels.Route, error) {
	if w.chats == nil {
		return channels.Route{}, fmt.Errorf("%w: no channels are running", channels.ErrNoOwnerRoute)
	}
	return w.chats.OwnerRoute(ctx, w.cfg().Commands.OwnerAllowFrom)
}

// noOwnerMessage says why a heartbeat for the owner went nowhere.
func noOwnerMessage(err error) string {
	return "The heartbeat has no owner to tell: " + err.Error() +
		`; or set agents.defaults.heartbeat.target to "last", a channel with to, or "none".`
}
