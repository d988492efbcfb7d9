package agents

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/gateway/config"
)

// isSummaryRequest tells a compaction's model requests from a turn's.
func isSummaryRequest(r fakemodel.Recorded) bool { return strings.HasPrefix(r.System, compactPrompt) }

// seededTurn is the text of the i-th seeded user message: about 300
// tokens, naming its number so a test can tell where it went.
func seededTurn(i int) string {
	return fmt.Sprintf("message %d: ", i) + strings.Repeat("lorem ipsum dolor sit amet ", 44)
}

// compactionFixture is a session whose context is past 80% of a
// 2,000-token window: six seeded user turns of about 300 tokens, each
// answered "ok". The next turn compacts (when compaction is on).
// summarize answers each summary request; the turns themselves get "ok".
func compactionFixture(t *testing.T, compaction string, summarize func(r fakemodel.Recorded, n int) string) (*fixture, string) {
	t.Helper()
	f := newFixture(t, `{models:{providers:{fake:{baseUrl:"%s/v1", models:[{id:"small", contextWindow:2000}, {id:"summ", contextWindow:100000}]}}},
		agents:{defaults:{model:"fake/small", compaction:`+compaction+`}}}`, nil)
	var mu sync.Mutex
	n := 0
	f.model.Respond(func(r fakemodel.Recorded) (fakemodel.Reply, bool) {
		if !isSummaryRequest(r) {
			return fakemodel.Reply{Text: "ok"}, true
		}
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		return fakemodel.Reply{Text: summarize(r, k)}, true
	})
	f.run(t, StartRequest{Message: "hi"})
	sess, err := f.store.Get(context.Background(), "agent:main:main")
	if err != nil {
		t.Fatal(err)
	}
	// The oldest seeded turn gives an identifier the quality guard keeps.
	if err := f.store.Append(context.Background(), sess.SessionID,
		sessions.Message{Role: "user", Text: "please track " + trackedURL + " for me"}, sessions.Message{Role: "assistant", Text: "ok"}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 6; i++ {
		if err := f.store.Append(context.Background(), sess.SessionID,
			sessions.Message{Role: "user", Text: seededTurn(i)}, sessions.Message{Role: "assistant", Text: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	return f, sess.SessionID
}

// lastTurnRequest is the newest request of a turn (not a summary).
func lastTurnRequest(t *testing.T, f *fixture) fakemodel.Recorded {
	t.Helper()
	reqs := f.model.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if !isSummaryRequest(reqs[i]) {
			return reqs[i]
		}
	}
	t.Fatal("no turn request")
	return fakemodel.Recorded{}
}

func summaryRequests(f *fixture) []fakemodel.Recorded {
	return slices.DeleteFunc(f.model.Requests(), func(r fakemodel.Recorded) bool { return !isSummaryRequest(r) })
}

// sentText joins what a request sent the model, to look for a message.
func sentText(r fakemodel.Recorded) string {
	var b strings.Builder
	b.WriteString(r.System)
	for _, m := range r.Messages {
		b.WriteString("\n" + m.Text)
	}
	return b.String()
}

// trackedURL is the identifier of the oldest seeded turn.
const trackedURL = "https://example.test/tickets/4711"

func fixed(text string) func(fakemodel.Recorded, int) string {
	return func(fakemodel.Recorded, int) string { return text }
}

// TestCompactionSettings runs a turn past the window under each
// agents.defaults.compaction setting and checks what the model was sent.
func TestCompactionSettings(t *testing.T) {
	tests := []struct {
		name       string
		compaction string
		summarize  func(fakemodel.Recorded, int) string
		message    string
		check      func(t *testing.T, f *fixture, turn fakemodel.Recorded, summaries []fakemodel.Recorded)
	}{
		{
			name: "enabled false sends the whole context", compaction: `{enabled:false}`, summarize: fixed("SUMMARY " + trackedURL),
			check: func(t *testing.T, f *fixture, turn fakemodel.Recorded, summaries []fakemodel.Recorded) {
				if len(summaries) != 0 || !strings.Contains(sentText(turn), "message 1:") {
					t.Errorf("%d summary requests; turn had message 1: %v", len(summaries), strings.Contains(sentText(turn), "message 1:"))
				}
			},
		},
		{
			name: "maxActiveTranscriptBytes compacts even when off", compaction: `{enabled:false, maxActiveTranscriptBytes:"4kb"}`, summarize: fixed("SUMMARY of the old turns, tracking " + trackedURL),
			check: func(t *testing.T, f *fixture, turn fakemodel.Recorded, summaries []fakemodel.Recorded) {
				if len(summaries) == 0 || !strings.Contains(sentText(turn), "SUMMARY of the old turns") || strings.Contains(sentText(turn), "message 1:") {
					t.Errorf("%d summary requests; the turn was not sent the summary in place of message 1", len(summaries))
				}
			},
		},
		{
			name: "safeguard summarises in chunks of a quarter of the window", compaction: `{mode:"safeguard", recentTurnsPreserve:0}`,
			summarize: func(_ fakemodel.Recorded, n int) string { return fmt.Sprintf("SUMMARY-%d %s", n, trackedURL) },
			check: func(t *testing.T, f *fixture, turn fakemodel.Recorded, summaries []fakemodel.Recorded) {
				if len(summaries) < 2 {
					t.Fatalf("%d summary requests, want the chunks' (at least 2)", len(summaries))
				}
				if !strings.Contains(sentText(summaries[1]), "[summary so far]\nSUMMARY-1") {
					t.Errorf("the second chunk's request does not carry the first summary: %q", clip(sentText(summaries[1]), 300))
				}
				if want := fmt.Sprintf("SUMMARY-%d", len(summaries)); !strings.Contains(sentText(turn), want) {
					t.Errorf("the turn was not sent the last summary %s", want)
				}
			},
		},
		{
			name: "default mode asks once", compaction: `{mode:"default"}`, summarize: fixed("SUMMARY " + trackedURL),
			check: func(t *testing.T, f *fixture, turn fakemodel.Recorded, summaries []fakemodel.Recorded) {
				if len(summaries) != 1 {
					t.Errorf("%d summary requests, want 1", len(summaries))
				}
			},
		},
		{
			name: "recentTurnsPreserve keeps the newest turns whole", compaction: `{mode:"safeguard", recentTurnsPreserve:5}`, summarize: fixed("SUMMARY " + trackedURL),
			check: func(t *testing.T, f *fixture, turn fakemodel.Recorded, summaries []fakemodel.Recorded) {
				// The five newest user turns: this one and seeded 6 to 3.
				if text := sentText(turn); !strings.Contains(text, seededTurn(3)) || strings.Contains(text, "message 2:") {
					t.Errorf("want message 3 verbatim and message 2 summarised; got 3: %v, 2: %v", strings.Contains(text, seededTurn(3)), strings.Contains(text, "message 2:"))
				}
			},
		},
		{
			name: "without recentTurnsPreserve the token budget alone decides", compaction: `{mode:"default"}`, summarize: fixed("SUMMARY " + trackedURL),
			check: func(t *testing.T, f *fixture, turn fakemodel.Recorded, summaries []fakemodel.Recorded) {
				if strings.Contains(sentText(turn), "message 3:") {
					t.Error("message 3 was kept: the control case of recentTurnsPreserve does not control anything")
				}
			},
		},
		{
			name: "model writes the summaries, with no fallback", compaction: `{model:"fake/summ"}`, summarize: fixed("SUMMARY " + trackedURL),
			check: func(t *testing.T, f *fixture, turn fakemodel.Recorded, summaries []fakemodel.Recorded) {
				if len(summaries) == 0 || slices.ContainsFunc(summaries, func(r fakemodel.Recorded) bool { return r.Model != "summ" }) || turn.Model != "small" {
					t.Errorf("summary models %v, turn model %q; want summ and small", modelsOf(summaries), turn.Model)
				}
			},
		},
		{
			name:       "strict identifiers: a summary that drops the user's URL is asked for again",
			compaction: `{model:"fake/summ", qualityGuard:{maxRetries:1}}` /* one chunk: a wide window */, message: "and now?",
			summarize: func(r fakemodel.Recorded, n int) string {
				if n == 1 {
					return "SUMMARY without the link"
				}
				return "SUMMARY with https://example.test/tickets/4711 kept"
			},
			check: func(t *testing.T, f *fixture, turn fakemodel.Recorded, summaries []fakemodel.Recorded) {
				if len(summaries) != 2 || !strings.Contains(sentText(summaries[1]), "https://example.test/tickets/4711") ||
					!strings.Contains(sentText(summaries[1]), "leaves out these identifiers") {
					t.Fatalf("%d summary requests; the retry must name the missing URL", len(summaries))
				}
				if strings.Contains(sentText(summaries[1]), "message 1:") {
					t.Error("the retry sent the conversation again: in safeguard mode it may not fit the summary model")
				}
				if !strings.Contains(sentText(turn), "SUMMARY with https://example.test/tickets/4711 kept") {
					t.Error("the turn was not sent the corrected summary")
				}
			},
		},
		{
			name:       "a summary that never passes the guard leaves the context whole",
			compaction: `{model:"fake/summ", qualityGuard:{maxRetries:2}}`, summarize: fixed("SUMMARY without the link"),
			check: func(t *testing.T, f *fixture, turn fakemodel.Recorded, summaries []fakemodel.Recorded) {
				if len(summaries) != 3 || !strings.Contains(sentText(turn), "message 1:") {
					t.Errorf("%d summary requests (want 1 + 2 retries); the turn must get the unsummarised context", len(summaries))
				}
				sess, _ := f.store.Get(context.Background(), "agent:main:main")
				if msgs, _ := f.store.Context(context.Background(), sess.SessionID); slices.ContainsFunc(msgs, func(m sessions.Message) bool { return m.Summary }) {
					t.Error("a summary that failed the guard was stored")
				}
			},
		},
		{
			name:       "identifierPolicy off neither asks for nor checks identifiers",
			compaction: `{model:"fake/summ", identifierPolicy:"off"}`, summarize: fixed("SUMMARY without the link"),
			check: func(t *testing.T, f *fixture, turn fakemodel.Recorded, summaries []fakemodel.Recorded) {
				if len(summaries) != 1 || strings.Contains(summaries[0].System, strictIdentifiersPrompt) {
					t.Errorf("%d summary requests; strict prompt sent: %v", len(summaries), len(summaries) > 0 && strings.Contains(summaries[0].System, strictIdentifiersPrompt))
				}
			},
		},
		{
			name:       "postCompactionSections puts AGENTS.md sections back word for word",
			compaction: `{postCompactionSections:["Red Lines"]}`, summarize: fixed("SUMMARY " + trackedURL),
			check: func(t *testing.T, f *fixture, turn fakemodel.Recorded, summaries []fakemodel.Recorded) {
				text := sentText(turn)
				_, kept, found := strings.Cut(text, "[From AGENTS.md, kept word for word after this compaction]\n")
				if !found || !strings.HasPrefix(kept, "## Red Lines\nNever push to main.") || strings.Contains(kept, "Other rules") {
					t.Errorf("the turn's summary does not end with the Red Lines section alone: %q", clip(kept, 400))
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := compactionFixture(t, tt.compaction, tt.summarize)
			ws := f.svc.opts.StateDir + "/workspace"
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			agentsMD := "# Rules\n\n## Red Lines\nNever push to main.\n\n## Other rules\nBe brief.\n"
			if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte(agentsMD), 0o644); err != nil {
				t.Fatal(err)
			}
			res := f.run(t, StartRequest{Message: cmp.Or(tt.message, "and now?")})
			if res.Status != "ok" {
				t.Fatalf("turn: %+v", res)
			}
			tt.check(t, f, lastTurnRequest(t, f), summaryRequests(f))
		})
	}
}

func modelsOf(rs []fakemodel.Recorded) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Model)
	}
	return out
}

