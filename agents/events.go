package agents

import (
	"sync"
	"time"
)

// Emitter publishes events on the bus; it must not block.
type Emitter interface {
	Broadcast(event string, payload any)
}

// Bus event names this package emits.
const (
	eventAgent = "agent"
	eventChat  = "chat"
)

// runEvents numbers and sends one run's agent and chat events. Each run
// counts its own seq, as clients expect.
type runEvents struct {
	emit       Emitter
	runID      string
	sessionKey string
	sessionID  string
	agentID    string
	spawnedBy  string
	heartbeat  bool // a heartbeat turn: clients may hide it
	// onText hears the current step's text as it grows (a chat's
	// preview); it must not block.
	onText  func(text string)
	onDelta func(text string)
	// onNotice sends a short notice to the run's chat (a compaction
	// under way); nil when the run has no chat.
	onNotice func(text string)

	mu       sync.Mutex
	agentSeq int
	chatSeq  int
	text     string // cumulative assistant text of the current step
}

// notice tells the run's chat text, when it has one.
func (e *runEvents) notice(text string) {
	if e.onNotice != nil {
		e.onNotice(text)
	}
}

func (e *runEvents) agent(stream string, data map[string]any) {
	e.mu.Lock()
	e.agentSeq++
	seq := e.agentSeq
	e.mu.Unlock()
	p := map[string]any{
		"runId": e.runID, "seq": seq, "stream": stream, "ts": time.Now().UnixMilli(), "data": data,
		"sessionKey": e.sessionKey, "sessionId": e.sessionID, "agentId": e.agentID,
	}
	if e.spawnedBy != "" {
		p["spawnedBy"] = e.spawnedBy
	}
	if e.heartbeat {
		p["isHeartbeat"] = true
	}
	e.emit.Broadcast(eventAgent, p)
}

func (e *runEvents) chat(state string, fields map[string]any) {
	e.mu.Lock()
	e.chatSeq++
	seq := e.chatSeq
	e.mu.Unlock()
	p := map[string]any{"runId": e.runID, "sessionKey": e.sessionKey, "agentId": e.agentID, "seq": seq, "state": state}
	if e.spawnedBy != "" {
		p["spawnedBy"] = e.spawnedBy
	}
	for k, v := range fields {
		p[k] = v
	}
	e.emit.Broadcast(eventChat, p)
}

func (e *runEvents) lifecycle(phase string, extra map[string]any) {
	data := map[string]any{"phase": phase}
	switch phase {
	case "start":
		data["startedAt"] = time.Now().UnixMilli()
	case "end", "error":
		data["endedAt"] = time.Now().UnixMilli()
	}
	for k, v := range extra {
		data[k] = v
	}
	e.agent("lifecycle", data)
}

// delta streams a piece of assistant text on both streams.
func (e *runEvents) delta(piece string) {
	e.mu.Lock()
	e.text += piece
	text := e.text
	e.mu.Unlock()
	e.agent("assistant", map[string]any{"text": text, "delta": piece})
	e.chat("delta", map[string]any{"deltaText": piece, "message": assistantMessage(text)})
	if e.onText != nil {
		e.onText(text)
	}
	if e.onDelta != nil {
		e.onDelta(text)
	}
}

// restart voids the text streamed so far (a fallback model starts over).
func (e *runEvents) restart() {
	e.mu.Lock()
	e.text = ""
	e.mu.Unlock()
	e.chat("delta", map[string]any{"deltaText": "", "replace": true, "message": assistantMessage("")})
	if e.onText != nil {
		e.onText("")
	}
}

// newStep starts a fresh assistant message after tool calls.
func (e *runEvents) newStep() {
	e.mu.Lock()
	e.text = ""
	e.mu.Unlock()
}

// assistantMessage is the chat event's message in OpenClaw's shape.
func assistantMessage(text string) map[string]any {
	return map[string]any{
		"role":      "assistant",
		"content":   []any{map[string]any{"type": "text", "text": text}},
		"timestamp": time.Now().UnixMilli(),
	}
}
