package agents

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/agents/providers"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/tools"
)

// CommandSender is who sent a message that may be a slash command, as the
// caller knows them. A StartRequest without one (sub-agents, sessions_send,
// scheduled jobs, heartbeats) never has its text read as a command: a
// model's words must not answer an approval or change a session.
type CommandSender struct {
	// ID names the sender for /whoami: "telegram:123", or the operator
	// client's id.
	ID string
	// Operator: the sender is a gateway client (chat.send, agent), whose
	// session defaults need operator.admin (Owner), as OpenClaw's gateway
	// asks of its callers; a channel sender that passed the chat's gate
	// may set them.
	Operator bool
	// CanApprove: the sender may answer approvals (/approve): an operator
	// holding operator.approvals or operator.admin, or a chat sender in
	// commands.ownerAllowFrom or the channel's execApprovals.approvers.
	CanApprove bool
	// Refused: commands.allowFrom does not list the sender. Their
	// command-only message is ignored, as OpenClaw does: nothing is
	// changed or answered, and the model never sees it.
	Refused bool
}

// ApprovalAnswerer settles pending approvals for /approve (the tools
// runtime's approval store).
type ApprovalAnswerer interface {
	// Match finds the pending request named by its id or a prefix of it.
	Match(ctx context.Context, ref string) (string, error)
	Resolve(ctx context.Context, id, decision string) error
}

// UseApprovals lets /approve answer pending approvals; call it before the
// first run.
func (s *Service) UseApprovals(a ApprovalAnswerer) { s.approvals = a }

// UseGatewayStatus adds the gateway's own lines (version, uptime) to the
// /status answer; call it before the first run.
func (s *Service) UseGatewayStatus(f func() []string) { s.gatewayStatus = f }

// slashCommand is one command-only message.
type slashCommand struct {
	name string // canonical name, without the slash
	args string
}

// commandAliases maps the names OpenClaw accepts onto the command.
var commandAliases = map[string]string{
	"help": "help", "commands": "commands", "status": "status",
	"whoami": "whoami", "id": "whoami",
	"verbose": "verbose", "v": "verbose",
	"think": "think", "thinking": "think", "t": "think",
	"model": "model", "stop": "stop", "approve": "approve",
	"tts": "tts",
}

// commandHelp is each command's line in /help and /commands.
var commandHelp = []struct{ name, usage, what string }{
	{"help", "/help", "this summary"},
	{"commands", "/commands", "every command the gateway answers itself"},
	{"status", "/status", "the session's model, settings and token use, and the gateway's version and uptime"},
	{"whoami", "/whoami", "your sender id (alias /id)"},
	{"new", "/new [message]", "start a fresh session (admin for gateway clients)"},
	{"reset", "/reset [message]", "start the session over (admin for gateway clients)"},
	{"stop", "/stop", "abort the session's current run"},
	{"model", "/model [provider/model|default]", "show or set this session's model"},
	{"think", "/think <level|default>", "set this session's thinking level (alias /t)"},
	{"verbose", "/verbose on|off|full", "set this session's verbose level (alias /v)"},
	{"approve", "/approve <id> allow-once|allow-always|deny", "answer a pending approval (approvers only)"},
	{"skill", "/skill <name> [input]", "have the agent run one of its skills (also /<skill> [input]); /skill alone lists them"},
	{"tts", "/tts on|off|status|provider <id>|persona off|audio <text>|latest", "show or set spoken replies for the whole gateway (changes: owner only), or say one text or the latest reply as a voice note"},
}

// parseSlashCommand reads a command-only message: "/name args", with the
// optional colon OpenClaw accepts ("/think: high"). Only names the
// gateway answers count; any other text goes to the model.
func parseSlashCommand(text string) (slashCommand, bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") || strings.Contains(text, "\n") {
		return slashCommand{}, false
	}
	name, args, _ := strings.Cut(text[1:], " ")
	name = strings.ToLower(strings.TrimSuffix(name, ":"))
	canonical, ok := commandAliases[name]
	if !ok {
		return slashCommand{}, false
	}
	return slashCommand{name: canonical, args: strings.TrimSpace(args)}, true
}

