package sessions

import (
	"fmt"
	"strings"
	"testing"
)

// seqs writes messages as "seq:role:run" for comparisons.
func seqs(msgs []Message) string {
	parts := make([]string, len(msgs))
	for i, m := range msgs {
		parts[i] = fmt.Sprintf("%d:%s:%s", m.Seq, m.Role, m.RunID)
		if m.Summary {
			parts[i] = fmt.Sprintf("%d:summary", m.Seq)
		}
	}
	return strings.Join(parts, " ")
}

func msg(seq int64, role, run string) Message { return Message{Seq: seq, Role: role, RunID: run} }

func summaryAt(seq, through int64) Message {
	return Message{Seq: seq, Role: RoleSystem, Summary: true, SummaryThrough: through}
}

func TestTurnContext(t *testing.T) {
	// Three quick messages: all three stored before the first answer.
	queued := []Message{msg(1, RoleUser, "r1"), msg(2, RoleUser, "r2"), msg(3, RoleUser, "r3"),
		msg(4, RoleAssistant, "r1"), msg(5, RoleAssistant, "r2")}
	withTools := []Message{msg(1, RoleUser, "r1"), msg(2, RoleUser, "r2"), msg(3, RoleAssistant, "r1"),
		msg(4, RoleTool, "r1"), msg(5, RoleUser, "r3"), msg(6, RoleAssistant, "r1")}
	for _, tc := range []struct {
		name    string
		context []Message
		runID   string
		want    string
	}{
		{"first run sees only its message", queued, "r1", "1:user:r1 4:assistant:r1"},
		{"second run sees the first turn answered, then its own", queued, "r2", "1:user:r1 4:assistant:r1 2:user:r2 5:assistant:r2"},
		{"third run", queued, "r3", "1:user:r1 4:assistant:r1 2:user:r2 5:assistant:r2 3:user:r3"},
		{"an earlier turn's tool steps stay with it", withTools, "r2", "1:user:r1 3:assistant:r1 4:tool:r1 6:assistant:r1 2:user:r2"},
		{"in order already: unchanged", []Message{msg(1, RoleUser, "a"), msg(2, RoleAssistant, "a"), msg(3, RoleUser, "b")}, "b",
			"1:user:a 2:assistant:a 3:user:b"},
		{"summary first, a summarised run's answer is an earlier turn",
			[]Message{summaryAt(9, 3), msg(4, RoleUser, "r2"), msg(5, RoleAssistant, "r1"), msg(6, RoleUser, "r3"), msg(7, RoleAssistant, "r2")}, "r2",
			"9:summary 5:assistant:r1 4:user:r2 7:assistant:r2"},
		{"a message of no run is its own turn", []Message{msg(1, RoleUser, "r1"), msg(2, RoleAssistant, ""), msg(3, RoleUser, "r2"), msg(4, RoleAssistant, "")}, "r2",
			"1:user:r1 2:assistant: 3:user:r2"},
		{"unknown run: unchanged", queued, "nope", seqs(queued)},
		{"no run id: unchanged", queued, "", seqs(queued)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := seqs(TurnContext(tc.context, tc.runID)); got != tc.want {
				t.Errorf("TurnContext(%s) =\n  %s\nwant\n  %s", tc.runID, got, tc.want)
			}
		})
	}
}

func TestSummaryCut(t *testing.T) {
	queued := []Message{msg(1, RoleUser, "r1"), msg(2, RoleUser, "r2"), msg(3, RoleUser, "r3"), msg(4, RoleAssistant, "r1")}
	for _, tc := range []struct {
		name          string
		context       []Message
		older         []Message
		through       int64
		summ, keeping string
	}{
		{"plain prefix", []Message{msg(1, RoleUser, "a"), msg(2, RoleAssistant, "a"), msg(3, RoleUser, "b")},
			[]Message{msg(1, RoleUser, "a"), msg(2, RoleAssistant, "a")}, 2, "1:user:a 2:assistant:a", ""},
		// Run 2's context is u1 a1(4) u2; u3 is not in it. Summarising u1
		// and a1 may cover seq 1 only: covering 4 would hide u2 and u3.
		{"stops before a message older does not hold", queued, []Message{msg(1, RoleUser, "r1"), msg(4, RoleAssistant, "r1")}, 1,
			"1:user:r1", "4:assistant:r1"},
		{"nothing coverable", queued, []Message{msg(4, RoleAssistant, "r1")}, 0, "", "4:assistant:r1"},
		{"an earlier summary is summarised again", []Message{summaryAt(9, 3), msg(4, RoleUser, "a"), msg(5, RoleAssistant, "a"), msg(6, RoleUser, "b")},
			[]Message{summaryAt(9, 3), msg(4, RoleUser, "a")}, 4, "9:summary 4:user:a", ""},
		{"only the earlier summary: nothing new", []Message{summaryAt(9, 3), msg(4, RoleUser, "a")}, []Message{summaryAt(9, 3)}, 0, "", "9:summary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			through, summ, keep := SummaryCut(tc.context, tc.older)
			if through != tc.through || seqs(summ) != tc.summ || seqs(keep) != tc.keeping {
				t.Errorf("SummaryCut = %d, [%s], [%s]; want %d, [%s], [%s]", through, seqs(summ), seqs(keep), tc.through, tc.summ, tc.keeping)
			}
		})
	}
}
