package policy

import (
	"fmt"
	"strings"
)

// Match reports whether a tool name matches a policy pattern: both are
// normalized (case-insensitive, aliases resolved), and '*' in the pattern
// matches any run of characters ("*" alone matches every tool). Groups are
// not expanded here.
func Match(pattern, name string) bool {
	return globMatch(NormalizeName(pattern), NormalizeName(name))
}

// globMatch matches a normalized name against a normalized pattern in which
// '*' matches any run of bytes. It backtracks only to the last star, so it
// runs in O(len(pattern)·len(name)) at worst.
func globMatch(pattern, name string) bool {
	p, n := 0, 0
	star, mark := -1, 0
	for n < len(name) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, n
			p++
		case p < len(pattern) && pattern[p] == name[n]:
			p++
			n++
		case star >= 0:
			p = star + 1
			mark++
			n = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// entry is one compiled list entry: what was written, where it came from,
// and the names or patterns it stands for.
type entry struct {
	raw  string   // as written in the config
	norm string   // normalized
	from string   // key path of the list, e.g. "tools.allow"
	pats []string // normalized names or globs the entry expands to
}

func (e entry) matches(name string) bool {
	for _, p := range e.pats {
		if p == name || (strings.IndexByte(p, '*') >= 0 && globMatch(p, name)) {
			return true
		}
	}
	return false
}

// quoted shows an entry as written, with its expansion hint when it was an
// alias ("bash" → exec).
func (e entry) quoted() string {
	if strings.ToLower(strings.TrimSpace(e.raw)) != e.norm {
		return fmt.Sprintf("%q (= %s)", e.raw, e.norm)
	}
	return fmt.Sprintf("%q", e.raw)
}

// compileList turns config entries into entries, expanding groups and plugin
// ids through t. Empty entries are dropped, as OpenClaw does.
func compileList(list []string, from string, t *groupTable) []entry {
	out := make([]entry, 0, len(list))
	for _, raw := range list {
		norm := NormalizeName(raw)
		if norm == "" {
			continue
		}
		e := entry{raw: raw, norm: norm, from: from}
		if members, ok := t.expand(norm); ok {
			e.pats = members
		} else {
			e.pats = []string{norm}
		}
		out = append(out, e)
	}
	return out
}

func firstMatch(list []entry, name string) (entry, bool) {
	for _, e := range list {
		if e.matches(name) {
			return e, true
		}
	}
	return entry{}, false
}

// layer is one step of the resolution. Each step can only remove tools.
type layer struct {
	name     string  // shown in Decision.Layers, e.g. "tools.profile (coding)"
	allow    []entry // the allow list; consulted only when hasAllow
	hasAllow bool
	extra    []entry // alsoAllow entries without an allow list: explain only
	deny     []entry
	missAt   string // Layer reported when a tool is not on the allow list
	missWhy  string // Reason reported then
	quiet    int    // leading allow entries (a profile's own) never warned about
}

// verdict is what one layer says about one tool.
type verdict struct {
	removed  bool
	layer    string
	reason   string
	grant    *entry // the explicit allow entry that matched, if any
	viaWrite bool   // allowed only because "write" covers apply_patch
}

// writeCoversPatch is OpenClaw's special case: allowing write allows
// apply_patch (denying write does not deny it).
const (
	writeTool = "write"
	patchTool = "apply_patch"
)

// check applies the layer to a normalized tool name: deny wins, an absent
// or empty allow list allows, otherwise an allow entry must match.
func (l *layer) check(name string) verdict {
	if d, ok := firstMatch(l.deny, name); ok {
		why := "denied by " + d.quoted()
		if l.hasAllow {
			if a, ok := firstMatch(l.allow, name); ok {
				why += fmt.Sprintf(" (deny wins over allow entry %s in %s)", a.quoted(), a.from)
			}
		}
		return verdict{removed: true, layer: d.from, reason: why}
	}
	if !l.hasAllow || len(l.allow) == 0 {
		if e, ok := firstMatch(l.extra, name); ok {
			return verdict{grant: &e}
		}
		return verdict{}
	}
	if a, ok := firstMatch(l.allow, name); ok {
		return verdict{grant: &a}
	}
	if name == patchTool {
		if a, ok := firstMatch(l.allow, writeTool); ok {
			return verdict{grant: &a, viaWrite: true}
		}
	}
	return verdict{removed: true, layer: l.missAt, reason: l.missWhy}
}