// TestCompactionNotifiesTheChat: notifyUser sends the run's chat a notice
// as a compaction starts and one when it is done.
func TestCompactionNotifiesTheChat(t *testing.T) {
	f, _ := compactionFixture(t, `{notifyUser:true}`, fixed("SUMMARY "+trackedURL))
	var mu sync.Mutex
	var notices []string
	res := f.run(t, StartRequest{Message: "and now?", OnNotice: func(text string) { mu.Lock(); notices = append(notices, text); mu.Unlock() }})
	mu.Lock()
	defer mu.Unlock()
	if res.Status != "ok" || !slices.Equal(notices, []string{noticeCompacting, noticeCompacted}) {
		t.Fatalf("status %s, notices %q", res.Status, notices)
	}
}

func TestUserIdentifiers(t *testing.T) {
	msgs := []sessions.Message{
		{Role: "user", Text: "see https://example.test/a/b?c=1, and /etc/openclaw/openclaw.json."},
		{Role: "assistant", Text: "noted https://assistant.test/x"},
		{Role: "user", Text: "ticket OPS-42, commit 3f2a9c1d, mail ana@example.test; the year 2026 and the word deadbeef are not ids"},
	}
	got := userIdentifiers(msgs)
	want := []string{"OPS-42", "3f2a9c1d", "ana@example.test", "https://example.test/a/b?c=1", "/etc/openclaw/openclaw.json"}
	if !slices.Equal(got, want) {
		t.Fatalf("identifiers = %q, want %q", got, want)
	}
}

