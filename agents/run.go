package agents

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/sessions"
)

// StartRequest asks for one agent run.
type StartRequest struct {
	AgentID    string
	SessionKey string // "" = the agent's main session
	Message    string
	// RunID is the caller's idempotency key; a repeat returns the run it
	// started. Generated when empty.
	RunID             string
	Timeout           time.Duration // 0: agents.defaults.timeoutSeconds
	ExtraSystemPrompt string
	// SpawnedBy is the parent session key of a sub-agent run.
	SpawnedBy string
	Depth     int
	Label     string
	// Models overrides the agent's model chain (sub-agents, jobs).
	Models []string
	// ToolsAllow narrows the run's tools (a scheduled job's toolsAllow, a
	// chat's tools.allow).
	ToolsAllow []string
	// ToolsDeny removes tools from the run (a chat's tools.deny); deny
	// wins. Sub-agents the run spawns inherit both.
	ToolsDeny []string
	// OnText hears the text of the step being written as it grows, ""
	// when it starts over (a chat's streaming preview). It must not block.
	OnText func(text string)
	// OnNotice, when set, sends a short notice to the chat the run
	// answers (agents.defaults.compaction.notifyUser). It must not block
	// for long.
	OnNotice func(text string)
	// ChannelModel is the model channels.modelByChannel gives the chat;
	// it goes first only while the session has no model of its own.
	ChannelModel string
	// Heartbeat marks a heartbeat turn: its events say so.
	Heartbeat bool
	// Nested marks a run another run started and waits on (a message
	// sent with sessions_send): it does not count against
	// agents.defaults.maxConcurrent, whose slot its sender holds.
	Nested bool
	// Owner: the run acts for the gateway's owner (an operator holding
	// operator.admin, or a sender in commands.ownerAllowFrom); only then
	// may it use owner-only tools. Callers derive it from who asked, never
	// from a parameter.
	Owner bool
	// Fresh starts the session over when it already has turns: each
	// run of an isolated job sees only its own message.
	Fresh bool
	// Resumable records the run as accepted with its message, so a run
	// the gateway did not finish (a crash, a shutdown mid-turn) is run
	// again at the next start (Resume). For operator turns (chat.send,
	// agent): a client that was told "accepted" cannot tell the turn was
	// lost. Channel turns have their own record (the inbound event) and
	// scheduled ones theirs (the cron run row).
	Resumable bool
	// OnDelta, when set, hears the answer's text as it streams: the
	// current step's text so far, at each piece. It must not block.
	OnDelta func(text string)
	// Commands, when set, lets a command-only message (/status, /model,
	// /approve, ...) be answered by the gateway itself; see CommandSender.
	Commands *CommandSender
	// Channel and ChatType say where the message came from (a channel
	// turn), for the policies keyed on them (session.resetByChannel) when
	// the session key does not name the channel.
	Channel  string
	ChatType string
	// Visible is how the run's final answer reaches its chat: "" posts
	// it; VisibleMessageTool and VisibleRoomEvent keep it private, so the
	// agent speaks only through message(action=send) (see RunResult.Private).
	Visible string
}

// The strict delivery modes of StartRequest.Visible.
const (
	// VisibleMessageTool is messages.visibleReplies "message_tool". With no
	// message tool under the run's policy the answer is posted after all:
	// silence the agent cannot break would be a broken chat.
	VisibleMessageTool = "message_tool"
	// VisibleRoomEvent is an unmentioned message in an always-on room
	// (messages.groupChat.unmentionedInbound "room_event"): quiet context,
	// private even when the agent has no message tool.
	VisibleRoomEvent = "room_event"
)

// Run is one accepted run.
type Run struct {
	ID         string
	AgentID    string
	SessionKey string
	SessionID  string
	AcceptedAt time.Time

	done   chan struct{}
	once   sync.Once
	result RunResult
	steer  steerInbox
}

// steerInbox holds messages steered into a run while it works
// (messages.queue.mode steer): the loop reads them before its next model
// call. It is open only while the loop can still read it, so a message
// is either taken by the run or refused, never lost between the two.
type steerInbox struct {
	mu   sync.Mutex
	open bool
	msgs []string
}

func (b *steerInbox) setOpen(open bool) {
	b.mu.Lock()
	b.open = open
	b.mu.Unlock()
}

