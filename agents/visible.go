package agents

import (
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/agents/providers"
)

// What the model is told when its final answer stays private. Without it
// a model writes its reply as usual and the chat never sees it.
const (
	messageToolPrompt = "Your final answer in this conversation is private: nobody in the chat sees it. " +
		"To say something in the chat, call the message tool with action \"send\" (no target: this chat). " +
		"Send only what the chat should read; do not repeat it in your final answer."
	roomEventPrompt = "This message was not addressed to you: it is conversation in a room you are listening to. " +
		"Your final answer is private and nothing is posted unless you call the message tool with action \"send\" (no target: this room). " +
		"Speak only when you have something the room needs; otherwise just take note, and end with a short private remark."
	roomEventNoToolPrompt = "This message was not addressed to you: it is conversation in a room you are listening to, " +
		"and you cannot post in it. Take note of what matters; your answer is private."
)

// visibleDelivery applies req.Visible to a run offered tools: whether its
// final answer is private, and the system prompt addition that says so.
func (s *Service) visibleDelivery(req StartRequest, offered []providers.Tool, extra, agentID, runID string) (private bool, prompt string) {
	hasMessage := slices.ContainsFunc(offered, func(t providers.Tool) bool { return t.Name == "message" })
	join := func(add string) string { return strings.TrimSpace(extra + "\n\n" + add) }
	switch req.Visible {
	case VisibleRoomEvent:
		if hasMessage {
			return true, join(roomEventPrompt)
		}
		return true, join(roomEventNoToolPrompt)
	case VisibleMessageTool:
		if hasMessage {
			return true, join(messageToolPrompt)
		}
		s.log.Warn("messages.visibleReplies is message_tool but the agent has no message tool under its tool policy: posting its replies as usual",
			"agent", agentID, "runId", runID)
	}
	return false, extra
}
