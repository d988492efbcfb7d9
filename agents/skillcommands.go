package agents

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// SkillCommand is a skill as a slash command: /Name runs Skill.
type SkillCommand struct {
	Name        string
	Skill       string
	Description string
}

// BuiltinCommandNames are the names of the commands the gateway answers
// itself (and the channels' /new and /reset): a skill command never
// takes one.
func BuiltinCommandNames() []string {
	names := slices.Sorted(maps.Keys(commandAliases))
	return append(names, "new", "reset", "skill")
}

// skillInvocation reads /skill <name> [input] and /<skill> [input]. For
// a skill it returns the model's message: the request to load and follow
// the skill, then the input. When /skill names no skill it returns a
// reply instead (the skills there are). ok is false for any other text.
// A skill command goes to the model as a request, as OpenClaw routes it:
// the sender could have typed the same words.
func (s *Service) skillInvocation(ctx context.Context, agentID, text string) (message, reply string, ok bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") || s.opts.SkillCommands == nil {
		return "", "", false
	}
	head, input, _ := strings.Cut(text[1:], "\n")
	name, first, _ := strings.Cut(head, " ")
	input = strings.TrimSpace(first + "\n" + input)
	// In a Telegram group a menu command arrives as /name@BotName.
	name, _, _ = strings.Cut(strings.ToLower(name), "@")
	if _, builtin := commandAliases[name]; name == "" || builtin || name == "new" || name == "reset" {
		// No skill takes a built-in's name: spare the skill folders a read.
		return "", "", false
	}
	cmds := s.opts.SkillCommands(ctx, agentID)
	if name == "skill" {
		skill, rest, _ := strings.Cut(input, " ")
		skill, rest = strings.TrimSpace(skill), strings.TrimSpace(rest)
		if i := strings.IndexByte(skill, '\n'); i >= 0 {
			skill, rest = skill[:i], strings.TrimSpace(skill[i+1:]+" "+rest)
		}
		for _, c := range cmds {
			if strings.EqualFold(c.Skill, skill) || strings.EqualFold(c.Name, skill) {
				return skillMessage(c.Skill, rest), "", true
			}
		}
		return "", skillList(skill, cmds), true
	}
	for _, c := range cmds {
		if c.Name == name {
			return skillMessage(c.Skill, input), "", true
		}
	}
	return "", "", false
}

// skillMessage is what the model is sent for a skill command.
func skillMessage(skill, input string) string {
	msg := fmt.Sprintf("Use the %q skill for this request: load it with load_skill (skillName %q) and follow its instructions.", skill, skill)
	if input == "" {
		return msg + "\n\nThe user gave no further input."
	}
	return msg + "\n\n" + input
}

// skillList answers a /skill that names no skill the agent has.
func skillList(asked string, cmds []SkillCommand) string {
	var b strings.Builder
	switch {
	case asked != "":
		fmt.Fprintf(&b, "No skill named %q here.", asked)
	default:
		b.WriteString("Usage: /skill <name> [input].")
	}
	if len(cmds) == 0 {
		b.WriteString(" This agent has no skills it can run.")
		return b.String()
	}
	b.WriteString(" Skills:")
	for _, c := range cmds {
		fmt.Fprintf(&b, "\n/%s: %s", c.Name, c.Description)
	}
	return b.String()
}

// SkillCommands lists the agent's skills as slash commands (for a
// network's command menu); none without Options.SkillCommands.
func (s *Service) SkillCommands(ctx context.Context, agentID string) []SkillCommand {
	if s.opts.SkillCommands == nil {
		return nil
	}
	return s.opts.SkillCommands(ctx, agentID)
}
