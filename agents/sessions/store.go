package sessions

import (
	"context"
	"database/sql"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are this package's tables (component "sessions").
func Migrations() store.Migrations {
	return store.FromDir("sessions", migrationFiles, "migrations")
}

// Store keeps session rows and transcripts. It is safe for concurrent use.
type Store struct {
	db  *sql.DB
	log *slog.Logger
	now func() time.Time
	// wmu serialises this store's write transactions, so two appends never
	// race for the same seq.
	wmu sync.Mutex
	// changes counts write transactions, so a reader that caches figures
	// drawn from the store can tell it is still fresh without a query.
	changes atomic.Uint64
}

// New returns a store over a database opened with Migrations applied.
func New(db *sql.DB, log *slog.Logger) *Store {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Store{db: db, log: log.With("component", "sessions"), now: time.Now}
}

// Origin is where a session's conversation lives, for replies and for
// showing where it came from.
type Origin struct {
	Channel   string `json:"channel,omitempty"`
	AccountID string `json:"accountId,omitempty"`
	ChatType  string `json:"chatType,omitempty"` // direct, group or channel
	PeerID    string `json:"peerId,omitempty"`
	ThreadID  string `json:"threadId,omitempty"`
	To        string `json:"to,omitempty"` // the address replies go to
	Label     string `json:"label,omitempty"`
}

// Session is one session row.
type Session struct {
	Key             string    `json:"key"`
	SessionID       string    `json:"sessionId"`
	AgentID         string    `json:"agentId"`
	Kind            Kind      `json:"keyKind"` // see RowKind for SessionRow.kind
	Label           string    `json:"label,omitempty"`
	DisplayName     string    `json:"displayName,omitempty"`
	Model           string    `json:"model,omitempty"`         // model override ("provider/model")
	Thinking        string    `json:"thinkingLevel,omitempty"` // thinking level override
	Verbose         string    `json:"verboseLevel,omitempty"`  // /verbose: on, full, off or "" (off)
	SendPolicy      string    `json:"sendPolicy,omitempty"`    // "", allow or deny
	GroupActivation string    `json:"groupActivation,omitempty"`
	Archived        bool      `json:"archived,omitempty"`
	ArchivedAt      time.Time `json:"archivedAt,omitzero"`
	Pinned          bool      `json:"pinned,omitempty"`
	PinnedAt        time.Time `json:"pinnedAt,omitzero"`
	SpawnedBy       string    `json:"spawnedBy,omitempty"` // parent session key
	Depth           int       `json:"spawnDepth,omitempty"`
	Origin          Origin    `json:"origin"`
	CreatedAt       time.Time `json:"createdAt"`
	StartedAt       time.Time `json:"sessionStartedAt"` // when SessionID began
	UpdatedAt       time.Time `json:"updatedAt"`
	LastMessageAt   time.Time `json:"lastInteractionAt,omitzero"`
	LastResetAt     time.Time `json:"lastResetAt,omitzero"`
	PreviousID      string    `json:"previousSessionId,omitempty"`
	InputTokens     int64     `json:"inputTokens"`
	OutputTokens    int64     `json:"outputTokens"`
	MessageCount    int64     `json:"messageCount"`
	CompactionCount int64     `json:"compactionCount"`
}

// RowKind is the session's kind as SessionRow.kind reports it: direct,
// group, global or unknown.
func (s *Session) RowKind() string {
	k, _ := Parse(s.Key)
	return k.RowKind()
}

// Init holds a new session's first values; Ensure ignores it for an
// existing session.
type Init struct {
	// AgentID defaults to the key's agent, then "main"; it must match the
	// key's agent when the key names one.
	AgentID     string
	Label       string
	DisplayName string
	Model       string
	Thinking    string
	SendPolicy  string
	// SpawnedBy is the parent session key of a sub-agent session; Depth
	// its spawn depth (default: the key's sub-agent depth).
	SpawnedBy string
	Depth     int
	// Origin defaults to what the key says (channel, account, peer, thread).
	Origin *Origin
}

const sessionCols = `key, session_id, agent_id, kind, label, display_name, model_override, thinking_level,
	send_policy, group_activation, archived_at, pinned_at, spawned_by, depth, origin, created_at, started_at,
	updated_at, last_message_at, last_reset_at, previous_session_id, input_tokens, output_tokens,
	message_count, compaction_count, verbose_level`

type scanner interface{ Scan(dest ...any) error }

func scanSession(r scanner) (*Session, error) {
	var s Session
	var archived, pinned, created, started, updated, lastMsg, lastReset int64
	var origin string
	err := r.Scan(&s.Key, &s.SessionID, &s.AgentID, &s.Kind, &s.Label, &s.DisplayName, &s.Model, &s.Thinking,
		&s.SendPolicy, &s.GroupActivation, &archived, &pinned, &s.SpawnedBy, &s.Depth, &origin, &created, &started,
		&updated, &lastMsg, &lastReset, &s.PreviousID, &s.InputTokens, &s.OutputTokens,
		&s.MessageCount, &s.CompactionCount, &s.Verbose)
	if err != nil {
		return nil, err
	}
	s.ArchivedAt, s.PinnedAt = msTime(archived), msTime(pinned)
	s.Archived, s.Pinned = archived != 0, pinned != 0
	s.CreatedAt, s.StartedAt, s.UpdatedAt = msTime(created), msTime(started), msTime(updated)
	s.LastMessageAt, s.LastResetAt = msTime(lastMsg), msTime(lastReset)
	if err := json.Unmarshal([]byte(origin), &s.Origin); err != nil {
		return nil, fmt.Errorf("decode origin of session %q: %w", s.Key, err)
	}
	return &s, nil
}

// msTime reads a stored unix-millisecond time; 0 is the zero time.
func msTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// conn is what a write transaction's statements run on.
type conn = store.Conn

// write runs fn in an IMMEDIATE transaction while holding the store's
// write lock, so this store's own writers queue here rather than in
// SQLite's busy loop.
func (s *Store) write(ctx context.Context, fn func(c conn) error) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	// Counted after the transaction ends, committed or not: a reader that
	// saw the old count then reads the new rows.
	defer s.changes.Add(1)
	return store.Immediate(ctx, s.db, fn)
}

