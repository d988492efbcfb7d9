package channels

import (
	"context"
	"encoding/base64"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/speech"
)

// The tts.* methods answer in OpenClaw's shapes from the running config's
// tts section (the default agent's merge) with the stored preferences
// over it (ttsprefs.go). The preferences live in the state database, not
// a file, so prefsPath is ""; no personas are configured here, so
// persona is null and personas empty.

type ttsStatusResult struct {
	Enabled           bool               `json:"enabled"`
	Auto              string             `json:"auto"`
	Provider          *string            `json:"provider"`
	Persona           *string            `json:"persona"`
	Personas          []any              `json:"personas"`
	FallbackProvider  *string            `json:"fallbackProvider"`
	FallbackProviders []string           `json:"fallbackProviders"`
	PrefsPath         string             `json:"prefsPath"`
	ProviderStates    []ttsProviderState `json:"providerStates"`
}

type ttsProviderState struct {
	ID         string `json:"id"`
	Label      string `json:"label"`
	Configured bool   `json:"configured"`
}

type ttsProvidersResult struct {
	Providers []ttsProviderEntry `json:"providers"`
	Active    *string            `json:"active"`
}

type ttsProviderEntry struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Configured bool     `json:"configured"`
	Models     []string `json:"models"`
	Voices     []string `json:"voices"`
}

func (m *Manager) speechClient() *speech.Client {
	if m.opts.Speech != nil {
		return m.opts.Speech
	}
	return &speech.Client{Getenv: func(string) string { return "" }}
}

func (m *Manager) handleTTSStatus(ctx context.Context, req *rpc.Request, _ struct{}) (ttsStatusResult, error) {
	cfg := m.cfg.Load()
	t, err := m.ttsForRPC(ctx, cfg)
	if err != nil {
		return ttsStatusResult{}, err
	}
	c := m.speechClient()
	res := ttsStatusResult{Auto: t.AutoMode(), Personas: []any{}, FallbackProviders: []string{}}
	res.Enabled = res.Auto != "off"
	active := c.ActiveProvider(t)
	if active != "" {
		res.Provider = &active
	}
	for _, p := range c.Providers(t) {
		res.ProviderStates = append(res.ProviderStates, ttsProviderState{ID: p.ID, Label: p.Label, Configured: p.Configured})
		if p.Configured && p.ID != active {
			res.FallbackProviders = append(res.FallbackProviders, p.ID)
		}
	}
	if len(res.FallbackProviders) > 0 {
		res.FallbackProvider = &res.FallbackProviders[0]
	}
	return res, nil
}

func (m *Manager) handleTTSProviders(ctx context.Context, req *rpc.Request, _ struct{}) (ttsProvidersResult, error) {
	cfg := m.cfg.Load()
	t, err := m.ttsForRPC(ctx, cfg)
	if err != nil {
		return ttsProvidersResult{}, err
	}
	c := m.speechClient()
	res := ttsProvidersResult{Providers: []ttsProviderEntry{}}
	if active := c.ActiveProvider(t); active != "" {
		res.Active = &active
	}
	for _, p := range c.Providers(t) {
		res.Providers = append(res.Providers, ttsProviderEntry{ID: p.ID, Name: p.Label, Configured: p.Configured, Models: []string{}, Voices: []string{}})
	}
	return res, nil
}

func (m *Manager) defaultAgent(cfg *config.Config) string {
	if m.opts.DefaultAgent != nil {
		return m.opts.DefaultAgent(cfg)
	}
	return cfg.DefaultAgentID()
}

// ttsForRPC is ttsFor for a method: unreadable preferences are the
// method's failure (UNAVAILABLE), not a silent fallback, since what it
// reports would be wrong.
func (m *Manager) ttsForRPC(ctx context.Context, cfg *config.Config) (config.TTS, error) {
	p, err := m.TTSPrefs(ctx)
	if err != nil {
		return config.TTS{}, unavailable(err)
	}
	return applyTTSPrefs(cfg.TTSFor(m.defaultAgent(cfg)), p), nil
}

