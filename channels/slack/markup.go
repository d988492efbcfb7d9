package slack

import (
	"strings"
)

// mentions reports whether text mentions the bot user: <@U…> or
// <@U…|name>.
func mentions(text, botUserID string) bool {
	if botUserID == "" {
		return false
	}
	return strings.Contains(text, "<@"+botUserID+">") || strings.Contains(text, "<@"+botUserID+"|")
}

// mentionsOtherUser reports whether text mentions a user other than the
// bot and the sender. Without the bot's id it says false, so
// ignoreOtherMentions lets messages through rather than drop them.
func mentionsOtherUser(text, botUserID, senderID string) bool {
	if botUserID == "" {
		return false
	}
	for rest := text; ; {
		i := strings.Index(rest, "<@")
		if i < 0 {
			return false
		}
		rest = rest[i+2:]
		end := strings.IndexAny(rest, ">|")
		if end < 0 {
			return false
		}
		if id := rest[:end]; id != "" && id != botUserID && id != senderID {
			return true
		}
	}
}

// stripMention removes every mention of the bot from text, with the
// colon or comma people type after a leading one ("<@U1>: hi" → "hi").
func stripMention(text, botUserID string) string {
	if botUserID == "" || !mentions(text, botUserID) {
		return text
	}
	var out string
	rest := text
	for {
		i := strings.Index(rest, "<@"+botUserID)
		if i < 0 {
			out += rest
			break
		}
		end := strings.IndexByte(rest[i:], '>')
		tok := ""
		if end >= 0 {
			tok = rest[i+2 : i+end]
		}
		if end < 0 || (tok != botUserID && !strings.HasPrefix(tok, botUserID+"|")) {
			// <@U1X…>: another user whose id starts with ours.
			out += rest[:i+2]
			rest = rest[i+2:]
			continue
		}
		out += rest[:i]
		rest = strings.TrimLeft(rest[i+end+1:], " ")
		switch {
		case strings.TrimSpace(out) == "":
			// A leading mention, often followed by ":" or ",".
			if r, ok := strings.CutPrefix(rest, ":"); ok {
				rest = r
			} else if r, ok := strings.CutPrefix(rest, ","); ok {
				rest = r
			}
			rest = strings.TrimLeft(rest, " ")
		case rest != "" && strings.ContainsRune(",.:;!?", rune(rest[0])):
			out = strings.TrimRight(out, " ") // "hey <@U1>, hi" → "hey, hi"
		case rest != "" && !strings.HasSuffix(out, " ") && !strings.HasSuffix(out, "\n") && rest[0] != '\n':
			out += " "
		}
	}
	return strings.TrimSpace(out)
}

// readableText turns Slack's message markup into text a model reads
// plainly: <@U1|ada> → @ada, <@U1> → @U1, <#C1|general> → #general,
// <!here> → @here, <!subteam^S1|@ops> → @ops, <https://x|label> →
// label (https://x), <mailto:a@b|a@b> → a@b, and the &amp; &lt; &gt;
// escapes decoded. Anything else is left as it is.
func readableText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			break
		}
		b.WriteString(unescape(s[:i]))
		b.WriteString(readableToken(s[i+1 : i+j]))
		s = s[i+j+1:]
	}
	b.WriteString(unescape(s))
	return b.String()
}

func readableToken(tok string) string {
	target, label, hasLabel := strings.Cut(tok, "|")
	label = unescape(label)
	switch {
	case strings.HasPrefix(target, "@"):
		if hasLabel && label != "" {
			return "@" + strings.TrimPrefix(label, "@")
		}
		return target
	case strings.HasPrefix(target, "#"):
		if hasLabel && label != "" {
			return "#" + strings.TrimPrefix(label, "#")
		}
		return target
	case strings.HasPrefix(target, "!"):
		if hasLabel && label != "" {
			return label
		}
		name, _, _ := strings.Cut(target[1:], "^")
		return "@" + name
	}
	target = unescape(target)
	if !hasLabel || label == "" || label == target {
		return strings.TrimPrefix(target, "mailto:")
	}
	if plain := strings.TrimPrefix(target, "mailto:"); plain == label ||
		strings.TrimPrefix(strings.TrimPrefix(target, "https://"), "http://") == label {
		return label
	}
	return label + " (" + target + ")"
}

var unescaper = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")

func unescape(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	return unescaper.Replace(s)
}
