package migrate

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// OpenClaw keeps each agent's sessions in its own database,
// DIR/agents/<agentId>/agent/openclaw-agent.sqlite: session_nodes has a
// row per session key (current_session_id names its transcript,
// entry_json is the session entry: label, overrides, where it talks),
// transcript_events the transcript as numbered JSON events (a tree by
// parentId; session_transcript_active_events lists the active branch),
// an event being JSON text or, when large, zstd-compressed JSON. Only
// the current transcript of each key is carried over; transcripts a
// reset retired stay behind.

const agentDBPath = "agent/openclaw-agent.sqlite"

// Limits on what is read from a source transcript: OpenClaw's own cap
// on one event, and a cap on one message's text here.
const (
	maxEventBytes = 4 << 20
	maxTextBytes  = 1 << 20
)

type sourceSession struct {
	agent, key, sessionID string
	entry                 []byte
}

type sessionsState struct {
	sessions []sourceSession
	cannot   map[string]int    // why → how many
	dbs      map[string]string // agent id → its database
}

// agentDBs finds each agent's database: DIR/agents/<id>/agent, or the
// agentDir the source config gives the agent (agents.entries.<id> or the
// older agents.list[]), relative to the folder holding DIR when it is
// not absolute (".openclaw/agents/x/state" in ~/.openclaw's config).
func agentDBs(from string) (map[string]string, []string) {
	dbs := map[string]string{}
	var invalid []string
	entries, _ := os.ReadDir(filepath.Join(from, agentsDir))
	for _, a := range entries {
		if path := filepath.Join(from, agentsDir, a.Name(), agentDBPath); fileExists(path) {
			if !sessions.ValidAgentID(a.Name()) {
				invalid = append(invalid, a.Name())
				continue
			}
			dbs[a.Name()] = path
		}
	}
	snap, err := config.Load(filepath.Join(from, sourceConfig), config.LoadOptions{Getenv: func(string) string { return "" }})
	if err != nil || snap == nil {
		return dbs, invalid
	}
	home, _ := os.UserHomeDir()
	for id, e := range snap.Config.Agents.Entries {
		dir := strings.TrimSpace(e.AgentDir)
		if dir == "" || !sessions.ValidAgentID(id) {
			continue
		}
		switch {
		case dir == "~" || strings.HasPrefix(dir, "~/"):
			dir = filepath.Join(home, strings.TrimPrefix(dir, "~"))
		case !filepath.IsAbs(dir):
			dir = filepath.Join(filepath.Dir(filepath.Clean(from)), dir)
		}
		if path := filepath.Join(dir, filepath.Base(agentDBPath)); fileExists(path) {
			dbs[id] = path
		}
	}
	return dbs, invalid
}

// readSessions lists the source's sessions, agent by agent.
func readSessions(ctx context.Context, from string) (sessionsState, error) {
	st := sessionsState{cannot: map[string]int{}}
	dbs, invalid := agentDBs(from)
	st.dbs = dbs
	if len(invalid) > 0 {
		st.cannot["agent folder name is not an agent id"] += len(invalid)
	}
	for _, agent := range slices.Sorted(maps.Keys(dbs)) {
		err := withAgentDB(ctx, dbs[agent], func(db *sql.DB) error {
			if ok, err := tableExists(ctx, db, "session_nodes"); err != nil || !ok {
				return err
			}
			rows, err := db.QueryContext(ctx, `SELECT session_key, current_session_id,
				CASE WHEN length(CAST(entry_json AS BLOB)) <= ? THEN entry_json ELSE '{}' END
				FROM session_nodes ORDER BY session_key`, maxJobBytes)
			if err != nil {
				return fmt.Errorf("read sessions: %w", err)
			}
			defer rows.Close()
			for rows.Next() {
				var s sourceSession
				if err := rows.Scan(&s.key, &s.sessionID, &s.entry); err != nil {
					return fmt.Errorf("read sessions: %w", err)
				}
				s.agent = agent
				k, err := sessions.Parse(s.key)
				switch {
				case err != nil || k.Raw != s.key:
					st.cannot["the session key is not one this gateway reads"]++
					continue
				case k.AgentID != "" && k.AgentID != s.agent:
					st.cannot["the session key names another agent"]++
					continue
				case cleanID(s.sessionID) == "":
					st.cannot["no session id"]++
					continue
				}
				st.sessions = append(st.sessions, s)
			}
			return rows.Err()
		})
		if err != nil {
			return st, fmt.Errorf("migrate: agent %s: %w", agent, err)
		}
	}
	return st, nil
}