// push adds a message; false when the run no longer reads its inbox.
func (b *steerInbox) push(text string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open || len(b.msgs) >= maxSteered {
		return false
	}
	b.msgs = append(b.msgs, text)
	return true
}

// take returns the waiting messages; with last, an empty inbox closes.
func (b *steerInbox) take(last bool) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	msgs := b.msgs
	b.msgs = nil
	if last && len(msgs) == 0 {
		b.open = false
	}
	return msgs
}

// maxSteered bounds the messages waiting in one run's inbox.
const maxSteered = 64

// Steer hands text to the session's running turn, which reads it before
// its next model call, as OpenClaw's steer queue mode does. False when no
// turn runs or it is past reading more (the caller runs text as a turn
// of its own).
func (s *Service) Steer(sessionKey, text string) bool {
	id, ok := s.queue.Running(sessionKey)
	if !ok {
		return false
	}
	run, ok := s.Lookup(id)
	return ok && run.steer.push(text)
}

// RunResult is how a run ended.
type RunResult struct {
	Status     string // ok | error | timeout | aborted
	Text       string // the final answer
	Error      string
	ErrorKind  string
	Provider   string
	Model      string
	Usage      providers.Usage
	StopReason string
	StartedAt  time.Time
	EndedAt    time.Time
	// Private: the final answer is not for the chat (StartRequest.Visible
	// applied): the channel posts nothing of it.
	Private bool
	// Command: the gateway answered a slash command itself; the text is
	// a system line, not the agent's words (channels do not speak it).
	Command bool
	// Speak is text the caller should say once as a voice note with the
	// answer (/tts audio); "" for none.
	Speak string
}

// Done is closed when the run has ended.
func (r *Run) Done() <-chan struct{} { return r.done }

// Result is valid once Done is closed.
func (r *Run) Result() RunResult { return r.result }

// EndedRun is a run that has already ended with res, for fakes of the
// Service in the tests of its callers.
func EndedRun(id, agentID, sessionKey string, res RunResult) *Run {
	r := &Run{ID: id, AgentID: agentID, SessionKey: sessionKey, AcceptedAt: time.Now(), done: make(chan struct{}), result: res}
	close(r.done)
	return r
}

// Errors a caller maps to INVALID_REQUEST.
var (
	ErrUnknownAgent = errors.New("unknown agent")
	ErrEmptyMessage = errors.New("message is empty")
)

// runRetention is how long ended runs stay known to agent.wait and to
// idempotent repeats.
const runRetention = 10 * time.Minute

