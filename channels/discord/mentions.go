package discord

import (
	"cmp"
	"slices"
	"strings"
)

// maxAllowedUsers is Discord's limit on allowed_mentions.users.
const maxAllowedUsers = 100

// applyMentionAliases turns "@Handle" in formatted text into a mention
// of the user mentionAliases names for it (handles match case-blind, on
// word boundaries). Code spans and fences stay as written, as do
// @everyone and @here whatever the aliases say, and an alias whose value
// is not a user id is ignored.
func applyMentionAliases(text string, aliases map[string]string) string {
	handles := aliasHandles(aliases)
	if len(handles) == 0 || !strings.Contains(text, "@") {
		return text
	}
	lines := strings.Split(text, "\n")
	inFence := false
	for i, line := range lines {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence || !strings.Contains(line, "@") {
			continue
		}
		lines[i] = outsideCode(line, func(s string) string { return aliasText(s, handles, aliases) })
	}
	return strings.Join(lines, "\n")
}

// aliasedUsers is the ids of the aliased users part mentions: the only
// users a reply may ping.
func aliasedUsers(part string, aliases map[string]string) []string {
	var ids []string
	for _, h := range aliasHandles(aliases) {
		id := aliases[h]
		if strings.Contains(part, "<@"+id+">") && !slices.Contains(ids, id) && len(ids) < maxAllowedUsers {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// aliasHandles is the usable handles, longest first so "@ann_lee" is not
// taken for "@ann".
func aliasHandles(aliases map[string]string) []string {
	var hs []string
	for h, id := range aliases {
		if h == "" || strings.EqualFold(h, "everyone") || strings.EqualFold(h, "here") || !isSnowflake(id) {
			continue
		}
		hs = append(hs, h)
	}
	slices.SortFunc(hs, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b)) })
	return hs
}

func isSnowflake(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func isHandleChar(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func aliasText(s string, handles []string, aliases map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '@')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+1:]
		matched := ""
		if i == 0 || !isHandleChar(s[i-1]) && s[i-1] != '<' {
			for _, h := range handles {
				if len(rest) >= len(h) && strings.EqualFold(rest[:len(h)], h) && (len(rest) == len(h) || !isHandleChar(rest[len(h)])) {
					matched = h
					break
				}
			}
		}
		if matched == "" {
			b.WriteByte('@')
			s = rest
			continue
		}
		b.WriteString("<@" + aliases[matched] + ">")
		s = rest[len(matched):]
	}
}

// outsideCode applies f to the parts of line outside inline code spans.
func outsideCode(line string, f func(string) string) string {
	var b strings.Builder
	for line != "" {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			b.WriteString(f(line))
			break
		}
		b.WriteString(f(line[:i]))
		n := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
		ticks := line[i : i+n]
		end := strings.Index(line[i+n:], ticks)
		if end < 0 {
			b.WriteString(f(line[i:]))
			break
		}
		b.WriteString(line[i : i+n+end+n])
		line = line[i+n+end+n:]
	}
	return b.String()
}