// Changes is the number of write transactions this store has run. It
// moves whenever the sessions or their transcripts may have changed.
func (s *Store) Changes() uint64 { return s.changes.Load() }

// Get returns the session with the given key.
func (s *Store) Get(ctx context.Context, key string) (*Session, error) {
	k, err := Parse(key)
	if err != nil {
		return nil, err
	}
	return s.get(ctx, s.db, `key=?`, k.Raw)
}

// GetByID returns the session whose current session id is sessionID. An
// id retired by a reset is not found here; History still reads it.
func (s *Store) GetByID(ctx context.Context, sessionID string) (*Session, error) {
	return s.get(ctx, s.db, `session_id=?`, sessionID)
}

func (s *Store) get(ctx context.Context, q conn, where string, arg string) (*Session, error) {
	sess, err := scanSession(q.QueryRowContext(ctx, `SELECT `+sessionCols+` FROM sessions WHERE `+where, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("load session %q: %w", arg, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load session %q: %w", arg, err)
	}
	return sess, nil
}

// Ensure returns the session with the given key, creating it from init if
// there is none; created says which.
func (s *Store) Ensure(ctx context.Context, key string, init Init) (sess *Session, created bool, err error) {
	k, err := Parse(key)
	if err != nil {
		return nil, false, err
	}
	if sess, err := s.get(ctx, s.db, `key=?`, k.Raw); err == nil || !errors.Is(err, ErrNotFound) {
		return sess, false, err
	}
	agent, err := initAgent(k, init.AgentID)
	if err != nil {
		return nil, false, err
	}
	if err := checkValues(init.Label, init.SendPolicy, ""); err != nil {
		return nil, false, err
	}
	origin := keyOrigin(k)
	if init.Origin != nil {
		origin = *init.Origin
	}
	originJSON, _ := json.Marshal(origin)
	depth, spawnedBy := init.Depth, init.SpawnedBy
	if depth == 0 {
		depth = k.Depth
	}
	if spawnedBy == "" && k.Kind == KindSubagent {
		spawnedBy = k.Parent
	}
	err = s.write(ctx, func(tx conn) error {
		if err := labelFree(ctx, tx, agent, init.Label, k.Raw); err != nil {
			return err
		}
		now := s.now().UnixMilli()
		res, err := tx.ExecContext(ctx, `INSERT INTO sessions (key, session_id, agent_id, kind, label, display_name,
			model_override, thinking_level, send_policy, spawned_by, depth, origin, created_at, started_at, updated_at)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(key) DO NOTHING`,
			k.Raw, uuid.NewString(), agent, string(k.Kind), init.Label, init.DisplayName, init.Model, init.Thinking,
			init.SendPolicy, spawnedBy, depth, string(originJSON), now, now, now)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		created = n == 1
		sess, err = s.get(ctx, tx, `key=?`, k.Raw)
		return err
	})
	if err != nil {
		return nil, false, fmt.Errorf("create session %q: %w", k.Raw, err)
	}
	if created {
		s.log.Debug("session created", "session", k.Raw, "sessionId", sess.SessionID, "agent", agent)
	}
	return sess, created, nil
}

func initAgent(k Key, want string) (string, error) {
	if want != "" && !ValidAgentID(want) {
		return "", fmt.Errorf("%w: agent id %q", ErrInvalid, want)
	}
	switch {
	case k.AgentID != "" && want != "" && NormalizeAgentID(want) != k.AgentID:
		return "", fmt.Errorf("%w: key %q belongs to agent %q, not %q", ErrInvalid, k.Raw, k.AgentID, want)
	case k.AgentID != "":
		return k.AgentID, nil
	case want != "":
		return NormalizeAgentID(want), nil
	}
	return DefaultAgentID, nil
}

func keyOrigin(k Key) Origin {
	o := Origin{Channel: k.Channel, AccountID: k.AccountID, PeerID: k.PeerID, ThreadID: k.ThreadID}
	if k.PeerKind != "" {
		o.ChatType = k.PeerKind
	}
	return o
}

// MaxLabelLen is the longest label (sessions.patch's limit).
const MaxLabelLen = 512

func checkValues(label, sendPolicy, activation string) error {
	if len(label) > MaxLabelLen {
		return fmt.Errorf("%w: label longer than %d bytes", ErrInvalid, MaxLabelLen)
	}
	switch sendPolicy {
	case "", "allow", "deny":
	default:
		return fmt.Errorf("%w: send policy %q (want allow or deny)", ErrInvalid, sendPolicy)
	}
	switch activation {
	case "", "mention", "always":
	default:
		return fmt.Errorf("%w: group activation %q (want mention or always)", ErrInvalid, activation)
	}
	return nil
}

// labelFree fails with ErrLabelInUse if another session of agent has label.
func labelFree(ctx context.Context, tx conn, agent, label, key string) error {
	if label == "" {
		return nil
	}
	var other string
	err := tx.QueryRowContext(ctx, `SELECT key FROM sessions WHERE agent_id=? AND label=? AND key<>?`, agent, label, key).Scan(&other)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("%w: %q is the label of %s", ErrLabelInUse, label, other)
}
