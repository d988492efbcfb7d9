package skills

import (
	"fmt"
	"slices"
	"strings"
)

// DefaultDirectoryChars is the directory's size when the caller gives no
// cap: room for about forty skills with a sentence each.
const DefaultDirectoryChars = 6000

// maxDescriptionChars keeps one verbose skill from taking the lines of
// others; the full text is one load_skill away.
const maxDescriptionChars = 240

const directoryHeader = "## Skills\nBefore a task that matches a skill below, call load_skill with its skillName and follow the instructions it returns.\n"

// Directory renders the system-prompt block listing the available skills,
// one "- name: description" line each, sorted by name, in at most
// maxChars bytes (DefaultDirectoryChars when maxChars <= 0). Skills that
// do not fit are counted in a final line rather than cut mid-line. It is
// empty when no skill is available, so the prompt carries no empty
// heading.
func Directory(c Catalog, maxChars int) string {
	avail := slices.DeleteFunc(c.Available(), func(e Entry) bool { return e.NotModelInvocable })
	if len(avail) == 0 {
		return ""
	}
	if maxChars <= 0 {
		maxChars = DefaultDirectoryChars
	}
	lines := make([]string, len(avail))
	total := len(directoryHeader)
	for i, e := range avail {
		lines[i] = "- " + e.Name + ": " + clip(e.Description, maxDescriptionChars) + "\n"
		total += len(lines[i])
	}
	if total <= maxChars {
		return directoryHeader + strings.Join(lines, "")
	}
	// Keep as many whole lines as leave room for the note on the rest.
	var b strings.Builder
	b.WriteString(directoryHeader)
	for i, line := range lines {
		more := fmt.Sprintf("- … %d more skills not listed; load_skill accepts any skill name.\n", len(lines)-i)
		next := fmt.Sprintf("- … %d more skills not listed; load_skill accepts any skill name.\n", len(lines)-i-1)
		if b.Len()+len(line)+len(next) > maxChars {
			if b.Len()+len(more) > maxChars {
				return "" // a cap smaller than the header and the note
			}
			b.WriteString(more)
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// clip shortens s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
