package discord

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Discord's Markdown is close to CommonMark: bold, italic, underline,
// strike, inline code, fenced code, block quotes, lists and masked links
// render as they are. What does not render, or is dangerous, is rewritten.
var (
	headingRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`) })
	hruleRE   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^ {0,3}([-*_])[ \t]*(?:[ \t]*(?:-|\*|_)){2,}[ \t]*$`)
	})
	fenceRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^( {0,3})(`{3,}|~{3,})(.*)$") })
	tableSepRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$`)
	})
	// pingRE matches user (<@id>, <@!id>), role (<@&id>) and channel-wide
	// pings, the latter also inside words (Discord finds them there too).
	pingRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<@[!&]?\d+>|@(everyone|here)`) })
)

// FormatMarkdown converts an agent's Markdown reply into Discord's
// dialect: headings become bold lines, thematic breaks a dash line,
// tables an aligned code block and ~~~ fences ``` fences; bold, italic,
// code, fences, quotes, lists and links stay. Outside code, @everyone and
// @here get a zero-width space so they cannot mass-ping, and <@id>,
// <@!id> and <@&id> are disarmed the same way (the reply target is
// pinged through the message reference instead). The function is pure.
func FormatMarkdown(md string) string {
	md = strings.ReplaceAll(md, "\r\n", "\n")
	md = strings.ReplaceAll(md, "\x00", "\uFFFD")
	lines := strings.Split(md, "\n")
	var out []string
	fence := "" // the closing marker while inside a fence
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if fence != "" {
			if isFenceClose(line, fence) {
				out = append(out, "```")
				fence = ""
				continue
			}
			out = append(out, line)
			continue
		}
		if m := fenceRE().FindStringSubmatch(line); m != nil && !(m[2][0] == '`' && strings.Contains(m[3], "`")) {
			fence = m[2]
			out = append(out, "```"+strings.TrimSpace(m[3]))
			continue
		}
		if isTableRow(line) && i+1 < len(lines) && tableSepRE().MatchString(lines[i+1]) && strings.Contains(lines[i+1], "-") {
			j := i + 2
			for j < len(lines) && isTableRow(lines[j]) {
				j++
			}
			out = append(out, renderTable(lines[i], lines[i+2:j])...)
			i = j - 1
			continue
		}
		if m := headingRE().FindStringSubmatch(line); m != nil {
			text := strings.TrimSpace(m[1])
			if text == "" {
				continue
			}
			if !(strings.HasPrefix(text, "**") && strings.HasSuffix(text, "**") && len(text) > 4) {
				text = "**" + text + "**"
			}
			out = append(out, disarm(text))
			continue
		}
		if hruleRE().MatchString(line) {
			out = append(out, "———")
			continue
		}
		out = append(out, disarm(line))
	}
	if fence != "" {
		out = append(out, "```") // close what the model left open
	}
	return strings.TrimRight(strings.Join(out, "\n"), " \t\n")
}

func isFenceClose(line, open string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	t = strings.TrimRight(t, " \t")
	return len(t) >= len(open) && strings.Trim(t, open[:1]) == ""
}

func isTableRow(line string) bool {
	t := strings.TrimSpace(line)
	return strings.Contains(t, "|") && t != "" && t != "|"
}

// renderTable lays a table out as an aligned code block.
func renderTable(header string, body []string) []string {
	rows := [][]string{cells(header)}
	for _, l := range body {
		rows = append(rows, cells(l))
	}
	n := 0
	for _, r := range rows {
		n = max(n, len(r))
	}
	widths := make([]int, n)
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	line := func(r []string) string {
		var b strings.Builder
		for i := range n {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(c)
			if i < n-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)))
			}
		}
		return strings.TrimRight(b.String(), " ")
	}
	out := []string{"```", line(rows[0])}
	sep := make([]string, n)
	for i, w := range widths {
		sep[i] = strings.Repeat("-", max(w, 1))
	}
	out = append(out, strings.Join(sep, "-+-"))
	for _, r := range rows[1:] {
		out = append(out, line(r))
	}
	return append(out, "```")
}

// cells splits a table row, dropping the outer pipes, inline Markdown
// markers and backslash escapes of pipes.
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	row = strings.ReplaceAll(row, `\|`, "\x00")
	parts := strings.Split(row, "|")
	for i, p := range parts {
		p = strings.ReplaceAll(p, "\x00", "|")
		p = strings.NewReplacer("**", "", "__", "", "`", "").Replace(p)
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// disarm neutralises pings outside inline code spans.
func disarm(line string) string {
	if !strings.Contains(line, "@") {
		return line
	}
	return outsideCode(line, disarmText)
}

func disarmText(s string) string {
	return pingRE().ReplaceAllStringFunc(s, func(m string) string {
		if m[0] == '<' {
			return "<\u200b" + m[1:]
		}
		return "@\u200b" + m[1:]
	})
}

// SplitLines cuts text into parts of at most maxLines lines (no limit
// when maxLines <= 0). A code fence open at a cut is closed at the end
// of one part and reopened at the start of the next; those lines count
// against maxLines. Parts that would be blank are dropped.
func SplitLines(text string, maxLines int) []string {
	if maxLines <= 0 || strings.Count(text, "\n") < maxLines {
		return nonBlank([]string{text})
	}
	var parts []string
	var cur []string
	open := "" // the opening line of the fence we are in
	content := 0
	flush := func() {
		if open != "" {
			cur = append(cur, "```")
		}
		parts = append(parts, strings.TrimRight(strings.Join(cur, "\n"), " \t\n"))
		cur, content = nil, 0
		if open != "" {
			cur = []string{open}
		}
	}
	for _, line := range strings.Split(text, "\n") {
		isFence := strings.HasPrefix(strings.TrimLeft(line, " "), "```")
		after := open
		if isFence {
			if open == "" {
				after = strings.TrimLeft(line, " ")
			} else {
				after = ""
			}
		}
		need := len(cur) + 1
		if after != "" {
			need++ // the closing fence a cut would add
		}
		if need > maxLines && content > 0 {
			flush()
		}
		cur = append(cur, line)
		content++
		open = after
	}
	if content > 0 {
		open = ""
		parts = append(parts, strings.TrimRight(strings.Join(cur, "\n"), " \t\n"))
	}
	return nonBlank(parts)
}

func nonBlank(parts []string) []string {
	out := parts[:0]
	for _, p := range parts {
		if strings.TrimSpace(p) != "" && strings.TrimSpace(p) != "```" {
			out = append(out, p)
		}
	}
	return out
}