func unavailable(err error) error {
	return protocol.Errorf(protocol.CodeUnavailable, "%v", err)
}

type ttsEnabledResult struct {
	Enabled bool `json:"enabled"`
}

// handleTTSEnable and handleTTSDisable set the gateway's auto preference
// to always or off.
func (m *Manager) handleTTSEnable(ctx context.Context, req *rpc.Request, _ struct{}) (ttsEnabledResult, error) {
	if err := m.SetTTSEnabled(ctx, true); err != nil {
		return ttsEnabledResult{}, unavailable(err)
	}
	m.log.Info("channels: tts enabled", "by", callerID(req))
	return ttsEnabledResult{Enabled: true}, nil
}

func (m *Manager) handleTTSDisable(ctx context.Context, req *rpc.Request, _ struct{}) (ttsEnabledResult, error) {
	if err := m.SetTTSEnabled(ctx, false); err != nil {
		return ttsEnabledResult{}, unavailable(err)
	}
	m.log.Info("channels: tts disabled", "by", callerID(req))
	return ttsEnabledResult{Enabled: false}, nil
}

// callerID names the client that changed a preference, for the log.
func callerID(req *rpc.Request) string {
	if req == nil || req.Conn == nil {
		return ""
	}
	return req.Conn.Client().ID
}

type ttsProviderParams struct {
	Provider string `json:"provider"`
}

type ttsProviderResult struct {
	Provider string `json:"provider"`
}

func (m *Manager) handleTTSSetProvider(ctx context.Context, req *rpc.Request, p ttsProviderParams) (ttsProviderResult, error) {
	id, err := m.SetTTSProvider(ctx, p.Provider)
	switch {
	case errors.Is(err, ErrTTSChoice):
		return ttsProviderResult{}, protocol.Errorf(protocol.CodeInvalidRequest, "tts.setProvider: %v", err)
	case err != nil:
		return ttsProviderResult{}, unavailable(err)
	}
	m.log.Info("channels: tts provider preferred", "provider", id, "by", callerID(req))
	return ttsProviderResult{Provider: id}, nil
}

type ttsPersonasResult struct {
	Active   *string `json:"active"`
	Personas []any   `json:"personas"`
}

func (m *Manager) handleTTSPersonas(ctx context.Context, req *rpc.Request, _ struct{}) (ttsPersonasResult, error) {
	return ttsPersonasResult{Personas: []any{}}, nil
}

type ttsPersonaParams struct {
	Persona string `json:"persona"`
}

type ttsPersonaResult struct {
	Persona *string `json:"persona"`
}

func (m *Manager) handleTTSSetPersona(ctx context.Context, req *rpc.Request, p ttsPersonaParams) (ttsPersonaResult, error) {
	_, err := m.SetTTSPersona(ctx, p.Persona)
	switch {
	case errors.Is(err, ErrTTSChoice):
		return ttsPersonaResult{}, protocol.Errorf(protocol.CodeInvalidRequest, "tts.setPersona: %v", err)
	case err != nil:
		return ttsPersonaResult{}, unavailable(err)
	}
	m.log.Info("channels: tts persona cleared", "by", callerID(req))
	return ttsPersonaResult{}, nil
}

type ttsConvertParams struct {
	Text     string `json:"text"`
	Channel  string `json:"channel"`
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
	VoiceID  string `json:"voiceId"`
}

type ttsConvertResult struct {
	AudioPath       string `json:"audioPath"`
	Provider        string `json:"provider"`
	OutputFormat    string `json:"outputFormat"`
	VoiceCompatible bool   `json:"voiceCompatible"`
}

