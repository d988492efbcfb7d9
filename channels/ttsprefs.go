package channels

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/speech"
)

// TTSPrefs are the gateway's own text-to-speech preferences: what
// tts.enable, tts.disable, tts.setProvider, tts.setPersona and the /tts
// commands set. They sit over the tts config (the agent's merge
// included), as OpenClaw's local preferences do, and live in the state
// database so they survive a restart without rewriting the config file.
// An empty field leaves the config's value.
type TTSPrefs struct {
	Auto     string // "always" or "off"
	Provider string
	Persona  string
	// MaxLength is where a spoken reply is cut (/tts limit); 0 is
	// speech.DefaultMaxLength.
	MaxLength int
}

// The range /tts limit accepts, as OpenClaw's: 4096 is the longest
// Telegram message.
const (
	MinTTSLimit = 100
	MaxTTSLimit = 4096
)

// ErrTTSChoice: a provider or persona that cannot be chosen here.
var ErrTTSChoice = errors.New("not a usable choice")

// personaClears are the persona names that mean "no persona".
var personaClears = []string{"", "off", "none", "default"}

func (d db) loadTTSPrefs(ctx context.Context) (TTSPrefs, error) {
	var p TTSPrefs
	err := d.sql.QueryRowContext(ctx, `SELECT auto, provider, persona, max_length FROM tts_prefs WHERE id = 1`).Scan(&p.Auto, &p.Provider, &p.Persona, &p.MaxLength)
	if errors.Is(err, sql.ErrNoRows) {
		return TTSPrefs{}, nil
	}
	if err != nil {
		return TTSPrefs{}, fmt.Errorf("read tts preferences: %w", err)
	}
	return p, nil
}

func (d db) saveTTSPrefs(ctx context.Context, p TTSPrefs) error {
	_, err := d.exec(ctx, `INSERT INTO tts_prefs (id, auto, provider, persona, max_length, updated_at) VALUES (1, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET auto = excluded.auto, provider = excluded.provider, persona = excluded.persona,
			max_length = excluded.max_length, updated_at = excluded.updated_at`,
		p.Auto, p.Provider, p.Persona, p.MaxLength, time.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("save tts preferences: %w", err)
	}
	return nil
}

// TTSPrefs returns the stored preferences. They are read once and kept:
// every spoken reply consults them.
func (m *Manager) TTSPrefs(ctx context.Context) (TTSPrefs, error) {
	m.ttsMu.Lock()
	defer m.ttsMu.Unlock()
	return m.ttsPrefsLocked(ctx)
}

func (m *Manager) ttsPrefsLocked(ctx context.Context) (TTSPrefs, error) {
	if m.ttsPrefs != nil {
		return *m.ttsPrefs, nil
	}
	p, err := m.db.loadTTSPrefs(ctx)
	if err != nil {
		return TTSPrefs{}, err
	}
	m.ttsPrefs = &p
	return p, nil
}

// updateTTSPrefs changes the preferences with edit and stores them; the
// cached copy changes only once the row is written, so a failed write
// changes nothing.
func (m *Manager) updateTTSPrefs(ctx context.Context, edit func(*TTSPrefs)) (TTSPrefs, error) {
	m.ttsMu.Lock()
	defer m.ttsMu.Unlock()
	p, err := m.ttsPrefsLocked(ctx)
	if err != nil {
		return TTSPrefs{}, err
	}
	edit(&p)
	if err := m.db.saveTTSPrefs(ctx, p); err != nil {
		return TTSPrefs{}, err
	}
	m.ttsPrefs = &p
	return p, nil
}

// SetTTSEnabled turns spoken replies on ("always") or off for the whole
// gateway, whatever tts.auto says.
func (m *Manager) SetTTSEnabled(ctx context.Context, on bool) error {
	auto := "off"
	if on {
		auto = "always"
	}
	_, err := m.updateTTSPrefs(ctx, func(p *TTSPrefs) { p.Auto = auto })
	return err
}

// SetTTSProvider makes id the preferred speech provider and returns its
// canonical id; an id that does not speak here wraps ErrTTSChoice.
func (m *Manager) SetTTSProvider(ctx context.Context, id string) (string, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if !slices.Contains(config.TTSProviders, id) {
		return "", fmt.Errorf("provider %q does not speak here (use one of %s): %w", id, strings.Join(config.TTSProviders, ", "), ErrTTSChoice)
	}
	_, err := m.updateTTSPrefs(ctx, func(p *TTSPrefs) { p.Provider = id })
	return id, err
}

