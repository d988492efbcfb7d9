package sessions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func TestAppendHistory(t *testing.T) {
	ctx := context.Background()
	s, c := newTestStore(t)
	sess := mustEnsure(t, s, "agent:main:main", Init{})
	msgs := []Message{
		{Role: RoleUser, Text: "weather?"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "web_fetch", Arguments: json.RawMessage(`{"url":"x"}`)}},
			Usage: Usage{Input: 100, Output: 20}, Provider: "anthropic", Model: "claude", StopReason: "tool_use", RunID: "r1"},
		{Role: RoleTool, ToolCallID: "c1", ToolName: "web_fetch", Text: "sunny", IsError: false},
		{Role: RoleAssistant, Text: "Sunny.", Usage: Usage{Input: 130, Output: 5}},
	}
	c.Add(time.Minute)
	if err := s.Append(ctx, sess.SessionID, msgs...); err != nil {
		t.Fatal(err)
	}
	got, err := s.History(ctx, sess.SessionID, HistoryQuery{})
	if err != nil || len(got) != 4 {
		t.Fatalf("History = %d messages, %v", len(got), err)
	}
	for i, m := range got {
		want := msgs[i]
		want.Seq, want.Ts = int64(i+1), c.Now()
		if !m.Ts.Equal(want.Ts) {
			t.Errorf("message %d ts %v, want %v", i, m.Ts, want.Ts)
		}
		m.Ts = want.Ts
		a, _ := json.Marshal(m)
		b, _ := json.Marshal(want)
		if !bytes.Equal(a, b) {
			t.Errorf("message %d\n got %s\nwant %s", i, a, b)
		}
	}
	cur, _ := s.Get(ctx, sess.Key)
	if cur.MessageCount != 4 || cur.InputTokens != 230 || cur.OutputTokens != 25 ||
		!cur.UpdatedAt.Equal(c.Now()) || !cur.LastMessageAt.Equal(c.Now()) {
		t.Errorf("counters %+v", cur)
	}
	if n, err := s.Count(ctx, sess.SessionID); err != nil || n != 4 {
		t.Errorf("Count = %d, %v", n, err)
	}
	seq, err := s.AppendMessage(ctx, sess.SessionID, Message{Role: RoleUser, Text: "thanks"})
	if err != nil || seq != 5 {
		t.Errorf("AppendMessage = %d, %v", seq, err)
	}
	for _, tc := range []struct {
		name string
		id   string
		m    Message
		err  error
	}{
		{"bad role", sess.SessionID, Message{Role: "robot"}, ErrInvalid},
		{"unknown id", "no-such-id", Message{Role: RoleUser}, ErrNotFound},
		{"bad tool arguments", sess.SessionID, Message{Role: RoleAssistant, ToolCalls: []ToolCall{{Arguments: json.RawMessage(`{`)}}}, nil},
	} {
		err := s.Append(ctx, tc.id, tc.m)
		if tc.err == nil && err == nil || tc.err != nil && !errors.Is(err, tc.err) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.err)
		}
	}
	if n, _ := s.Count(ctx, sess.SessionID); n != 5 {
		t.Errorf("failed appends left %d messages", n)
	}
}

func TestHistoryPaging(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestStore(t)
	sess := mustEnsure(t, s, "agent:main:main", Init{})
	var batch []Message
	for i := 0; i < 1200; i++ {
		batch = append(batch, Message{Role: RoleUser, Text: "m"})
	}
	if err := s.Append(ctx, sess.SessionID, batch...); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		q           HistoryQuery
		first, last int64
	}{
		{"default limit keeps the newest", HistoryQuery{}, 1001, 1200},
		{"limit", HistoryQuery{Limit: 3}, 1198, 1200},
		{"limit capped", HistoryQuery{Limit: 5000}, 201, 1200},
		{"before", HistoryQuery{Limit: 3, BeforeSeq: 10}, 7, 9},
		{"after pages forward", HistoryQuery{Limit: 3, AfterSeq: 10}, 11, 13},
		{"after and before keep the newest", HistoryQuery{Limit: 3, AfterSeq: 10, BeforeSeq: 20}, 17, 19},
		{"after the end", HistoryQuery{AfterSeq: 1200}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.History(ctx, sess.SessionID, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if tc.first == 0 {
				if len(got) != 0 {
					t.Fatalf("got %d messages, want none", len(got))
				}
				return
			}
			if len(got) != int(tc.last-tc.first+1) || got[0].Seq != tc.first || got[len(got)-1].Seq != tc.last {
				t.Fatalf("got %d messages %d..%d, want %d..%d", len(got), got[0].Seq, got[len(got)-1].Seq, tc.first, tc.last)
			}
		})
	}
}

