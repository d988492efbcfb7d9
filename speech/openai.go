package speech

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// OpenAI defaults, as OpenClaw's.
const (
	OpenAIBaseURL  = "https://api.openai.com/v1"
	OpenAITTSModel = "gpt-4o-mini-tts"
	OpenAIVoice    = "coral"
)

// openAIKey is the provider block's key, else OPENAI_API_KEY.
func (c *Client) openAIKey(p config.TTSProvider) string {
	return cmp.Or(p.APIKey.Value, c.getenv("OPENAI_API_KEY"))
}

// openAISpeak calls POST {base}/audio/speech: JSON in, audio bytes out.
// A voice note asks for "opus" (Ogg/Opus), anything else "mp3", unless
// responseFormat says otherwise.
func (c *Client) openAISpeak(ctx context.Context, p config.TTSProvider, ov overrides, text string, voiceNote bool) (Audio, error) {
	key := c.openAIKey(p)
	if key == "" {
		return Audio{}, fmt.Errorf("openai speech: %w: set tts.providers.openai.apiKey or OPENAI_API_KEY", ErrNoKey)
	}
	base := trimBase(cmp.Or(p.BaseURL, c.getenv("OPENAI_TTS_BASE_URL"), OpenAIBaseURL))
	format := p.ResponseFormat
	if format == "" {
		format = "mp3"
		if voiceNote {
			format = "opus"
		}
	}
	body := map[string]any{
		"model":           cmp.Or(ov.model, p.Model, OpenAITTSModel),
		"input":           text,
		"voice":           cmp.Or(ov.voice, p.SpeakerVoice, p.Voice, OpenAIVoice),
		"response_format": format,
	}
	if p.Instructions != "" {
		body["instructions"] = p.Instructions
	}
	if s := cmp.Or(ov.speed, p.Speed); s > 0 {
		body["speed"] = s
	}
	b, err := json.Marshal(body)
	if err != nil {
		return Audio{}, fmt.Errorf("openai speech: %w", err)
	}
	hdr := http.Header{"Authorization": {"Bearer " + key}, "Content-Type": {"application/json"}}
	data, err := c.post(ctx, "openai speech", base+"/audio/speech", key, hdr, b, MaxAudioBytes)
	if err != nil {
		return Audio{}, err
	}
	return audioOf(data, format), nil
}

// audioOf labels the bytes of an OpenAI response_format.
func audioOf(data []byte, format string) Audio {
	switch format {
	case "opus":
		return Audio{Data: data, MIME: "audio/ogg", Ext: ".ogg", VoiceNote: true, Format: format}
	case "wav":
		return Audio{Data: data, MIME: "audio/wav", Ext: ".wav", Format: format}
	default:
		return Audio{Data: data, MIME: "audio/mpeg", Ext: ".mp3", Format: format}
	}
}

// STTSettings is how inbound audio is transcribed (OpenAI's
// /audio/transcriptions), resolved from tools.media.
type STTSettings struct {
	Provider string // "openai" or "elevenlabs"
	BaseURL  string
	Key      string
	Model    string
	Language string
	Prompt   string
	// MaxBytes is the largest file sent; larger ones are not transcribed.
	MaxBytes int64
	// MaxChars cuts the transcript; 0 keeps all of it.
	MaxChars int
	Timeout  time.Duration
	// Echo, when not "", is posted in the chat with {transcript} replaced.
	Echo string
}

// minAudioBytes: files below it hold no speech worth a provider call, as
// OpenClaw skips them.
const minAudioBytes = 1024

// STTFor resolves transcription from cfg: tools.media.audio, the first
// tools.media.models entry that transcribes here (the preferredModel
// first), else the first provider with a key: openai
// (models.providers.openai.apiKey or OPENAI_API_KEY), then elevenlabs
// (models.providers.elevenlabs.apiKey, tts.providers.elevenlabs.apiKey,
// ELEVENLABS_API_KEY or XI_API_KEY). ok is false when transcription is
// off or has no key.
func (c *Client) STTFor(cfg *config.Config) (s STTSettings, ok bool) {
	a := cfg.Tools.Media.Audio
	if a.Enabled != nil && !*a.Enabled {
		return STTSettings{}, false
	}
	var entry config.MediaModelEntry
	found := false
	for _, e := range cfg.Tools.Media.Models {
		if !e.HandlesAudio() {
			continue
		}
		if !found || strings.EqualFold(e.Provider+"/"+e.Model, a.PreferredModel) {
			entry, found = e, true
		}
	}
	provider := strings.ToLower(entry.Provider)
	if !found {
		for _, id := range config.AudioProviders {
			if c.sttKey(cfg, id) != "" {
				provider = id
				break
			}
		}
	}
	if provider == "" {
		return STTSettings{}, false
	}
	mp := cfg.Models.Providers[provider]
	defBase, defModel := OpenAIBaseURL, config.DefaultAudioModel
	if provider == "elevenlabs" {
		defBase, defModel = ElevenLabsBaseURL, config.DefaultElevenLabsAudioModel
	}
	preferred := ""
	if p, m, ok := strings.Cut(a.PreferredModel, "/"); ok && strings.EqualFold(p, provider) {
		preferred = m
	}
	s = STTSettings{
		Provider: provider,
		BaseURL:  trimBase(cmp.Or(entry.BaseURL, a.BaseURL, mp.BaseURL, defBase)),
		Key:      c.sttKey(cfg, provider),
		Model:    cmp.Or(entry.Model, preferred, defModel),
		Language: cmp.Or(entry.Language, a.Language),
		Prompt:   cmp.Or(entry.Prompt, a.Prompt),
		MaxBytes: int64(cmp.Or(entry.MaxBytes, a.MaxBytes, config.DefaultAudioMaxBytes)),
		MaxChars: cmp.Or(entry.MaxChars, a.MaxChars),
		Timeout:  time.Duration(cmp.Or(entry.TimeoutSeconds, a.TimeoutSeconds, config.DefaultAudioTimeoutSeconds)) * time.Second,
	}
	if a.EchoTranscript {
		s.Echo = cmp.Or(a.EchoFormat, config.DefaultAudioEchoFormat)
	}
	return s, s.Key != ""
}

