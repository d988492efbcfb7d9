package config

// Compaction defaults, OpenClaw's.
const (
	DefaultCompactionTimeoutSeconds = 180
	DefaultCompactionKeepRecent     = 20000
	DefaultCompactionRecentTurns    = 3
)

// CompactionOn reports whether threshold compaction is on.
func (c Compaction) CompactionOn() bool { return c.Enabled == nil || *c.Enabled }

// Safeguard reports whether mode is safeguard (the default).
func (c Compaction) Safeguard() bool { return c.Mode != "default" }

// StrictIdentifiers reports whether identifierPolicy is strict (the default).
func (c Compaction) StrictIdentifiers() bool { return c.IdentifierPolicy != "off" }

// Guarded reports whether safeguard summaries are audited, and how many
// times one is asked for again.
func (c Compaction) Guarded() (bool, int) {
	on := c.Safeguard() && (c.QualityGuard.Enabled == nil || *c.QualityGuard.Enabled)
	return on, c.QualityGuard.MaxRetries.Or(1)
}

// validateCompaction warns of the compaction keys accepted but not in effect.
func (d *decoder) validateCompaction(c *Config) {
	const base = "agents.defaults.compaction"
	cp := c.Agents.Defaults.Compaction
	warn := func(key, why string) {
		n, p := d.where(base + "." + key)
		d.warnAtPath(n, p, "is not in effect here: %s", why)
	}
	if cp.Provider != "" {
		warn("provider", "there are no compaction provider plugins, so the built-in summary is used")
	}
	if cp.ThinkingLevel != "" && cp.ThinkingLevel != "inherit" {
		warn("thinkingLevel", "no model request is sent a thinking level")
	}
	if cp.MidTurnPrecheck.Enabled {
		warn("midTurnPrecheck", "a turn's context is checked before its first model call, not between its tool steps")
	}
	if cp.PostIndexSync != "" && cp.PostIndexSync != "off" {
		warn("postIndexSync", "session transcripts are not indexed into memory search, so there is nothing to reindex")
	}
	if _, on := d.at[base+".memoryFlush"]; on {
		warn("memoryFlush", "no memory flush turn runs before a compaction; the agent saves memories when it chooses to")
	}
}
