package config

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

// DefaultAgentID is the agent that exists when none are configured.
const DefaultAgentID = "main"

var agentIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9_][a-z0-9_-]{0,63}$`) })

// ValidAgentID reports whether id is a valid agent id (case-insensitive).
func ValidAgentID(id string) bool { return agentIDRE().MatchString(strings.ToLower(id)) }

// validateAgents checks agent ids and defaults, and folds the older
// agents.list form into entries with a warning.
func (d *decoder) validateAgents(c *Config) {
	a := &c.Agents
	if len(a.List) > 0 {
		n, path := d.where("agents.list")
		d.warnAtPath(n, path, "agents.list is the older form; move each agent under agents.entries.<id> (read as if it were there)")
		if a.Entries == nil {
			a.Entries = map[string]AgentEntry{}
		}
		for i, l := range a.List {
			ip := indexPath("agents.list", i)
			if !ValidAgentID(l.ID) {
				n, path := d.where(ip+".id", ip)
				d.errorAtPath(n, path, "agent id %q must be letters, digits, _ or - (at most 64, not starting with -)", l.ID)
				continue
			}
			id := strings.ToLower(l.ID)
			if _, dup := a.Entries[id]; dup {
				n, path := d.where(ip+".id", ip)
				d.errorAtPath(n, path, "agent %q is defined twice", id)
				continue
			}
			a.Entries[id] = l.AgentEntry
		}
		a.List = nil
	}
	var defaults []string
	for id, e := range a.Entries {
		if !ValidAgentID(id) {
			n, path := d.where("agents.entries."+id, "agents.entries")
			d.errorAtPath(n, path, "agent id %q must be letters, digits, _ or - (at most 64, not starting with -)", id)
		}
		if e.Default {
			defaults = append(defaults, id)
		}
		d.validateHeartbeat("agents.entries."+id+".heartbeat", e.Heartbeat)
	}
	d.validateHeartbeat("agents.defaults.heartbeat", a.Defaults.Heartbeat)
	sort.Strings(defaults)
	if len(defaults) > 1 {
		n, path := d.where("agents.entries."+defaults[1]+".default", "agents.entries")
		d.errorAtPath(n, path, "only one agent may be the default; %s are all marked default", strings.Join(defaults, ", "))
	}
}

// AgentIDs lists the configured agents in a stable order: the default
// first, then by id. With no entries it is ["main"].
func (c *Config) AgentIDs() []string {
	if len(c.Agents.Entries) == 0 {
		return []string{DefaultAgentID}
	}
	ids := make([]string, 0, len(c.Agents.Entries))
	for id := range c.Agents.Entries {
		ids = append(ids, strings.ToLower(id))
	}
	sort.Strings(ids)
	def := c.DefaultAgentID()
	sort.SliceStable(ids, func(i, j int) bool { return ids[i] == def && ids[j] != def })
	return ids
}

// DefaultAgentID is the agent used when a request names none: the entry
// marked default, else "main" when configured or none are, else the first
// id in order.
func (c *Config) DefaultAgentID() string {
	var ids []string
	for id, e := range c.Agents.Entries {
		if e.Default {
			return strings.ToLower(id)
		}
		ids = append(ids, strings.ToLower(id))
	}
	if len(ids) == 0 {
		return DefaultAgentID
	}
	sort.Strings(ids)
	for _, id := range ids {
		if id == DefaultAgentID {
			return id
		}
	}
	return ids[0]
}

// Agent returns the entry for id (case-insensitive) and whether it is
// configured; the implicit "main" agent is configured when there are no
// entries.
func (c *Config) Agent(id string) (AgentEntry, bool) {
	id = strings.ToLower(id)
	if len(c.Agents.Entries) == 0 {
		return AgentEntry{}, id == DefaultAgentID
	}
	for k, e := range c.Agents.Entries {
		if strings.ToLower(k) == id {
			return e, true
		}
	}
	return AgentEntry{}, false
}

// PrimaryModel is the model an agent's turns start with ("provider/model"):
// its own, else agents.defaults.model; "" when neither is set.
func (c *Config) PrimaryModel(agentID string) string {
	if e, _ := c.Agent(agentID); e.Model.IsSet() {
		return e.Model.Primary
	}
	return c.Agents.Defaults.Model.Primary
}

// AgentSkills is the skill allowlist of an agent: its own skills, else
// agents.defaults.skills. limited is false when neither is set (every
// skill found); an empty list that is set means no skills.
func (c *Config) AgentSkills(agentID string) (names []string, limited bool) {
	if e, _ := c.Agent(agentID); e.Skills != nil {
		return e.Skills, true
	}
	if d := c.Agents.Defaults.Skills; d != nil {
		return d, true
	}
	return nil, false
}
