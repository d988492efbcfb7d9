// Package skills discovers OpenClaw skill folders (a directory with a
// SKILL.md whose front matter names and describes the skill), gates them
// on the binaries, environment variables and operating system they need,
// and offers the tools that let an agent load, read, run and manage them.
//
// A skill reaches the model in two steps so that the system prompt stays
// small and stable: [Directory] renders one line per available skill for
// the system prompt, and the load_skill tool returns a skill's SKILL.md as
// a tool result, which the agent loop keeps in the message history for
// the rest of the conversation.
//
// A [Catalog] is immutable once built and safe for concurrent use; the
// tools take a function that yields the caller's current catalog so the
// gateway may rebuild it on config reload or after skill_manage.
package skills

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"
)

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// MaxFileBytes bounds SKILL.md and any file a skill tool reads or writes:
// a skill is instructions for a model, and anything larger would crowd
// the context window rather than help.
const MaxFileBytes = 256 << 10

// maxFrontMatterBytes bounds the YAML handed to the parser; real front
// matter is a few hundred bytes, and a cap keeps hostile YAML cheap.
const maxFrontMatterBytes = 32 << 10

// MaxNameLen is the longest skill name.
const MaxNameLen = 64

// Skill is one parsed SKILL.md.
type Skill struct {
	// Name is the front matter's name, or the folder's when it has none.
	Name        string
	Description string
	Requires    Requires
	// PrimaryEnv is the variable skills.entries.<name>.apiKey fills
	// (metadata.openclaw.primaryEnv), or "".
	PrimaryEnv string
	// Body is SKILL.md after the front matter.
	Body string
	// NotUserInvocable is user-invocable: false: no /<skill> command.
	NotUserInvocable bool
	// NotModelInvocable is disable-model-invocation: true: the skill is
	// left out of the system prompt's directory, and runs only when a
	// person asks for it (/skill <name>, /<skill>).
	NotModelInvocable bool
}

// Requires is what a skill needs from the host before it is offered.
type Requires struct {
	Bins []string // executables that must be on PATH
	Env  []string // environment variables that must be set and non-empty
	OS   []string // GOOS values it runs on; empty means any
}

func (r Requires) empty() bool { return len(r.Bins)+len(r.Env)+len(r.OS) == 0 }

// frontMatter is the YAML between the opening and closing "---" lines.
// OpenClaw nests requirements under metadata.openclaw; older and
// hand-written skills put them at the top level, so both are read.
type frontMatter struct {
	Name                   string       `yaml:"name"`
	Description            string       `yaml:"description"`
	Requires               requiresYAML `yaml:"requires"`
	UserInvocable          *bool        `yaml:"user-invocable"`
	DisableModelInvocation bool         `yaml:"disable-model-invocation"`
	Metadata               struct {
		OpenClaw struct {
			Requires   requiresYAML `yaml:"requires"`
			OS         stringList   `yaml:"os"`
			PrimaryEnv string       `yaml:"primaryEnv"`
		} `yaml:"openclaw"`
	} `yaml:"metadata"`
}

type requiresYAML struct {
	Bins stringList `yaml:"bins"`
	Env  stringList `yaml:"env"`
	OS   stringList `yaml:"os"`
}

// stringList accepts a YAML list or a single scalar, since skill authors
// write `bins: jq` as often as `bins: [jq]`.
type stringList []string

func (l *stringList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if s := strings.TrimSpace(n.Value); s != "" {
			*l = stringList{s}
		}
		return nil
	case yaml.SequenceNode:
		var out []string
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: expected a string", c.Line)
			}
			if s := strings.TrimSpace(c.Value); s != "" {
				out = append(out, s)
			}
		}
		*l = out
		return nil
	}
	return fmt.Errorf("line %d: expected a string or a list of strings", n.Line)
}

// Parse reads a SKILL.md. folder names the skill when the front matter
// has no name. It fails when the front matter is missing or malformed,
// the name breaks [ValidName], or there is no description: the directory
// line is all the model sees before loading, so a skill without one
// could never be chosen sensibly.
func Parse(data []byte, folder string) (Skill, error) {
	if len(data) > MaxFileBytes {
		return Skill{}, fmt.Errorf("%s is larger than %d KiB", FileName, MaxFileBytes>>10)
	}
	if !utf8.Valid(data) {
		return Skill{}, fmt.Errorf("%s is not UTF-8 text", FileName)
	}
	head, body, err := splitFrontMatter(data)
	if err != nil {
		return Skill{}, err
	}
	if len(head) > maxFrontMatterBytes {
		return Skill{}, fmt.Errorf("front matter is larger than %d KiB", maxFrontMatterBytes>>10)
	}
	var fm frontMatter
	if err := yaml.Unmarshal(head, &fm); err != nil {
		return Skill{}, fmt.Errorf("front matter: %w", err)
	}
	s := Skill{
		Name:        strings.TrimSpace(fm.Name),
		Description: strings.Join(strings.Fields(fm.Description), " "),
		Body:        string(body),

		NotUserInvocable:  fm.UserInvocable != nil && !*fm.UserInvocable,
		NotModelInvocable: fm.DisableModelInvocation,
	}
	if s.Name == "" {
		s.Name = folder
	}
	if err := ValidName(s.Name); err != nil {
		return Skill{}, err
	}
	if s.Description == "" {
		return Skill{}, errors.New("front matter has no description")
	}
	oc := fm.Metadata.OpenClaw
	s.Requires = Requires{
		Bins: merge(oc.Requires.Bins, fm.Requires.Bins),
		Env:  merge(oc.Requires.Env, fm.Requires.Env),
		OS:   merge(oc.Requires.OS, oc.OS, fm.Requires.OS),
	}
	s.PrimaryEnv = strings.TrimSpace(oc.PrimaryEnv)
	return s, nil
}

// splitFrontMatter cuts SKILL.md at its "---" fences. A leading BOM and
// CRLF line ends are tolerated because editors on Windows produce them.
func splitFrontMatter(data []byte) (head, body []byte, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	line, rest, _ := bytes.Cut(data, []byte("\n"))
	if string(bytes.TrimRight(line, " \t\r")) != "---" {
		return nil, nil, errors.New("no front matter: the file must start with a --- line")
	}
	for off := 0; off < len(rest); {
		line, next := rest[off:], len(rest)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], off+i+1
		}
		if string(bytes.TrimRight(line, " \t\r")) == "---" {
			return rest[:off], bytes.TrimLeft(rest[next:], "\r\n"), nil
		}
		off = next
	}
	return nil, nil, errors.New("front matter is not closed by a --- line")
}

// ValidName reports whether name may name a skill: ASCII letters, digits
// and hyphens, at most MaxNameLen. The name becomes a folder name and a
// prompt line, so nothing that could be a path or markup is allowed.
func ValidName(name string) error {
	if name == "" {
		return errors.New("skill name is empty")
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("skill name %.20q… is longer than %d characters", name, MaxNameLen)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return fmt.Errorf("skill name %q may hold only letters, digits and hyphens", name)
		}
	}
	return nil
}

func merge(lists ...stringList) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range lists {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}