// Start accepts a message for an agent: it persists the message in the
// session's transcript, queues the run behind any other run of that
// session and returns at once. dup is true when req.RunID named a run
// already accepted, which is returned instead of starting another.
func (s *Service) Start(ctx context.Context, req StartRequest) (run *Run, dup bool, err error) {
	cfg := s.config()
	agent, ok := resolveAgent(cfg, s.opts.StateDir, req.AgentID)
	if !ok {
		return nil, false, fmt.Errorf("%w %q: configured agents are %s", ErrUnknownAgent, req.AgentID, strings.Join(cfg.AgentIDs(), ", "))
	}
	callerRunID := req.RunID != ""
	if !callerRunID {
		req.RunID = uuid.NewString()
	}
	s.mu.Lock()
	if r, ok := s.runs[req.RunID]; ok {
		s.mu.Unlock()
		return r, true, nil
	}
	s.mu.Unlock()

	key := req.SessionKey
	if key == "" {
		key = sessions.MainKey(agent.ID, cfg.Session.MainKey)
	}
	// commands.allowFrom is the only authority for commands: a sender it
	// refuses gets no skill command either, and the text goes as typed.
	refused := req.Commands != nil && req.Commands.Refused
	if msg, reply, ok := s.skillInvocation(ctx, agent.ID, req.Message); ok && !refused {
		switch {
		case reply != "" && req.Commands != nil:
			return s.runCommand(ctx, agent, key, req, slashCommand{name: "skill", args: reply})
		case reply == "":
			req.Message = msg
		}
	}
	if req.Commands != nil {
		if cmd, ok := parseSlashCommand(req.Message); ok {
			return s.runCommand(ctx, agent, key, req, cmd)
		}
	}
	text := strings.TrimSpace(req.Message)
	if pending := s.events.take(key); len(pending) > 0 {
		// Queued system events (job reminders, wakes) reach the model
		// with the session's next message, ahead of it.
		text = strings.TrimSpace(formatSystemEvents(pending) + "\n\n" + text)
		defer func() {
			if err != nil || dup {
				s.events.putBack(key, pending) // not delivered: keep them
			}
		}()
	}
	sess, created, err := s.opts.Store.Ensure(ctx, key, sessions.Init{AgentID: agent.ID, SpawnedBy: req.SpawnedBy, Depth: req.Depth, Label: req.Label})
	if err != nil {
		return nil, false, fmt.Errorf("open session %s: %w", key, err)
	}
	if created {
		s.notifyCreated(cfg, agent.ID, sess, req)
	}
	if req.Fresh && !created {
		if sess, err = s.opts.Store.Reset(ctx, key, "fresh"); err != nil {
			return nil, false, fmt.Errorf("reset session %s: %w", key, err)
		}
	}
	resetOnly := false
	if trigger, rest, ok := sessions.IsResetTrigger(text, cfg.Session.ResetTriggers); ok {
		s.onSessionEnd(ctx, cfg, agent.Workspace, sess, resetEvent{action: strings.TrimPrefix(strings.ToLower(trigger), "/"), command: true, key: key,
			sender: commandSender(req), source: req.Channel})
		if sess, err = s.opts.Store.Reset(ctx, key, "reset"); err != nil {
			return nil, false, fmt.Errorf("reset session %s: %w", key, err)
		}
		text, resetOnly = rest, rest == ""
	} else if p := resetPolicyFor(cfg, key, cmpOr(req.Channel, sess.Origin.Channel)); sessions.ShouldReset(sess, p, time.Now(), time.Local) {
		s.onSessionEnd(ctx, cfg, agent.Workspace, sess, resetEvent{action: p.Mode, key: key, source: req.Channel})
		if sess, err = s.opts.Store.Reset(ctx, key, p.Mode); err != nil {
			return nil, false, fmt.Errorf("reset session %s: %w", key, err)
		}
	}
	if text == "" && !resetOnly {
		return nil, false, ErrEmptyMessage
	}
	run = &Run{ID: req.RunID, AgentID: agent.ID, SessionKey: key, SessionID: sess.SessionID, AcceptedAt: time.Now(), done: make(chan struct{})}
	if !resetOnly {
		// A caller that starts the same run again after a restart (a
		// channel event that was stored but not answered) finds its
		// message already in the transcript, and maybe its answer.
		stored := false
		if callerRunID {
			if stored, err = s.opts.Store.HasUserMessage(ctx, sess.SessionID, run.ID); err != nil {
				return nil, false, fmt.Errorf("look up run %s: %w", run.ID, err)
			}
		}
		if stored {
			text, answered, err := s.opts.Store.RunAnswer(ctx, sess.SessionID, run.ID)
			if err != nil {
				return nil, false, err
			}
			if answered {
				// Answered before the restart: the same answer again, not a
				// second model turn.
				now := time.Now()
				s.register(run)
				s.finish(run, RunResult{Status: "ok", Text: text, StartedAt: now, EndedAt: now, StopReason: providers.StopEnd})
				return run, true, nil
			}
		}
		// Persist before acknowledging: an accepted message is never lost.
		if !stored {
			msg := sessions.Message{Role: "user", Text: text, RunID: run.ID, Ts: time.Now()}
			if req.Resumable {
				_, err = s.opts.Store.AppendAccepted(ctx, msg, sessions.AcceptedRun{RunID: run.ID, SessionKey: key, SessionID: sess.SessionID,
					AgentID: agent.ID, Request: resumeOf(req), AcceptedAt: run.AcceptedAt})
			} else {
				err = s.opts.Store.Append(ctx, sess.SessionID, msg)
			}
			if err != nil {
				return nil, false, fmt.Errorf("save message: %w", err)
			}
		}
	}
	s.register(run)
	s.launch(run, agent, sess, req, resetOnly)
	return run, false, nil
}

// register makes a run known to Lookup and to repeats of its id.
func (s *Service) register(run *Run) {
	s.mu.Lock()
	s.runs[run.ID] = run
	s.mu.Unlock()
}