// sttKey is provider's transcription key.
func (c *Client) sttKey(cfg *config.Config, provider string) string {
	mp := cfg.Models.Providers[provider].APIKey.Value
	switch provider {
	case "openai":
		return cmp.Or(mp, c.getenv("OPENAI_API_KEY"))
	case "elevenlabs":
		return cmp.Or(mp, c.elevenLabsKey(cfg.TTS.Providers["elevenlabs"]))
	}
	return ""
}

// Transcribe sends audio to OpenAI's POST {base}/audio/transcriptions
// (multipart: file, model, language, prompt) or ElevenLabs' POST
// {base}/v1/speech-to-text (file, model_id, language_code) and returns
// the text. Audio over
// s.MaxBytes is refused before any upload (ErrTooLarge); audio under
// 1 KiB is taken as silence ("" and no call).
func (c *Client) Transcribe(ctx context.Context, s STTSettings, audio []byte, name, mimeType string) (string, error) {
	if s.MaxBytes > 0 && int64(len(audio)) > s.MaxBytes {
		return "", fmt.Errorf("transcription: audio is %d bytes, over the %d allowed (tools.media.audio.maxBytes): %w", len(audio), s.MaxBytes, ErrTooLarge)
	}
	if len(audio) < minAudioBytes {
		return "", nil
	}
	if s.Key == "" {
		return "", fmt.Errorf("%s transcription: %w", s.Provider, ErrNoKey)
	}
	ctx, cancel := withTimeout(ctx, s.Timeout, time.Duration(config.DefaultAudioTimeoutSeconds)*time.Second)
	defer cancel()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, uploadName(name, mimeType)))
	h.Set("Content-Type", cmp.Or(mimeType, "application/octet-stream"))
	fw, err := mw.CreatePart(h)
	if err == nil {
		_, err = fw.Write(audio)
	}
	// OpenAI: model, language, prompt. ElevenLabs (/v1/speech-to-text):
	// model_id and language_code, the key in xi-api-key.
	label, endpoint := "openai transcription", s.BaseURL+"/audio/transcriptions"
	hdr := http.Header{"Authorization": {"Bearer " + s.Key}}
	fields := [][2]string{{"model", s.Model}, {"response_format", "json"}, {"language", s.Language}, {"prompt", s.Prompt}}
	if s.Provider == "elevenlabs" {
		label, endpoint = "elevenlabs transcription", s.BaseURL+"/v1/speech-to-text"
		hdr = http.Header{"Xi-Api-Key": {s.Key}}
		fields = [][2]string{{"model_id", s.Model}, {"language_code", s.Language}}
	}
	for _, f := range fields {
		if err == nil && f[1] != "" {
			err = mw.WriteField(f[0], f[1])
		}
	}
	if err == nil {
		err = mw.Close()
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", label, err)
	}
	hdr.Set("Content-Type", mw.FormDataContentType())
	data, err := c.post(ctx, label, endpoint, s.Key, hdr, buf.Bytes(), maxJSONBytes)
	if err != nil {
		return "", err
	}
	var out struct {
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(data, &out); err != nil || out.Text == nil {
		return "", fmt.Errorf("%s: answer has no text", label)
	}
	text := strings.TrimSpace(*out.Text)
	if r := []rune(text); s.MaxChars > 0 && len(r) > s.MaxChars {
		text = string(r[:s.MaxChars])
	}
	return text, nil
}

// uploadName is a file name with an extension OpenAI recognises (it
// picks the decoder from it): Telegram voice notes come without one.
func uploadName(name, mimeType string) string {
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == '"' || r == '\\' || r == '/' || r == 0x7f {
			return '_'
		}
		return r
	}, name)
	if i := strings.LastIndexByte(name, '.'); i > 0 && len(name)-i <= 5 {
		return name
	}
	ext := ".ogg"
	switch strings.ToLower(strings.TrimSpace(strings.Split(mimeType, ";")[0])) {
	case "audio/mpeg", "audio/mp3":
		ext = ".mp3"
	case "audio/mp4", "audio/m4a", "audio/x-m4a", "audio/aac":
		ext = ".m4a"
	case "audio/wav", "audio/x-wav", "audio/wave":
		ext = ".wav"
	case "audio/webm":
		ext = ".webm"
	}
	if name == "" {
		name = "voice"
	}
	return name + ext
}
