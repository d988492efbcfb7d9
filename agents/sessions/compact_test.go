package sessions

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestEstimateTokens(t *testing.T) {
	for _, tc := range []struct {
		name string
		msgs []Message
		want int
	}{
		{"none", nil, 0},
		{"empty message", []Message{{Role: RoleUser}}, 4},
		{"four bytes", []Message{{Role: RoleUser, Text: "abcd"}}, 5},
		{"rounds up", []Message{{Role: RoleUser, Text: "abcde"}}, 6},
		{"tool call", []Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "exec", Arguments: json.RawMessage(`{"a":1}`)}}}}, 4 + 8 + 4},
		{"tool result", []Message{{Role: RoleTool, ToolCallID: "c1", ToolName: "exec", Text: "ok"}}, 4 + 2},
		{"sums", []Message{{Text: "abcd"}, {Text: "abcd"}}, 10},
	} {
		if got := EstimateTokens(tc.msgs); got != tc.want {
			t.Errorf("%s: EstimateTokens = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func text(role, s string) Message { return Message{Role: role, Text: s} }

func call(ids ...string) Message {
	m := Message{Role: RoleAssistant}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Name: "exec"})
	}
	return m
}

func result(id string, size int) Message {
	return Message{Role: RoleTool, ToolCallID: id, ToolName: "exec", Text: strings.Repeat("r", size)}
}

func TestSplitForCompaction(t *testing.T) {
	big := strings.Repeat("x", 400) // 104 tokens with overhead
	for _, tc := range []struct {
		name   string
		msgs   []Message
		window int
		keep   int
		need   bool
		nOlder int
	}{
		{"under 80%", []Message{text(RoleUser, big)}, 1000, 100, false, 0},
		{"exactly 80%", []Message{text(RoleUser, strings.Repeat("x", 304))}, 100, 10, false, 0},
		{"plain split", []Message{text(RoleUser, big), text(RoleAssistant, big), text(RoleUser, big), text(RoleAssistant, big)}, 300, 210, true, 2},
		{"keeps at least the last", []Message{text(RoleUser, big), text(RoleAssistant, big)}, 100, 10, true, 1},
		{"backs up to the tool call", []Message{text(RoleUser, big), call("c1"), result("c1", 400), text(RoleAssistant, "done")}, 200, 115, true, 1},
		{"two results stay with their call", []Message{text(RoleUser, big), call("a", "b"), result("a", 400), result("b", 400), text(RoleAssistant, big)}, 300, 220, true, 1},
		{"moves forward when the call starts the transcript", []Message{call("c1"), result("c1", 400), result("c1", 400), text(RoleUser, big)}, 200, 220, true, 3},
		{"all fits keep: still summarises something", []Message{text(RoleUser, big), text(RoleAssistant, big)}, 100, 10000, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			older, recent, need := SplitForCompaction(tc.msgs, tc.window, tc.keep)
			if need != tc.need || len(older) != tc.nOlder {
				t.Fatalf("need %v, %d older; want %v, %d", need, len(older), tc.need, tc.nOlder)
			}
			checkSplit(t, tc.msgs, older, recent)
		})
	}
}

// checkSplit fails t if older+recent is not msgs or a tool result is cut
// off from its call.
func checkSplit(t *testing.T, msgs, older, recent []Message) {
	t.Helper()
	joined := append(slices.Clone(older), recent...)
	if len(joined) != len(msgs) {
		t.Fatalf("split lost messages: %d + %d != %d", len(older), len(recent), len(msgs))
	}
	for i := range msgs {
		if !slices.EqualFunc(joined[i].ToolCalls, msgs[i].ToolCalls, func(a, b ToolCall) bool { return a.ID == b.ID }) ||
			joined[i].Text != msgs[i].Text || joined[i].Role != msgs[i].Role {
			t.Fatalf("split reordered message %d", i)
		}
	}
	if len(recent) > 0 && recent[0].Role == RoleTool {
		t.Fatalf("recent starts with a tool result")
	}
	inOlder := map[string]bool{}
	for _, m := range older {
		for _, c := range m.ToolCalls {
			inOlder[c.ID] = true
		}
	}
	for _, m := range recent {
		if m.Role == RoleTool && inOlder[m.ToolCallID] {
			t.Fatalf("tool result %s kept without its call", m.ToolCallID)
		}
	}
}

// TestSplitNeverOrphans splits random conversations at random budgets.
func TestSplitNeverOrphans(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for run := 0; run < 500; run++ {
		var msgs []Message
		n := 0
		for turns := 1 + r.IntN(8); turns > 0; turns-- {
			msgs = append(msgs, text(RoleUser, strings.Repeat("u", r.IntN(300))))
			for steps := r.IntN(3); steps > 0; steps-- {
				var ids []string
				for k := 1 + r.IntN(3); k > 0; k-- {
					n++
					ids = append(ids, fmt.Sprint("c", n))
				}
				msgs = append(msgs, call(ids...))
				for _, id := range ids {
					msgs = append(msgs, result(id, r.IntN(800)))
				}
			}
			msgs = append(msgs, text(RoleAssistant, strings.Repeat("a", r.IntN(300))))
		}
		window, keep := 50+r.IntN(1000), r.IntN(600)
		older, recent, need := SplitForCompaction(msgs, window, keep)
		checkSplit(t, msgs, older, recent)
		if need && len(older) == 0 {
			t.Fatalf("run %d: need but nothing to summarise", run)
		}
		if !need && (older != nil || len(recent) != len(msgs)) {
			t.Fatalf("run %d: no need but split anyway", run)
		}
	}
}

func TestPreserveTurns(t *testing.T) {
	u := func(s string) Message { return Message{Role: RoleUser, Text: s} }
	a := func(s string) Message { return Message{Role: "assistant", Text: s} }
	call := Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Name: "exec"}}}
	res := Message{Role: RoleTool, ToolCallID: "c1", Text: "done"}
	texts := func(ms []Message) string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Role+":"+m.Text)
		}
		return strings.Join(out, ",")
	}
	msgs := []Message{u("1"), a("a1"), u("2"), a("a2"), u("3"), a("a3"), u("4")}
	tests := []struct {
		name       string
		msgs       []Message
		cut, turns int
		wantOlder  string
	}{
		{"zero turns keeps the split", msgs, 5, 0, "user:1,assistant:a1,user:2,assistant:a2,user:3"},
		{"two turns move the split back to user 3", msgs, 5, 2, "user:1,assistant:a1,user:2,assistant:a2"},
		{"turns already in recent keep the split", msgs, 2, 2, "user:1,assistant:a1"},
		{"more turns than there are keep the split", msgs, 5, 9, "user:1,assistant:a1,user:2,assistant:a2,user:3"},
		{"all turns would leave nothing: the split stays", msgs, 5, 4, "user:1,assistant:a1,user:2,assistant:a2,user:3"},
		{"a tool pair is not parted", []Message{u("1"), call, res, u("2"), a("a2"), u("3")}, 5, 2, "user:1,assistant:,tool:done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			older, recent := PreserveTurns(tt.msgs[:tt.cut:tt.cut], tt.msgs[tt.cut:], tt.turns)
			if got := texts(older); got != tt.wantOlder {
				t.Fatalf("older = %s, want %s", got, tt.wantOlder)
			}
			if len(older)+len(recent) != len(tt.msgs) {
				t.Fatalf("%d + %d messages of %d", len(older), len(recent), len(tt.msgs))
			}
		})
	}
}
