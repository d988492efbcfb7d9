package sessions

// Estimate parameters: about four bytes of text per token, plus a few
// tokens of framing per message and per tool call.
const (
	bytesPerToken   = 4
	messageOverhead = 4
	toolOverhead    = 8
)

// CompactAtPercent is how full the context window may get before
// SplitForCompaction asks for a compaction.
const CompactAtPercent = 80

// EstimateTokens guesses how many tokens msgs take in a prompt. It is
// cheap and rough (about 4 bytes per token), meant for deciding when to
// compact, not for billing.
func EstimateTokens(msgs []Message) int {
	n := 0
	for i := range msgs {
		n += estimate(&msgs[i])
	}
	return n
}

func estimate(m *Message) int {
	bytes := len(m.Text) + len(m.ToolName) + len(m.ToolCallID)
	n := messageOverhead
	for _, c := range m.ToolCalls {
		bytes += len(c.Name) + len(c.ID) + len(c.Arguments)
		n += toolOverhead
	}
	return n + (bytes+bytesPerToken-1)/bytesPerToken
}

// SplitForCompaction decides whether msgs (oldest first) outgrow
// CompactAtPercent of contextWindow tokens and, if so, splits them into
// older (to summarise) and recent (to keep verbatim, about
// keepRecentTokens; at least the last message when it can). It never
// separates an assistant message's tool calls from their results: recent
// never starts with, or holds, a tool result whose call is in older. When
// need is false, older is nil and recent is msgs.
func SplitForCompaction(msgs []Message, contextWindow, keepRecentTokens int) (older, recent []Message, need bool) {
	if len(msgs) == 0 || EstimateTokens(msgs)*100 <= contextWindow*CompactAtPercent {
		return nil, msgs, false
	}
	// Walk back from the end while the recent part fits.
	cut, kept := len(msgs), 0
	for cut > 0 {
		t := estimate(&msgs[cut-1])
		if kept+t > keepRecentTokens && cut < len(msgs) {
			break
		}
		kept += t
		cut--
	}
	cut = max(cut, 1) // summarise something, even if all would fit
	if c := pairedCut(msgs, cut, -1); c > 0 {
		cut = c
	} else {
		// Keeping the pair would leave nothing to summarise: cut after it.
		cut = pairedCut(msgs, cut, +1)
	}
	return msgs[:cut:cut], msgs[cut:], true
}

// pairedCut moves cut (in direction dir) until msgs[cut:] holds no tool
// result whose call is in msgs[:cut], and does not start with a tool
// result. It returns len(msgs) or 0 when no such cut exists that way.
func pairedCut(msgs []Message, cut, dir int) int {
	callAt := map[string]int{}
	for i, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.ID != "" {
				callAt[c.ID] = i
			}
		}
	}
	ok := func(cut int) bool {
		if cut < len(msgs) && msgs[cut].Role == RoleTool {
			return false
		}
		for _, m := range msgs[cut:] {
			if m.Role == RoleTool && m.ToolCallID != "" {
				if at, found := callAt[m.ToolCallID]; found && at < cut {
					return false
				}
			}
		}
		return true
	}
	for cut > 0 && cut < len(msgs) && !ok(cut) {
		cut += dir
	}
	return cut
}

// PreserveTurns moves a split of SplitForCompaction earlier so that
// recent holds at least the newest turns user turns whole (each from its
// user message on), as long as older keeps something to summarise and
// no tool call is parted from its result. Otherwise the split stays.
func PreserveTurns(older, recent []Message, turns int) ([]Message, []Message) {
	if turns <= 0 || len(older) == 0 {
		return older, recent
	}
	msgs := append(older[:len(older):len(older)], recent...)
	seen, at := 0, -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == RoleUser && !msgs[i].Summary {
			seen++
			if seen == turns {
				at = i
				break
			}
		}
	}
	if at <= 0 || at >= len(older) {
		// Fewer turns than asked (summarising would leave nothing), or
		// they are in recent already: keep what the token budget chose.
		return older, recent
	}
	if c := pairedCut(msgs, at, -1); c > 0 {
		return msgs[:c:c], msgs[c:]
	}
	return older, recent
}