// SetTTSPersona sets the persona preference to a persona of tts.personas
// (any case) and returns its id; "off", "none", "default" or "" clear it
// (returning ""). Any other name wraps ErrTTSChoice.
func (m *Manager) SetTTSPersona(ctx context.Context, id string) (string, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if slices.Contains(personaClears, id) {
		_, err := m.updateTTSPrefs(ctx, func(p *TTSPrefs) { p.Persona = "" })
		return "", err
	}
	cfg := m.cfg.Load()
	t := cfg.TTSFor(m.defaultAgent(cfg))
	if !t.HasPersona(id) {
		have := slices.Sorted(maps.Keys(t.Personas))
		if len(have) == 0 {
			return "", fmt.Errorf("persona %q is not configured (tts.personas is empty): %w", id, ErrTTSChoice)
		}
		return "", fmt.Errorf("persona %q is not configured (tts.personas: %s): %w", id, strings.Join(have, ", "), ErrTTSChoice)
	}
	_, err := m.updateTTSPrefs(ctx, func(p *TTSPrefs) { p.Persona = id })
	return id, err
}

// SetTTSLimit sets where spoken replies are cut, MinTTSLimit to
// MaxTTSLimit characters; other values wrap ErrTTSChoice.
func (m *Manager) SetTTSLimit(ctx context.Context, n int) error {
	if n < MinTTSLimit || n > MaxTTSLimit {
		return fmt.Errorf("limit %d is outside %d-%d characters: %w", n, MinTTSLimit, MaxTTSLimit, ErrTTSChoice)
	}
	_, err := m.updateTTSPrefs(ctx, func(p *TTSPrefs) { p.MaxLength = n })
	return err
}

// ttsFor is the tts section for agentID's speech: the config's, with the
// stored preferences over it. A preference that cannot be read is
// logged and the config alone is used, so a database hiccup costs a
// voice note, not the reply.
func (m *Manager) ttsFor(ctx context.Context, cfg *config.Config, agentID string) config.TTS {
	t := cfg.TTSFor(agentID)
	p, err := m.TTSPrefs(ctx)
	if err != nil {
		m.log.Warn("channels: tts preferences unreadable; using the config alone", "err", err)
		return t.WithPersona("")
	}
	return applyTTSPrefs(t, p)
}

// replyCut is the /tts limit for spoken replies, 0 for the default (also
// when the preferences cannot be read: ttsFor logged that).
func (m *Manager) replyCut(ctx context.Context) int {
	p, err := m.TTSPrefs(ctx)
	if err != nil {
		return 0
	}
	return p.MaxLength
}

// applyTTSPrefs lays the preferences over t: the persona first (its
// provider over tts.provider), then the chosen provider over the
// persona's, as OpenClaw orders them.
func applyTTSPrefs(t config.TTS, p TTSPrefs) config.TTS {
	if p.Auto != "" {
		t.Auto = p.Auto
	}
	t = t.WithPersona(p.Persona)
	if p.Provider != "" {
		t.Provider = p.Provider
	}
	return t
}

// TTSState is what /tts status tells.
type TTSState struct {
	Auto     string // the mode in effect: off, always, inbound, tagged
	Provider string // the provider replies are spoken with; "" for none
	// MaxLength is where spoken replies are cut.
	MaxLength int
	// FromPrefs: Auto comes from tts.enable, tts.disable or /tts, not the
	// config.
	FromPrefs bool
	// Configured are the providers with an API key.
	Configured []string
}

// TTSState reports the speech settings in effect for the default agent.
func (m *Manager) TTSState(ctx context.Context) (TTSState, error) {
	cfg := m.cfg.Load()
	p, err := m.TTSPrefs(ctx)
	if err != nil {
		return TTSState{}, err
	}
	t := applyTTSPrefs(cfg.TTSFor(m.defaultAgent(cfg)), p)
	c := m.speechClient()
	st := TTSState{Auto: t.AutoMode(), Provider: c.ActiveProvider(t), FromPrefs: p.Auto != "", Configured: []string{},
		MaxLength: cmp.Or(p.MaxLength, speech.DefaultMaxLength)}
	for _, ps := range c.Providers(t) {
		if ps.Configured {
			st.Configured = append(st.Configured, ps.ID)
		}
	}
	return st, nil
}