// launch queues an accepted run behind the session's other runs.
func (s *Service) launch(run *Run, agent resolvedAgent, sess *sessions.Session, req StartRequest, resetOnly bool) {
	cfg := s.config()
	key := run.SessionKey
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = time.Duration(cfg.Agents.Defaults.TimeoutSeconds) * time.Second
	}
	models := req.Models
	if len(models) == 0 {
		models = agent.Models
		// A session's own model goes first (else the chat's), the agent's
		// stay as fallbacks.
		if first := cmp.Or(sess.Model, req.ChannelModel); first != "" {
			models = append([]string{first}, slices.DeleteFunc(slices.Clone(models), func(m string) bool { return m == first })...)
		}
	}
	job := func(ctx context.Context) {
		if counted := !resetOnly && req.SpawnedBy == "" && !req.Nested; counted {
			// Waiting for a slot is not part of the run's time.
			if err := s.slots.acquire(ctx, s.config().Agents.Defaults.MaxConcurrent); err != nil {
				if req.Resumable && !s.closing.Load() {
					s.endAccepted(run.ID)
				}
				now := time.Now()
				s.finish(run, RunResult{Status: "aborted", Error: "aborted before it started", StartedAt: now, EndedAt: now})
				return
			}
			defer func() { s.slots.release(s.config().Agents.Defaults.MaxConcurrent) }()
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		var res RunResult
		if resetOnly {
			res = RunResult{Status: "ok", Text: "Started a new session.", StartedAt: time.Now(), EndedAt: time.Now(), StopReason: providers.StopEnd}
			s.finishReset(run, req.SpawnedBy)
		} else {
			res = s.execute(ctx, run, agent, models, req)
		}
		// Cut off by a shutdown, the run stays accepted and runs again at
		// the next start; any other end is its end.
		if req.Resumable && !(res.Status == "aborted" && s.closing.Load()) {
			s.endAccepted(run.ID)
		}
		s.finish(run, res)
	}
	s.queue.Enqueue(key, sessions.Job{ID: run.ID, Run: job})
	// A run aborted while still queued never starts; end it anyway so
	// waiters hear of it.
	go func() {
		if err := s.queue.Wait(context.Background(), run.ID); err != nil {
			if req.Resumable && !errors.Is(err, sessions.ErrQueueClosed) {
				// A person stopped it, or it panicked: over. A shutdown
				// leaves it to the next start.
				s.endAccepted(run.ID)
			}
			now := time.Now()
			s.finish(run, RunResult{Status: "aborted", Error: "aborted before it started", StartedAt: now, EndedAt: now})
		}
	}()
}

func (s *Service) endAccepted(runID string) {
	if err := s.opts.Store.EndAccepted(context.Background(), runID); err != nil {
		s.log.Error("forget accepted run", "runId", runID, "err", err)
	}
}

// finish records the result, wakes waiters and forgets the run later.
func (s *Service) finish(run *Run, res RunResult) {
	first := false
	run.once.Do(func() {
		first = true
		run.result = res
		close(run.done)
	})
	if !first {
		return
	}
	s.mu.Lock()
	s.ended = append(s.ended, run.ID)
	for len(s.ended) > maxEndedRuns {
		delete(s.runs, s.ended[0])
		s.ended = s.ended[1:]
	}
	s.mu.Unlock()
	time.AfterFunc(runRetention, func() {
		s.mu.Lock()
		delete(s.runs, run.ID)
		s.mu.Unlock()
	})
}

// maxEndedRuns caps how many ended runs stay known, so a busy gateway's
// memory does not grow with its turn rate.
const maxEndedRuns = 4096

func (s *Service) finishReset(run *Run, spawnedBy string) {
	ev := &runEvents{emit: s.opts.Emit, runID: run.ID, sessionKey: run.SessionKey, sessionID: run.SessionID, agentID: run.AgentID, spawnedBy: spawnedBy}
	ev.lifecycle("start", nil)
	ev.chat("final", map[string]any{"stopReason": providers.StopEnd, "message": assistantMessage("Started a new session.")})
	ev.lifecycle("end", nil)
}

// Lookup finds a run accepted in the last minutes.
func (s *Service) Lookup(runID string) (*Run, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.runs[runID]
	return r, ok
}

// Abort cancels the running (or queued) run of a session; runID "" means
// whatever runs now. It reports whether anything was cancelled.
func (s *Service) Abort(sessionKey, runID string) bool {
	return s.queue.Abort(sessionKey, runID)
}