// withAgentDB runs fn over a read-only snapshot of an agent database.
func withAgentDB(ctx context.Context, path string, fn func(db *sql.DB) error) error {
	db, closeFn, err := openSource(ctx, path)
	if err != nil {
		return err
	}
	defer closeFn()
	return fn(db)
}

func planSessions(ctx context.Context, p Paths, ours *sql.DB, st sessionsState) ([]Item, error) {
	oursHas, err := oursHasTable(ctx, ours, "sessions")
	if err != nil {
		return nil, err
	}
	byAgent := map[string][]sourceSession{}
	todo := 0
	for _, s := range st.sessions {
		if oursHas {
			ok, err := sessions.Known(ctx, ours, s.key, s.sessionID)
			if err != nil {
				return nil, fmt.Errorf("migrate: %w", err)
			}
			if ok {
				continue
			}
		}
		byAgent[s.agent] = append(byAgent[s.agent], s)
		todo++
	}
	out := splitItems("sessions and transcripts", len(st.sessions), todo,
		"sessions.list and chat history show them; the next message continues each one",
		func(ctx context.Context, db *sql.DB) error {
			for agent, list := range byAgent {
				err := withAgentDB(ctx, st.dbs[agent], func(src *sql.DB) error {
					for _, s := range list {
						if err := importSession(ctx, src, db, s); err != nil {
							return fmt.Errorf("session %s: %w", s.key, err)
						}
					}
					return nil
				})
				if err != nil {
					return err
				}
			}
			return nil
		})
	for _, why := range sortedKeys(st.cannot) {
		out = append(out, Item{Name: "sessions", Count: st.cannot[why], Action: ActionCannot,
			Note: why + "; those conversations start fresh"})
	}
	return out, nil
}

// sessionEntry is the part of OpenClaw's session entry we carry over.
type sessionEntry struct {
	SessionStartedAt int64           `json:"sessionStartedAt"`
	UpdatedAt        int64           `json:"updatedAt"`
	CreatedAt        int64           `json:"createdAt"`
	Label            string          `json:"label"`
	DisplayName      string          `json:"displayName"`
	ModelOverride    string          `json:"modelOverride"`
	ProviderOverride string          `json:"providerOverride"`
	ThinkingLevel    string          `json:"thinkingLevel"`
	SpawnedBy        string          `json:"spawnedBy"`
	ChatType         string          `json:"chatType"`
	LastChannel      string          `json:"lastChannel"`
	LastTo           string          `json:"lastTo"`
	LastAccountID    string          `json:"lastAccountId"`
	LastThreadID     json.RawMessage `json:"lastThreadId"`
	CompactionCount  int64           `json:"compactionCount"`
}