// runCommand answers a command without the model: the answer is the
// run's final message, sent at once rather than behind the session's
// queue (a /stop or an /approve is for the run that holds the queue).
// Neither the command nor its answer enters the transcript.
func (s *Service) runCommand(ctx context.Context, agent resolvedAgent, key string, req StartRequest, cmd slashCommand) (*Run, bool, error) {
	sess, _, err := s.opts.Store.Ensure(ctx, key, sessions.Init{AgentID: agent.ID})
	if err != nil {
		return nil, false, fmt.Errorf("open session %s: %w", key, err)
	}
	run := &Run{ID: req.RunID, AgentID: agent.ID, SessionKey: key, SessionID: sess.SessionID, AcceptedAt: time.Now(), done: make(chan struct{})}
	var reply, speak string
	if req.Commands.Refused {
		s.log.Info("gateway command ignored: sender not in commands.allowFrom", "command", cmd.name, "sessionKey", key, "sender", req.Commands.ID)
	} else {
		if cmd.name == "tts" {
			reply, speak = s.ttsCommand(ctx, sess, req, cmd.args)
		} else {
			reply = s.commandReply(ctx, sess, req, cmd)
		}
		s.log.Info("gateway command answered", "command", cmd.name, "sessionKey", key, "runId", run.ID)
	}
	s.register(run)
	go func() {
		now := time.Now()
		ev := &runEvents{emit: s.opts.Emit, runID: run.ID, sessionKey: run.SessionKey, sessionID: run.SessionID, agentID: run.AgentID}
		ev.lifecycle("start", nil)
		// command: true marks a command's answer, which OpenClaw's
		// clients show as a system line rather than the agent's words.
		msg := assistantMessage(reply)
		msg["command"] = true
		ev.chat("final", map[string]any{"stopReason": providers.StopEnd, "message": msg})
		ev.lifecycle("end", nil)
		s.finish(run, RunResult{Status: "ok", Text: reply, StartedAt: now, EndedAt: time.Now(), StopReason: providers.StopEnd, Command: true, Speak: speak})
	}()
	return run, false, nil
}

// commandReply carries out the command and says what it did.
func (s *Service) commandReply(ctx context.Context, sess *sessions.Session, req StartRequest, cmd slashCommand) string {
	who := req.Commands
	switch cmd.name {
	case "help":
		return "Commands the gateway answers itself: /status, /whoami, /new, /reset, /stop, /model, /think, /verbose, /approve, /skill, /tts. /commands lists them with what they do; anything else goes to the agent."
	case "commands":
		var b strings.Builder
		b.WriteString("Commands the gateway answers itself:")
		for _, c := range commandHelp {
			fmt.Fprintf(&b, "\n%s: %s", c.usage, c.what)
		}
		return b.String()
	case "whoami":
		if who.ID == "" {
			return "Your sender id is not known here."
		}
		return "You are " + who.ID + "."
	case "status":
		return s.statusText(ctx, sess)
	case "stop":
		s.onSessionEnd(ctx, s.config(), "", nil, resetEvent{action: "stop", command: true, key: sess.Key, sender: commandSender(req), source: req.Channel})
		if s.Abort(sess.Key, "") {
			return "Stopped the current run."
		}
		return "No run is in progress in this session."
	case "model":
		return s.modelCommand(ctx, sess, cmd.args)
	case "think":
		return s.thinkCommand(ctx, sess, cmd.args)
	case "verbose":
		return s.verboseCommand(ctx, sess, req, cmd.args)
	case "approve":
		return s.approveCommand(ctx, who, cmd.args)
	case "skill":
		return cmd.args // skillInvocation's answer
	}
	return "Unknown command /" + cmd.name + "."
}

// statusText is /status: what OpenClaw's answer tells, in our words.
func (s *Service) statusText(ctx context.Context, sess *sessions.Session) string {
	var lines []string
	if s.gatewayStatus != nil {
		lines = append(lines, s.gatewayStatus()...)
	}
	model, note := sess.Model, "session override; /model default clears it"
	if model == "" {
		model, note = s.defaultModel(sess.AgentID), "agent default"
	}
	if model == "" {
		model, note = "none configured", "set agents.defaults.model"
	}
	lines = append(lines, fmt.Sprintf("Model: %s (%s)", model, note))
	think, verbose := sess.Thinking, sess.Verbose
	if think == "" {
		think = "default"
	}
	if verbose == "" {
		verbose = "off"
	}
	lines = append(lines,
		fmt.Sprintf("Tokens: %d in / %d out", sess.InputTokens, sess.OutputTokens),
		fmt.Sprintf("Session: %s (agent %s, %d messages, %d compactions)", sess.Key, sess.AgentID, sess.MessageCount, sess.CompactionCount),
		fmt.Sprintf("Thinking: %s · Verbose: %s", think, verbose))
	state := "idle"
	if _, busy := s.queue.Running(sess.Key); busy {
		state = "running"
	}
	if n := s.queue.Pending(sess.Key); n > 0 {
		state += fmt.Sprintf(", %d queued", n)
	}
	lines = append(lines, "Run: "+state)
	// Spoken replies are worth a line only when they are on, as
	// OpenClaw's /status shows them.
	if s.tts != nil {
		if st, err := s.tts.TTSStatus(ctx); err == nil && st.Auto != "off" {
			lines = append(lines, fmt.Sprintf("TTS: %s · provider %s", st.Auto, cmp.Or(st.Provider, "none")))
		}
	}
	return strings.Join(lines, "\n")
}