func TestAuditSummary(t *testing.T) {
	tests := []struct {
		name, summary string
		replaced      int
		ids           []string
		wantProblem   string // "" when it passes
	}{
		{"passes", "kept OPS-42", 100, []string{"OPS-42"}, ""},
		{"empty", "  ", 100, nil, "empty"},
		{"no shorter", strings.Repeat("word ", 200), 100, nil, "no shorter"},
		{"missing id", "kept nothing", 100, []string{"OPS-42"}, "OPS-42"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := auditSummary(tt.summary, tt.replaced, tt.ids)
			if (tt.wantProblem == "") != (got == "") || !strings.Contains(got, tt.wantProblem) {
				t.Fatalf("audit = %q, want a problem containing %q", got, tt.wantProblem)
			}
		})
	}
}

func TestAgentsSections(t *testing.T) {
	ws := t.TempDir()
	md := "# Title\nintro\n## Session Startup\nread MEMORY.md\n### Detail\nstill startup\n## Red Lines\nnever rm -rf\n## Other\nx\n"
	if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		titles []string
		want   string
	}{
		{nil, ""},
		{[]string{"missing"}, ""},
		{[]string{"red lines"}, "## Red Lines\nnever rm -rf"},
		{[]string{"Session Startup", "Red Lines"}, "## Session Startup\nread MEMORY.md\n### Detail\nstill startup\n\n## Red Lines\nnever rm -rf"},
		{[]string{"Detail"}, "### Detail\nstill startup"},
	}
	for _, tt := range tests {
		got := agentsSections(ws, tt.titles)
		if tt.want == "" && got != "" || tt.want != "" && !strings.HasSuffix(got, "\n"+tt.want) {
			t.Errorf("sections %q = %q, want it to end with %q", tt.titles, got, tt.want)
		}
	}
}