// importSession reads one session's transcript from src and stores it.
func importSession(ctx context.Context, src, db *sql.DB, s sourceSession) error {
	var e sessionEntry
	_ = json.Unmarshal(s.entry, &e)
	msgs, err := readTranscript(ctx, src, s.sessionID)
	if err != nil {
		return err
	}
	in := sessions.ImportedSession{
		Key: s.key, SessionID: s.sessionID, AgentID: s.agent,
		Label: cleanName(e.Label), DisplayName: cleanName(e.DisplayName), Thinking: cleanID(e.ThinkingLevel),
		SpawnedBy: cleanID(e.SpawnedBy), CreatedAt: e.CreatedAt, StartedAt: e.SessionStartedAt, UpdatedAt: e.UpdatedAt,
		Compactions: e.CompactionCount, Messages: msgs,
	}
	if m := cleanID(e.ModelOverride); m != "" {
		if p := cleanID(e.ProviderOverride); p != "" && !strings.Contains(m, "/") {
			m = p + "/" + m
		}
		in.Model = m
	}
	route, hasRoute := sessionRoute(e)
	if hasRoute {
		in.Origin = sessions.Origin{Channel: route.Channel, AccountID: route.AccountID, ChatType: string(route.ChatKind),
			PeerID: route.ChatID, ThreadID: route.ThreadID, To: route.ChatID}
	}
	if ok, err := sessions.Import(ctx, db, in); err != nil || !ok {
		return err
	}
	if hasRoute {
		if ok, err := channels.RouteKnown(ctx, db, s.key); err != nil || ok {
			return err
		}
		_, err := channels.ImportRoute(ctx, db, s.key, route, max(e.UpdatedAt, 1))
		return err
	}
	return nil
}

// sessionRoute is the chat a channel session talks in, from the entry's
// last delivery target.
func sessionRoute(e sessionEntry) (channels.Route, bool) {
	ch := strings.ToLower(cleanID(e.LastChannel))
	if !pairingNetworks[ch] {
		return channels.Route{}, false
	}
	to := senderID(strings.TrimPrefix(strings.TrimPrefix(e.LastTo, "channel:"), "group:"))
	if to == "" {
		return channels.Route{}, false
	}
	kind := channels.Direct
	switch e.ChatType {
	case "group":
		kind = channels.Group
	case "channel":
		kind = channels.Channel
	}
	thread := strings.Trim(strings.TrimSpace(string(e.LastThreadID)), `"`)
	if thread == "null" || cleanID(thread) == "" {
		thread = ""
	}
	return channels.Route{Channel: ch, AccountID: accountID(e.LastAccountID), ChatID: to, ChatKind: kind, ThreadID: thread}, true
}

// readTranscript reads a transcript's messages, the active branch in
// order when the source lists it, else every event by seq. Events over
// maxEventBytes are left out.
func readTranscript(ctx context.Context, src *sql.DB, sessionID string) ([]sessions.Message, error) {
	active, err := tableExists(ctx, src, "session_transcript_active_events")
	if err != nil {
		return nil, err
	}
	hasActive := false
	if active {
		var n int
		if err := src.QueryRowContext(ctx, `SELECT count(*) FROM session_transcript_active_events WHERE session_id = ?`, sessionID).Scan(&n); err != nil {
			return nil, fmt.Errorf("read transcript: %w", err)
		}
		hasActive = n > 0
	}
	const cols = `e.created_at,
		CASE WHEN length(CAST(e.event_json AS BLOB)) <= ? THEN e.event_json END,
		CASE WHEN length(e.event_zstd) <= ? AND COALESCE(e.event_utf8_bytes, 0) <= ? THEN e.event_zstd END`
	q := `SELECT ` + cols + ` FROM transcript_events e WHERE e.session_id = ? ORDER BY e.seq`
	if hasActive {
		q = `SELECT ` + cols + ` FROM session_transcript_active_events a JOIN transcript_events e
			ON e.session_id = a.session_id AND e.seq = a.event_seq WHERE a.session_id = ? ORDER BY a.active_position`
	}
	rows, err := src.QueryContext(ctx, q, maxEventBytes, maxEventBytes, maxEventBytes, sessionID)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	defer rows.Close()
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxEventBytes), zstd.WithDecoderMaxWindow(maxEventBytes), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	var out []sessions.Message
	for rows.Next() {
		var created int64
		var text sql.NullString
		var packed []byte
		if err := rows.Scan(&created, &text, &packed); err != nil {
			return nil, fmt.Errorf("read transcript: %w", err)
		}
		raw := []byte(text.String)
		if !text.Valid {
			if packed == nil {
				continue // over the limit
			}
			if raw, err = dec.DecodeAll(packed, nil); err != nil || len(raw) > maxEventBytes {
				continue
			}
		}
		if m, ok := eventMessage(raw, created, len(out)); ok {
			out = append(out, m)
		}
	}
	return out, rows.Err()
}