func (s *Service) modelCommand(ctx context.Context, sess *sessions.Session, args string) string {
	if args == "" || strings.EqualFold(args, "status") {
		if sess.Model != "" {
			return fmt.Sprintf("Model: %s for this session (agent default %s). /model provider/model switches it; /model default clears it.", sess.Model, s.defaultModel(sess.AgentID))
		}
		return fmt.Sprintf("Model: %s (agent default). /model provider/model switches this session's model.", s.defaultModel(sess.AgentID))
	}
	ref := strings.Fields(args)[0] // scope flags (-s) mean this session, which is all we change
	value := ref
	if strings.EqualFold(ref, "default") {
		value = ""
	} else if chosen, err := s.chooseModel(sess.AgentID, ref); err != nil {
		return "Model not changed: " + err.Error()
	} else {
		value = chosen
	}
	if _, err := s.opts.Store.Patch(ctx, sess.Key, sessions.Patch{Model: &value}); err != nil {
		return "Could not set the model: " + err.Error()
	}
	if value == "" {
		return fmt.Sprintf("Session model reset to the agent default (%s).", s.defaultModel(sess.AgentID))
	}
	return fmt.Sprintf("Model set to %s for this session only; the configured default is unchanged.", value)
}

// thinkLevels are the thinking levels a session may keep.
var thinkLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh"}

func (s *Service) thinkCommand(ctx context.Context, sess *sessions.Session, args string) string {
	level := strings.ToLower(args)
	if level == "" {
		cur := sess.Thinking
		if cur == "" {
			cur = "default"
		}
		return fmt.Sprintf("Thinking level: %s. Usage: /think <%s|default>", cur, strings.Join(thinkLevels, "|"))
	}
	if level == "default" {
		level = ""
	} else if !slices.Contains(thinkLevels, level) {
		return fmt.Sprintf("Unknown thinking level %q. Options: %s, default.", args, strings.Join(thinkLevels, ", "))
	}
	if _, err := s.opts.Store.Patch(ctx, sess.Key, sessions.Patch{Thinking: &level}); err != nil {
		return "Could not set the thinking level: " + err.Error()
	}
	if level == "" {
		return "Thinking level reset to the default."
	}
	return "Thinking level set to " + level + "."
}

func (s *Service) verboseCommand(ctx context.Context, sess *sessions.Session, req StartRequest, args string) string {
	level := strings.ToLower(args)
	if level == "" {
		cur := sess.Verbose
		if cur == "" {
			cur = "off"
		}
		return "Verbose: " + cur + ". Usage: /verbose on|off|full"
	}
	if !sessions.ValidVerbose(level) {
		return fmt.Sprintf("Unknown verbose level %q. Options: on, off, full.", args)
	}
	if req.Commands.Operator && !req.Owner {
		return "Verbose settings need operator.admin for gateway clients; nothing was changed."
	}
	if _, err := s.opts.Store.Patch(ctx, sess.Key, sessions.Patch{Verbose: &level}); err != nil {
		return "Could not set verbose: " + err.Error()
	}
	switch level {
	case "on":
		return "Verbose set to on for this session."
	case "full":
		return "Verbose set to full for this session."
	}
	return "Verbose set to off for this session."
}

// approveCommand is /approve <id> <decision>: only an approver's counts,
// since the request usually waits in this very conversation and anyone
// else answering would be approving their own call.
func (s *Service) approveCommand(ctx context.Context, who *CommandSender, args string) string {
	const usage = "Usage: /approve <id> allow-once|allow-always|deny"
	if !who.CanApprove {
		return "You may not answer approvals here: that needs operator.approvals (or admin), a sender in commands.ownerAllowFrom, or one of the channel's execApprovals.approvers."
	}
	if s.approvals == nil {
		return "Approvals are not available on this gateway."
	}
	f := strings.Fields(args)
	if len(f) != 2 {
		return usage
	}
	decision := strings.ToLower(f[1])
	switch decision {
	case "allow", "once", "yes", "y":
		decision = "allow-once"
	case "always":
		decision = "allow-always"
	case "no", "n", "reject":
		decision = "deny"
	case "allow-once", "allow-always", "deny":
	default:
		return fmt.Sprintf("Unknown decision %q. %s", f[1], usage)
	}
	id, err := s.approvals.Match(ctx, f[0])
	if err == nil {
		err = s.approvals.Resolve(ctx, id, decision)
	}
	if err != nil {
		if errors.Is(err, tools.ErrUnknownApproval) {
			return fmt.Sprintf("No pending approval %q.", f[0])
		}
		return "Could not answer the approval: " + err.Error()
	}
	switch decision {
	case "deny":
		return fmt.Sprintf("Denied %s.", id)
	case "allow-always":
		return fmt.Sprintf("Allowed %s (always).", id)
	}
	return fmt.Sprintf("Allowed %s once.", id)
}