// handleTTSConvert speaks text once and answers with the gateway-local
// path of the audio, kept in the default agent's outbox (pruned with the
// voice replies). A channel that plays voice notes gets Ogg/Opus.
func (m *Manager) handleTTSConvert(ctx context.Context, req *rpc.Request, p ttsConvertParams) (ttsConvertResult, error) {
	if strings.TrimSpace(p.Text) == "" {
		return ttsConvertResult{}, protocol.Errorf(protocol.CodeInvalidRequest, "tts.convert requires text")
	}
	cfg := m.cfg.Load()
	t, err := m.ttsForRPC(ctx, cfg)
	if err != nil {
		return ttsConvertResult{}, err
	}
	if m.opts.Workspace == nil {
		return ttsConvertResult{}, protocol.Errorf(protocol.CodeUnavailable, "tts.convert: no workspace to keep the audio in")
	}
	voiceNote := false
	if p.Channel != "" {
		if n, ok := m.network(strings.ToLower(p.Channel)); ok {
			voiceNote = n.VoiceNotes
		}
	}
	audio, provider, err := m.speechClient().SpeakTextAs(ctx, t, p.Text, speech.Choice{Provider: p.Provider, Model: p.ModelID, Voice: p.VoiceID}, voiceNote, 0)
	if err != nil {
		return ttsConvertResult{}, speechError("tts.convert", err)
	}
	ws, err := m.opts.Workspace(m.defaultAgent(cfg))
	if err != nil {
		return ttsConvertResult{}, protocol.Errorf(protocol.CodeUnavailable, "tts.convert: workspace: %v", err)
	}
	rel, err := saveOutbound(ws, "tts-"+strconv.FormatInt(time.Now().UnixNano(), 36)+audio.Ext, audio.Data)
	if err != nil {
		return ttsConvertResult{}, protocol.Errorf(protocol.CodeUnavailable, "tts.convert: save audio: %v", err)
	}
	return ttsConvertResult{AudioPath: filepath.Join(ws, filepath.FromSlash(rel)), Provider: provider, OutputFormat: audio.Format, VoiceCompatible: audio.VoiceNote}, nil
}

// ttsSpeakParams is tts.speak's params: the schema refuses other keys.
type ttsSpeakParams struct {
	Text string `json:"text"`
}

func (p *ttsSpeakParams) Validate() error {
	if p.Text == "" {
		return errors.New("text: must not be empty")
	}
	return nil
}

type ttsSpeakResult struct {
	AudioBase64   string `json:"audioBase64"`
	Provider      string `json:"provider"`
	OutputFormat  string `json:"outputFormat,omitempty"`
	MimeType      string `json:"mimeType,omitempty"`
	FileExtension string `json:"fileExtension,omitempty"`
}

// handleTTSSpeak speaks text once and answers with the whole clip inline;
// nothing is written to disk.
func (m *Manager) handleTTSSpeak(ctx context.Context, req *rpc.Request, p ttsSpeakParams) (ttsSpeakResult, error) {
	if strings.TrimSpace(p.Text) == "" {
		return ttsSpeakResult{}, protocol.Errorf(protocol.CodeInvalidRequest, "tts.speak requires text")
	}
	t, err := m.ttsForRPC(ctx, m.cfg.Load())
	if err != nil {
		return ttsSpeakResult{}, err
	}
	audio, provider, err := m.speechClient().SpeakTextAs(ctx, t, p.Text, speech.Choice{}, false, 0)
	if err != nil {
		return ttsSpeakResult{}, speechError("tts.speak", err)
	}
	if len(audio.Data) == 0 {
		return ttsSpeakResult{}, protocol.Errorf(protocol.CodeUnavailable, "tts.speak: the provider returned no audio")
	}
	return ttsSpeakResult{AudioBase64: base64.StdEncoding.EncodeToString(audio.Data), Provider: provider,
		OutputFormat: audio.Format, MimeType: audio.MIME, FileExtension: audio.Ext}, nil
}

// speechError maps a synthesis error: the caller's mistakes (too long,
// an unusable provider, model or voice) are INVALID_REQUEST; the
// provider's failures, and no provider having a key, UNAVAILABLE.
func speechError(method string, err error) error {
	if errors.Is(err, speech.ErrTooLarge) || errors.Is(err, speech.ErrBadChoice) {
		return protocol.Errorf(protocol.CodeInvalidRequest, "%s: %v", method, err)
	}
	return protocol.Errorf(protocol.CodeUnavailable, "%s: %v", method, err)
}