func TestCompactionOf(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name string
		in   config.Compaction
		want compactionSettings
	}{
		{"defaults", config.Compaction{}, compactionSettings{auto: true, safeguard: true, keepRecent: 20000, turns: 3, strictIDs: true, guard: true, retries: 1, timeout: 180e9}},
		{"default mode has no guard", config.Compaction{Mode: "default", Enabled: &yes}, compactionSettings{auto: true, keepRecent: 20000, turns: 3, strictIDs: true, retries: 1, timeout: 180e9}},
		{"everything set", config.Compaction{Enabled: &no, KeepRecentTokens: 500, RecentTurnsPreserve: config.OptInt{V: 0, Set: true}, IdentifierPolicy: "off",
			QualityGuard: config.CompactionQualityGuard{Enabled: &no, MaxRetries: config.OptInt{V: 3, Set: true}}, TimeoutSeconds: 5, MaxActiveTranscriptBytes: 1 << 20, NotifyUser: true},
			compactionSettings{safeguard: true, keepRecent: 500, retries: 3, timeout: 5e9, maxBytes: 1 << 20, notify: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{}
			cfg.Agents.Defaults.Compaction = tt.in
			if got := compactionOf(cfg); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("settings = %+v\nwant       %+v", got, tt.want)
			}
		})
	}
}
