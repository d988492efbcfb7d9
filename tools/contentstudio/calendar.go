package contentstudio

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/tools"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the content calendar's table.
func Migrations() store.Migrations {
	return store.FromDir("contentstudio", migrationFiles, "migrations")
}

// Platforms the calendar knows.
var platforms = []string{"gzh", "xhs", "other"}

const (
	defaultRecentDays = 30
	maxRecentDays     = 365
	maxTopicRunes     = 500
	// similarAt is the share of shared character bigrams from which two
	// topics count as the same one said differently.
	similarAt = 0.6
)

// Calendar is the per-agent content calendar in the gateway's database.
type Calendar struct {
	DB  *sql.DB
	Now func() time.Time
}

// Item is one calendar entry.
type Item struct {
	ID          string  `json:"id"`
	Platform    string  `json:"platform"`
	Topic       string  `json:"topic"`
	Title       string  `json:"title,omitempty"`
	Status      string  `json:"status"`
	Ref         string  `json:"ref,omitempty"`
	CreatedAt   string  `json:"createdAt"`
	PublishedAt string  `json:"publishedAt,omitempty"`
	Similarity  float64 `json:"similarity,omitempty"`
}

func (c *Calendar) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// normalize keeps letters and digits, lower-cased: punctuation, spaces
// and emoji do not make a topic new.
func normalize(topic string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(topic) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Fingerprint is a topic's identity for dedup.
func Fingerprint(topic string) string {
	sum := sha256.Sum256([]byte(normalize(topic)))
	return hex.EncodeToString(sum[:12])
}

// similarity is the Dice coefficient of the two topics' character
// bigrams, after normalizing.
func similarity(a, b string) float64 {
	ba, bb := bigrams(normalize(a)), bigrams(normalize(b))
	if len(ba) == 0 || len(bb) == 0 {
		return 0
	}
	shared := 0
	for g, n := range ba {
		shared += min(n, bb[g])
	}
	total := 0
	for _, n := range ba {
		total += n
	}
	for _, n := range bb {
		total += n
	}
	return 2 * float64(shared) / float64(total)
}

func bigrams(s string) map[string]int {
	r := []rune(s)
	out := map[string]int{}
	if len(r) == 1 {
		out[s]++
	}
	for i := 0; i+1 < len(r); i++ {
		out[string(r[i:i+2])]++
	}
	return out
}

// Recent lists the agent's items from the last days whose topic is the
// same as topic or close to it, most similar first.
func (c *Calendar) Recent(ctx context.Context, agentID, topic string, days int) ([]Item, error) {
	since := c.now().AddDate(0, 0, -days).UnixMilli()
	rows, err := c.DB.QueryContext(ctx, `SELECT id, platform, topic, title, status, ref, created_at, published_at
		FROM content_items WHERE agent_id = ? AND created_at >= ? ORDER BY created_at DESC LIMIT 2000`, agentID, since)
	if err != nil {
		return nil, fmt.Errorf("read the content calendar: %w", err)
	}
	defer rows.Close()
	fp := Fingerprint(topic)
	var out []Item
	for rows.Next() {
		it, err := scanItem(rows)
		if err != nil {
			return nil, err
		}
		sim := similarity(topic, it.Topic)
		if Fingerprint(it.Topic) == fp {
			sim = 1
		}
		if sim >= similarAt {
			it.Similarity = float64(int(sim*100)) / 100
			out = append(out, it)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b Item) int { return cmp.Compare(b.Similarity, a.Similarity) })
	return out, nil
}

func scanItem(rows *sql.Rows) (Item, error) {
	var it Item
	var created int64
	var published sql.NullInt64
	if err := rows.Scan(&it.ID, &it.Platform, &it.Topic, &it.Title, &it.Status, &it.Ref, &created, &published); err != nil {
		return Item{}, err
	}
	it.CreatedAt = time.UnixMilli(created).UTC().Format(time.RFC3339)
	if published.Valid {
		it.PublishedAt = time.UnixMilli(published.Int64).UTC().Format(time.RFC3339)
	}
	return it, nil
}

// Record adds an item and returns it.
func (c *Calendar) Record(ctx context.Context, agentID, platform, topic, title, ref string) (Item, error) {
	it := Item{ID: uuid.NewString(), Platform: platform, Topic: topic, Title: title, Status: "draft", Ref: ref}
	now := c.now()
	_, err := c.DB.ExecContext(ctx, `INSERT INTO content_items (id, agent_id, platform, topic, fingerprint, title, status, ref, created_at)
		VALUES (?, ?, ?, ?, ?, ?, 'draft', ?, ?)`, it.ID, agentID, platform, topic, Fingerprint(topic), title, ref, now.UnixMilli())
	if err != nil {
		return Item{}, fmt.Errorf("record in the content calendar: %w", err)
	}
	it.CreatedAt = now.UTC().Format(time.RFC3339)
	return it, nil
}

// MarkPublished marks one of the agent's items published.
func (c *Calendar) MarkPublished(ctx context.Context, agentID, id, ref string) error {
	res, err := c.DB.ExecContext(ctx, `UPDATE content_items SET status = 'published', published_at = ?, ref = CASE WHEN ? = '' THEN ref ELSE ? END
		WHERE id = ? AND agent_id = ?`, c.now().UnixMilli(), ref, ref, id, agentID)
	if err != nil {
		return fmt.Errorf("update the content calendar: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		// Another agent's item is as unknown as a made-up id.
		return fmt.Errorf("no content item %q", id)
	}
	return nil
}

// ItemArgs are content_item's arguments.
type ItemArgs struct {
	Action   string `json:"action" jsonschema:"enum=check_recent,enum=record,enum=mark_published,description=check_recent: was this topic done lately; record: add it; mark_published: it went out"`
	Topic    string `json:"topic,omitempty" jsonschema:"description=check_recent and record: what the post is about"`
	Title    string `json:"title,omitempty" jsonschema:"description=record: the post's title"`
	Platform string `json:"platform,omitempty" jsonschema:"enum=gzh,enum=xhs,enum=other,description=record: where it goes (default other)"`
	Days     int    `json:"days,omitempty" jsonschema:"description=check_recent: how far back (default 30, at most 365)"`
	ID       string `json:"id,omitempty" jsonschema:"description=mark_published: the item"`
	Ref      string `json:"ref,omitempty" jsonschema:"description=record and mark_published: a package path or published URL to keep with it"`
}

func itemTool(cal *Calendar) tools.Tool {
	return tools.NewTyped(tools.Spec{
		Name: "content_item", Label: "Content calendar",
		Description: "The content calendar: check_recent (was this topic, or one close to it, done in the last days), record (add a post), mark_published.",
		Source:      tools.SourceCore, Groups: []string{"group:mateclaw"}, Timeout: tools.TimeoutFast,
	}, func(ctx context.Context, c tools.Call, a ItemArgs) (tools.Result, error) {
		agent := c.Who.AgentID
		switch a.Action {
		case "check_recent":
			if err := checkTopic(a.Topic); err != nil {
				return tools.Result{}, err
			}
			days := a.Days
			if days == 0 {
				days = defaultRecentDays
			}
			if days < 1 || days > maxRecentDays {
				return tools.Result{}, fmt.Errorf("days %d: want 1 to %d", days, maxRecentDays)
			}
			items, err := cal.Recent(ctx, agent, a.Topic, days)
			if err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Text: tools.EncodeJSON(map[string]any{"duplicate": len(items) > 0, "fingerprint": Fingerprint(a.Topic), "days": days, "matches": nonNil(items)})}, nil
		case "record":
			if err := checkTopic(a.Topic); err != nil {
				return tools.Result{}, err
			}
			p := a.Platform
			if p == "" {
				p = "other"
			}
			if !slices.Contains(platforms, p) {
				return tools.Result{}, fmt.Errorf("platform %q: want gzh, xhs or other", p)
			}
			it, err := cal.Record(ctx, agent, p, a.Topic, a.Title, a.Ref)
			if err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Text: tools.EncodeJSON(it)}, nil
		case "mark_published":
			if strings.TrimSpace(a.ID) == "" {
				return tools.Result{}, errors.New("mark_published needs id")
			}
			if err := cal.MarkPublished(ctx, agent, a.ID, a.Ref); err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Text: tools.EncodeJSON(map[string]any{"ok": true, "id": a.ID, "status": "published"})}, nil
		}
		return tools.Result{}, fmt.Errorf("unknown action %q (check_recent, record or mark_published)", a.Action)
	})
}

func checkTopic(topic string) error {
	switch {
	case strings.TrimSpace(topic) == "":
		return errors.New("needs topic")
	case utf8.RuneCountInString(topic) > maxTopicRunes:
		return errTooLong("topic", maxTopicRunes)
	}
	return nil
}

func nonNil(items []Item) []Item {
	if items == nil {
		return []Item{}
	}
	return items
}

func errTooLong(what string, n int) error {
	return fmt.Errorf("%s is longer than %d characters", what, n)
}
func errTooMany(what string, n int) error { return fmt.Errorf("%s has more than %d entries", what, n) }
