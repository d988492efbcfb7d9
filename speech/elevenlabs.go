package speech

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// ElevenLabs defaults, as OpenClaw's.
const (
	ElevenLabsBaseURL = "https://api.elevenlabs.io"
	ElevenLabsModel   = "eleven_multilingual_v2"
	ElevenLabsVoice   = "pMsXgVXv3BLzUgSXRplE"
)

func (c *Client) elevenLabsKey(p config.TTSProvider) string {
	return cmp.Or(p.APIKey.Value, c.getenv("ELEVENLABS_API_KEY"), c.getenv("XI_API_KEY"))
}

// elevenLabsSpeak calls POST {base}/v1/text-to-speech/{voice_id} with
// output_format opus_48000_64 for a voice note (Ogg/Opus) or
// mp3_44100_128, the key in the xi-api-key header.
func (c *Client) elevenLabsSpeak(ctx context.Context, p config.TTSProvider, ov overrides, text string, voiceNote bool) (Audio, error) {
	key := c.elevenLabsKey(p)
	if key == "" {
		return Audio{}, fmt.Errorf("elevenlabs speech: %w: set tts.providers.elevenlabs.apiKey or ELEVENLABS_API_KEY", ErrNoKey)
	}
	voice := cmp.Or(ov.voice, p.SpeakerVoiceID, p.VoiceID, ElevenLabsVoice)
	if !safeID(voice) {
		return Audio{}, fmt.Errorf("elevenlabs speech: voice id %q is not a voice id", voice)
	}
	model := cmp.Or(ov.model, p.Model, p.ModelID, ElevenLabsModel)
	switch model { // retired ids, as OpenClaw maps them
	case "eleven_turbo_v2_5":
		model = "eleven_flash_v2_5"
	case "eleven_turbo_v2":
		model = "eleven_flash_v2"
	}
	body := map[string]any{"text": text, "model_id": model}
	if vs := p.VoiceSettings; vs.Configured() || ov.speed > 0 {
		settings := map[string]any{
			"stability":         cmp.Or(vs.Stability, 0.5),
			"similarity_boost":  cmp.Or(vs.SimilarityBoost, 0.75),
			"style":             vs.Style,
			"use_speaker_boost": vs.UseSpeakerBoost == nil || *vs.UseSpeakerBoost,
			"speed":             cmp.Or(ov.speed, vs.Speed, 1.0),
		}
		body["voice_settings"] = settings
	}
	if p.LanguageCode != "" {
		body["language_code"] = p.LanguageCode
	}
	if p.Seed > 0 {
		body["seed"] = p.Seed
	}
	if p.ApplyTextNormalization != "" {
		body["apply_text_normalization"] = p.ApplyTextNormalization
	}
	b, err := json.Marshal(body)
	if err != nil {
		return Audio{}, fmt.Errorf("elevenlabs speech: %w", err)
	}
	format, audio := "mp3_44100_128", Audio{MIME: "audio/mpeg", Ext: ".mp3"}
	if voiceNote {
		format, audio = "opus_48000_64", Audio{MIME: "audio/ogg", Ext: ".ogg", VoiceNote: true}
	}
	base := trimBase(cmp.Or(p.BaseURL, ElevenLabsBaseURL))
	endpoint := base + "/v1/text-to-speech/" + url.PathEscape(voice) + "?output_format=" + format
	hdr := http.Header{"Xi-Api-Key": {key}, "Content-Type": {"application/json"}, "Accept": {"audio/*"}}
	data, err := c.post(ctx, "elevenlabs speech", endpoint, key, hdr, b, MaxAudioBytes)
	if err != nil {
		return Audio{}, err
	}
	audio.Data, audio.Format = data, format
	return audio, nil
}

// safeID accepts a provider's voice or model id: letters, digits and
// ._:- only, so a value from a model's directive cannot reach into the
// URL path or the request.
func safeID(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:-", r))
	}) < 0
}
