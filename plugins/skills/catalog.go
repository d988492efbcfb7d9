package skills

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Origins of skill folders, strongest first: a skill in the agent's
// workspace shadows a managed one of the same name, which shadows one
// from an extra directory.
const (
	OriginWorkspace = "workspace" // <workspace>/skills
	OriginManaged   = "managed"   // ~/.openclaw/skills
	OriginExtra     = "extra"     // skills.load.extraDirs
)

// MaxPerSource bounds how many skills one directory contributes, so a
// mistaken extraDirs entry (a home directory) cannot flood the prompt.
const MaxPerSource = 200

// maxScripts bounds the scripts listed for one skill.
const maxScripts = 100

// Source is one directory whose immediate subfolders are skills.
type Source struct {
	Dir    string
	Origin string // OriginWorkspace, OriginManaged or OriginExtra
	// Contained makes the folder a boundary: a skill folder whose real
	// path leaves it (a symlink out) is refused unless it lands inside
	// one of AllowTargets (skills.load.allowSymlinkTargets). The managed
	// folder is not contained: symlinked skills there are the user's own.
	Contained    bool
	AllowTargets []string
}

// Status is whether a discovered skill can be used.
type Status string

const (
	StatusAvailable   Status = "available"
	StatusUnavailable Status = "unavailable" // a requirement is missing or it is disabled
	StatusShadowed    Status = "shadowed"    // a stronger source has a skill of the same name
	StatusInvalid     Status = "invalid"     // SKILL.md is missing, too large or malformed
)

// Entry is one discovered skill folder.
type Entry struct {
	Skill
	Origin string
	// Dir is the skill folder; Path is its SKILL.md.
	Dir  string
	Path string
	// Scripts are the file names directly under Dir/scripts, sorted.
	Scripts []string
	Status  Status
	// Reason says why the skill is not available ("needs bin jq").
	Reason string
	// Env is what the config gives this skill's scripts (its entry's
	// env and apiKey), as KEY=value; never shown, only passed on.
	Env []string
}

// Catalog is the result of one discovery. It is immutable; the zero
// value is an empty catalog.
type Catalog struct {
	all    []Entry
	byName map[string]int // name to index in all, of the entry that won the name
}

func originRank(o string) int {
	switch o {
	case OriginWorkspace:
		return 0
	case OriginManaged:
		return 1
	}
	return 2
}

// Discover scans each source's immediate subfolders for SKILL.md. env,
// lookPath and goos stand for os.Getenv, exec.LookPath and runtime.GOOS
// (tests pass fakes). Sources are ranked by origin and keep their order
// within one origin, so the first skill to claim a name wins it and later
// ones are listed as shadowed. Unreadable directories are skipped: a
// missing ~/.openclaw/skills is the common case, not an error.
func Discover(sources []Source, env func(string) string, lookPath func(string) (string, error), goos string) Catalog {
	sources = slices.Clone(sources)
	slices.SortStableFunc(sources, func(a, b Source) int { return cmp.Compare(originRank(a.Origin), originRank(b.Origin)) })
	c := Catalog{byName: map[string]int{}}
	for _, src := range sources {
		if src.Dir == "" {
			continue
		}
		if abs, err := filepath.Abs(src.Dir); err == nil { // scripts get an absolute path and working directory
			src.Dir = abs
		}
		root, rootErr := filepath.EvalSymlinks(src.Dir)
		if rootErr != nil {
			root = src.Dir
		}
		targets := realTargets(src.AllowTargets)
		dirents, err := os.ReadDir(src.Dir) // sorted by name, so discovery is deterministic
		if err != nil {
			continue
		}
		n := 0
		for _, de := range dirents {
			if n >= MaxPerSource {
				break
			}
			dir := filepath.Join(src.Dir, de.Name())
			if strings.HasPrefix(de.Name(), ".") {
				continue
			}
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() { // follows a symlinked skill folder
				continue
			}
			real, err := filepath.EvalSymlinks(dir)
			if err != nil {
				continue
			}
			if src.Contained && !within(real, root) && !slices.ContainsFunc(targets, func(t string) bool { return within(real, t) }) {
				c.all = append(c.all, Entry{Skill: Skill{Name: de.Name()}, Origin: src.Origin, Dir: dir, Path: filepath.Join(dir, FileName),
					Status: StatusInvalid, Reason: "symlink-escape: resolves to " + real + ", outside " + src.Dir + " and skills.load.allowSymlinkTargets"})
				n++
				continue
			}
			if md, err := filepath.EvalSymlinks(filepath.Join(dir, FileName)); err == nil && !within(md, real) {
				c.all = append(c.all, Entry{Skill: Skill{Name: de.Name()}, Origin: src.Origin, Dir: dir, Path: filepath.Join(dir, FileName),
					Status: StatusInvalid, Reason: "symlink-escape: " + FileName + " resolves outside its skill folder"})
				n++
				continue
			}
			e, ok := load(dir, src.Origin)
			if !ok {
				continue
			}
			n++
			if e.Status == StatusAvailable {
				e.Status, e.Reason = gate(e.Requires, env, lookPath, goos)
			}
			if e.Status != StatusInvalid {
				if i, taken := c.byName[e.Name]; taken {
					w := c.all[i]
					e.Status, e.Reason = StatusShadowed, fmt.Sprintf("shadowed by %s skill at %s", w.Origin, w.Dir)
				} else {
					c.byName[e.Name] = len(c.all)
				}
			}
			c.all = append(c.all, e)
		}
	}
	return c
}