func TestConcurrentAppend(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestStore(t)
	sess := mustEnsure(t, s, "agent:main:main", Init{})
	const writers, each = 10, 20
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				errs <- s.Append(ctx, sess.SessionID, Message{Role: RoleUser, Text: "x", Usage: Usage{Input: 1}})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.History(ctx, sess.SessionID, HistoryQuery{Limit: MaxHistoryLimit})
	if err != nil || len(got) != writers*each {
		t.Fatalf("History = %d, %v", len(got), err)
	}
	for i, m := range got {
		if m.Seq != int64(i+1) {
			t.Fatalf("message %d has seq %d: seq not dense", i, m.Seq)
		}
	}
	cur, _ := s.Get(ctx, sess.Key)
	if cur.MessageCount != writers*each || cur.InputTokens != writers*each {
		t.Errorf("counters %d messages, %d tokens", cur.MessageCount, cur.InputTokens)
	}
}

func TestSummaryContext(t *testing.T) {
	ctx := context.Background()
	s, c := newTestStore(t)
	sess := mustEnsure(t, s, "agent:main:main", Init{})
	for _, text := range []string{"a", "b", "c", "d"} {
		if err := s.Append(ctx, sess.SessionID, Message{Role: RoleUser, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := s.Context(ctx, sess.SessionID); len(got) != 4 {
		t.Fatalf("context without a summary: %d messages", len(got))
	}
	before, _ := s.Get(ctx, sess.Key)
	c.Add(time.Hour)
	if err := s.AppendSummary(ctx, sess.SessionID, "first summary", 2); err != nil {
		t.Fatal(err)
	}
	if after, _ := s.Get(ctx, sess.Key); !after.LastMessageAt.Equal(before.LastMessageAt) || !after.UpdatedAt.Equal(before.UpdatedAt) {
		t.Errorf("a summary is not activity: last message %v -> %v", before.LastMessageAt, after.LastMessageAt)
	}
	if err := s.Append(ctx, sess.SessionID, Message{Role: RoleUser, Text: "e"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendSummary(ctx, sess.SessionID, "second summary", 3); err != nil {
		t.Fatal(err)
	}
	got, err := s.Context(ctx, sess.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range got {
		texts = append(texts, m.Text)
	}
	want := []string{"second summary", "d", "e"}
	if len(texts) != len(want) || texts[0] != want[0] || texts[1] != want[1] || texts[2] != want[2] {
		t.Fatalf("context %q, want %q", texts, want)
	}
	if !got[0].Summary || got[0].SummaryThrough != 3 || got[0].Role != RoleSystem || got[0].Seq != 7 {
		t.Errorf("summary message %+v", got[0])
	}
	if n, _ := s.Count(ctx, sess.SessionID); n != 7 {
		t.Errorf("the full transcript should stay: %d messages", n)
	}
	cur, _ := s.Get(ctx, sess.Key)
	if cur.CompactionCount != 2 || cur.MessageCount != 7 {
		t.Errorf("after summaries: %+v", cur)
	}
	for _, through := range []int64{0, 99} {
		if err := s.AppendSummary(ctx, sess.SessionID, "x", through); !errors.Is(err, ErrInvalid) {
			t.Errorf("summary through %d: %v", through, err)
		}
	}
}

// TestMessageEncoding pins the JSON kept in transcript_messages.content.
func TestMessageEncoding(t *testing.T) {
	ctx := context.Background()
	s, _ := newTestStore(t)
	sess := mustEnsure(t, s, "agent:main:main", Init{})
	m := Message{Role: RoleAssistant, Text: "checking", ToolCalls: []ToolCall{{ID: "call_1", Name: "exec",
		Arguments: json.RawMessage(`{"command":"ls"}`)}}, Provider: "anthropic", Model: "claude-opus-4-6",
		Usage: Usage{Input: 1200, Output: 40}, StopReason: "tool_use", RunID: "run-1",
		Ts: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	if err := s.Append(ctx, sess.SessionID, m, Message{Role: RoleTool, ToolCallID: "call_1", ToolName: "exec",
		Text: "permission denied", IsError: true, Ts: m.Ts}); err != nil {
		t.Fatal(err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT content FROM transcript_messages WHERE session_id=? ORDER BY seq`, sess.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got bytes.Buffer
	for rows.Next() {
		var content string
		rows.Scan(&content)
		got.WriteString(content + "\n")
	}
	golden := filepath.Join("testdata", "message_content.golden")
	if *update {
		os.WriteFile(golden, got.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("stored content changed (run with -update if intended)\n got %s\nwant %s", got.Bytes(), want)
	}
}
