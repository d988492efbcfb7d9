package skills

import (
	"strconv"
	"strings"
)

// maxCommandName is the longest command name Telegram and Discord take.
const maxCommandName = 32

// Command is a skill as a slash command: /Name runs Skill.
type Command struct {
	Name        string
	Skill       string
	Description string
}

// Commands lists c's available, user-invocable skills as slash commands,
// by skill name: each name lowercased, with every run of characters
// other than a-z, 0-9 and _ made one "_", cut to 32 characters. A name
// already taken, by reserved (the built-in commands) or by an earlier
// skill, gets "_2", "_3", ... as OpenClaw numbers them.
func Commands(c Catalog, reserved []string) []Command {
	taken := map[string]bool{}
	for _, r := range reserved {
		taken[strings.ToLower(r)] = true
	}
	var out []Command
	for _, e := range c.Available() {
		if e.NotUserInvocable {
			continue
		}
		base := CommandName(e.Name)
		if base == "" {
			continue
		}
		name := base
		for n := 2; taken[name]; n++ {
			suffix := "_" + strconv.Itoa(n)
			name = base[:min(len(base), maxCommandName-len(suffix))] + suffix
		}
		taken[name] = true
		out = append(out, Command{Name: name, Skill: e.Name, Description: e.Description})
	}
	return out
}

// CommandName is the slash command a skill name makes (without the
// slash), or "" when nothing of it is left.
func CommandName(skill string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(skill) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			under = false
		case !under && b.Len() > 0:
			b.WriteByte('_')
			under = true
		}
	}
	name := strings.TrimRight(b.String(), "_")
	if len(name) > maxCommandName {
		name = strings.TrimRight(name[:maxCommandName], "_")
	}
	return name
}
