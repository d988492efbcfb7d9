package tools

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Registry holds every tool by name. Discovery is blacklist-style: every
// source registers all it has, and exclusions are explicit.
type Registry struct {
	mu       sync.RWMutex
	tools    map[string]Tool
	excluded map[string]bool
	aliases  map[string]string // lower-case alias -> canonical name
	gen      uint64            // bumped on every change, for caches of the tool set
}

// Generation changes whenever the set of tools does (an MCP server
// coming or going), so a cache keyed on it never serves a stale view.
func (r *Registry) Generation() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.gen
}

// NewRegistry makes an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]Tool{}, excluded: map[string]bool{}, aliases: map[string]string{}}
}

// Register adds tools; a name registered twice is an error naming both
// sources, and nothing of that call is added.
func (r *Registry) Register(tools ...Tool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[string]bool{}
	for _, t := range tools {
		s := specHead(t)
		name := strings.ToLower(s.Name)
		if name == "" {
			return fmt.Errorf("register tool: empty name (source %s)", s.Source)
		}
		if old, dup := r.tools[name]; dup || seen[name] {
			src := s.Source
			if old != nil {
				src = specHead(old).Source
			}
			return fmt.Errorf("register tool %q: already registered (source %s)", s.Name, src)
		}
		seen[name] = true
	}
	for _, t := range tools {
		r.tools[strings.ToLower(specHead(t).Name)] = t
	}
	r.gen++
	return nil
}

// Unregister removes tools by name (a plugin or MCP server going away).
func (r *Registry) Unregister(names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		delete(r.tools, strings.ToLower(n))
	}
	r.gen++
}

// Exclude hides tools by name without unregistering them.
func (r *Registry) Exclude(names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range names {
		r.excluded[strings.ToLower(n)] = true
	}
	r.gen++
}

// Alias lets a tool be called by another name (MateClaw's names for
// OpenClaw's tools). Lookups resolve it; specs, policy and audit use the
// canonical name.
func (r *Registry) Alias(alias, canonical string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.aliases[strings.ToLower(alias)] = strings.ToLower(canonical)
}

// Get finds a tool by name or alias, case-insensitively; excluded tools
// are not found.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	n := strings.ToLower(name)
	if c, ok := r.aliases[n]; ok {
		n = c
	}
	t, ok := r.tools[n]
	if !ok || r.excluded[n] {
		return nil, false
	}
	return t, true
}

// Specs lists the available tools, sorted by name.
func (r *Registry) Specs() []Spec {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Spec, 0, len(r.tools))
	for n, t := range r.tools {
		if !r.excluded[n] {
			out = append(out, t.Spec())
		}
	}
	slices.SortFunc(out, func(a, b Spec) int { return strings.Compare(a.Name, b.Name) })
	return out
}
