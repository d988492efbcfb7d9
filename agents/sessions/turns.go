package sessions

import (
	"cmp"
	"slices"
)

// TurnContext is what the run runID may see of a session's context
// (Context's answer): the turns accepted before its own, each followed by
// what its run said and did, then its own message and whatever the run
// already did. Messages of turns accepted after runID's own are left out.
//
// A session queues its runs, and every accepted message is persisted at
// once, so the transcript of three quick messages reads u1 u2 u3 a1 a2 a3.
// Run 2 must answer u2 with a1 before it, not u3: in a session several
// people share (a main session all DMs go to) the next message is another
// sender's, and an answer built on it would carry their words to the
// wrong person.
//
// A message's turn is the seq of its run's user message; a run whose user
// message a summary already covers is an earlier turn. Messages of no run
// count as their own turn. When runID has no user message in context (a
// summary covered it), context is returned unchanged.
func TurnContext(context []Message, runID string) []Message {
	turnOf := map[string]int64{}
	for _, m := range context {
		if m.Role == RoleUser && !m.Summary && m.RunID != "" {
			if _, seen := turnOf[m.RunID]; !seen {
				turnOf[m.RunID] = m.Seq
			}
		}
	}
	own, ok := turnOf[runID]
	if runID == "" || !ok {
		return context
	}
	type placed struct {
		turn int64
		m    Message
	}
	kept := make([]placed, 0, len(context))
	for _, m := range context {
		var turn int64 // summaries, and runs whose message they cover, come first
		switch {
		case m.Summary:
		case m.RunID == "":
			turn = m.Seq
		default:
			if at, found := turnOf[m.RunID]; found {
				turn = at
			}
		}
		if turn <= own {
			kept = append(kept, placed{turn, m})
		}
	}
	slices.SortStableFunc(kept, func(a, b placed) int {
		if c := cmp.Compare(a.turn, b.turn); c != 0 {
			return c
		}
		if a.m.Summary != b.m.Summary {
			if a.m.Summary {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.m.Seq, b.m.Seq)
	})
	out := make([]Message, len(kept))
	for i, p := range kept {
		out[i] = p.m
	}
	return out
}

// SummaryCut decides how much of older (the part of a run's context
// SplitForCompaction chose to summarise) a summary may cover. A summary
// covers every message of the transcript up to the seq it names, but a
// run's context is not the whole transcript: it leaves out later turns
// (TurnContext), and it orders messages by turn, so older may hold an
// earlier turn's answer stored after a message that recent keeps.
//
// through is the highest seq such that every message of context (the
// whole of Context's answer) with a seq up to it is in older; summarise
// is what the summary must say (older's earlier summary and its messages
// up to through), keep what stays verbatim before recent (older's
// messages after through). through is 0 when nothing can be covered.
func SummaryCut(context, older []Message) (through int64, summarise, keep []Message) {
	inOlder := map[int64]bool{}
	for _, m := range older {
		if !m.Summary {
			inOlder[m.Seq] = true
		}
	}
	seqs := make([]int64, 0, len(context))
	for _, m := range context {
		if !m.Summary {
			seqs = append(seqs, m.Seq)
		}
	}
	slices.Sort(seqs)
	for _, seq := range seqs {
		if !inOlder[seq] {
			break
		}
		through = seq
	}
	if through == 0 {
		return 0, nil, older
	}
	for _, m := range older {
		if m.Summary || m.Seq <= through {
			summarise = append(summarise, m)
		} else {
			keep = append(keep, m)
		}
	}
	return through, summarise, keep
}