// transcriptEvent is one event of an OpenClaw transcript.
type transcriptEvent struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Summary   string `json:"summary"` // compaction
	Message   *struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		Timestamp  int64           `json:"timestamp"`
		ToolCallID string          `json:"toolCallId"`
		ToolName   string          `json:"toolName"`
		IsError    bool            `json:"isError"`
		Provider   string          `json:"provider"`
		Model      string          `json:"model"`
		StopReason string          `json:"stopReason"`
		Usage      struct {
			Input  int64 `json:"input"`
			Output int64 `json:"output"`
		} `json:"usage"`
	} `json:"message"`
}

// contentBlock is one block of a message's content.
type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// eventMessage maps an event to our message: user, assistant (text and
// tool calls; thinking is left out) and tool results, and compaction
// summaries; other events (model changes, custom entries) are not
// messages. prior is how many messages came before.
func eventMessage(raw []byte, created int64, prior int) (sessions.Message, bool) {
	var ev transcriptEvent
	if json.Unmarshal(raw, &ev) != nil {
		return sessions.Message{}, false
	}
	ts := time.UnixMilli(created)
	if t, err := time.Parse(time.RFC3339Nano, ev.Timestamp); err == nil {
		ts = t
	}
	if ev.Type == "compaction" && strings.TrimSpace(ev.Summary) != "" && prior > 0 {
		return sessions.Message{Role: sessions.RoleSystem, Text: clipText(ev.Summary), Summary: true,
			SummaryThrough: int64(prior), Ts: ts}, true
	}
	if ev.Type != "message" || ev.Message == nil {
		return sessions.Message{}, false
	}
	m := ev.Message
	if m.Timestamp > 0 {
		ts = time.UnixMilli(m.Timestamp)
	}
	text, calls := contentText(m.Content)
	out := sessions.Message{Text: clipText(text), Ts: ts}
	switch m.Role {
	case "user":
		out.Role = sessions.RoleUser
	case "assistant":
		out.Role, out.ToolCalls = sessions.RoleAssistant, calls
		out.Provider, out.Model, out.StopReason = cleanID(m.Provider), cleanID(m.Model), cleanID(m.StopReason)
		out.Usage = sessions.Usage{Input: max(0, m.Usage.Input), Output: max(0, m.Usage.Output)}
	case "toolResult":
		out.Role, out.ToolCallID, out.ToolName, out.IsError = sessions.RoleTool, cleanID(m.ToolCallID), cleanID(m.ToolName), m.IsError
	default:
		return sessions.Message{}, false
	}
	if out.Text == "" && len(out.ToolCalls) == 0 && out.Role != sessions.RoleTool {
		return sessions.Message{}, false
	}
	return out, true
}

// contentText joins a content's text blocks (a plain string is one) and
// collects its tool calls; an image is named, not carried.
func contentText(raw json.RawMessage) (string, []sessions.ToolCall) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var blocks []contentBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return "", nil
	}
	var b strings.Builder
	var calls []sessions.ToolCall
	for _, bl := range blocks {
		switch bl.Type {
		case "text":
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(bl.Text)
		case "image":
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString("[image]")
		case "toolCall":
			args := bytes.TrimSpace(bl.Arguments)
			if len(args) == 0 || !json.Valid(args) {
				args = []byte("{}")
			}
			calls = append(calls, sessions.ToolCall{ID: cleanID(bl.ID), Name: cleanID(bl.Name), Arguments: json.RawMessage(args)})
		}
	}
	return b.String(), calls
}

// clipText cuts a text to maxTextBytes at a rune boundary.
func clipText(s string) string {
	if len(s) <= maxTextBytes {
		return s
	}
	cut := maxTextBytes
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n[cut: the message was longer than 1 MiB]"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