// within reports whether path is dir or below it (both real paths).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// realTargets resolves skills.load.allowSymlinkTargets. A target that
// does not exist trusts nothing, and the broadest ones (a file system
// root) are refused: trusting "/" would end the containment.
func realTargets(in []string) []string {
	var out []string
	for _, t := range in {
		abs, err := filepath.Abs(t)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil || filepath.Dir(real) == real {
			continue
		}
		out = append(out, real)
	}
	return out
}

// load reads one folder; ok is false when it holds no SKILL.md at all.
func load(dir, origin string) (e Entry, ok bool) {
	e = Entry{Origin: origin, Dir: dir, Path: filepath.Join(dir, FileName), Status: StatusAvailable}
	e.Name = filepath.Base(dir)
	f, err := os.Open(e.Path)
	if err != nil {
		if os.IsNotExist(err) {
			return e, false
		}
		e.Status, e.Reason = StatusInvalid, "cannot read "+FileName
		return e, true
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		e.Status, e.Reason = StatusInvalid, "cannot read "+FileName
		return e, true
	}
	s, err := Parse(data, e.Name)
	if err != nil {
		e.Status, e.Reason = StatusInvalid, err.Error()
		return e, true
	}
	e.Skill = s
	e.Scripts = listScripts(filepath.Join(dir, "scripts"))
	return e, true
}

func listScripts(dir string) []string {
	dirents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, de := range dirents {
		if de.Type().IsRegular() && !strings.HasPrefix(de.Name(), ".") && len(out) < maxScripts {
			out = append(out, de.Name())
		}
	}
	return out
}

// gate checks requirements in a fixed order (os, bins, env) and names the
// first one missing, which is what a person needs to fix first.
func gate(r Requires, env func(string) string, lookPath func(string) (string, error), goos string) (Status, string) {
	if len(r.OS) > 0 && !slices.Contains(r.OS, goos) {
		return StatusUnavailable, "only on " + strings.Join(r.OS, ", ")
	}
	for _, b := range r.Bins {
		if lookPath == nil {
			return StatusUnavailable, "needs bin " + b
		}
		if _, err := lookPath(b); err != nil {
			return StatusUnavailable, "needs bin " + b
		}
	}
	for _, v := range r.Env {
		if env == nil || env(v) == "" {
			return StatusUnavailable, "needs env " + v
		}
	}
	return StatusAvailable, ""
}

// WithEnv returns a copy in which each skill gets the variables of
// configEnv(name) (skills.entries.<name>.env and apiKey) for its scripts,
// and is gated again with them: a requires.env the config provides is
// met. As in OpenClaw, a variable the gateway's environment already sets
// keeps its value. Only a skill that discovery found available or short
// of something is gated again; shadowed and invalid ones stay so.
func (c Catalog) WithEnv(configEnv func(name string) map[string]string, env func(string) string, lookPath func(string) (string, error), goos string) Catalog {
	if configEnv == nil {
		return c
	}
	out := Catalog{all: slices.Clone(c.all), byName: c.byName}
	for _, i := range c.byName {
		e := &out.all[i]
		vars := configEnv(e.Name)
		if len(vars) == 0 || (e.Status != StatusAvailable && e.Status != StatusUnavailable) {
			continue
		}
		keys := make([]string, 0, len(vars))
		for k, v := range vars {
			if k != "" && v != "" && (env == nil || env(k) == "") {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		e.Env = nil
		for _, k := range keys {
			e.Env = append(e.Env, k+"="+vars[k])
		}
		merged := func(k string) string {
			if env != nil {
				if v := env(k); v != "" {
					return v
				}
			}
			return vars[k]
		}
		e.Status, e.Reason = gate(e.Requires, merged, lookPath, goos)
	}
	return out
}

// WithDisabled returns a copy in which the named skills (config
// skills.entries.<name>.enabled = false) are unavailable. A disabled
// skill keeps its name, so a weaker one of the same name stays shadowed:
// disabling must not silently swap in a different skill.
func (c Catalog) WithDisabled(disabled func(name string) bool) Catalog {
	return c.WithUnavailable(disabled, "disabled in config")
}

// WithUnavailable is WithDisabled with its own reason (an agent's skill
// allowlist, say).
func (c Catalog) WithUnavailable(off func(name string) bool, reason string) Catalog {
	if off == nil {
		return c
	}
	out := Catalog{all: slices.Clone(c.all), byName: c.byName}
	for _, i := range c.byName {
		if e := &out.all[i]; off(e.Name) {
			e.Status, e.Reason = StatusUnavailable, reason
		}
	}
	return out
}

// All is every discovered skill folder, in discovery order, with its
// status: what skills.status reports.
func (c Catalog) All() []Entry { return slices.Clone(c.all) }

// Available is the usable skills, sorted by name.
func (c Catalog) Available() []Entry {
	var out []Entry
	for _, i := range c.byName {
		if c.all[i].Status == StatusAvailable {
			out = append(out, c.all[i])
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Get is the entry that owns name, whatever its status; ok is false when
// no skill has that name.
func (c Catalog) Get(name string) (Entry, bool) {
	i, ok := c.byName[name]
	if !ok {
		return Entry{}, false
	}
	return c.all[i], true
}
