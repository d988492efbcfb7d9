package config

import (
	"slices"
	"strings"
)

// Defaults of tools.media.audio.
const (
	DefaultAudioMaxBytes       = 20 << 20
	DefaultAudioTimeoutSeconds = 60
	DefaultAudioModel          = "gpt-4o-transcribe"
	DefaultAudioEchoFormat     = "📝 \"{transcript}\""
)

// AudioProviders are the providers that transcribe here, in the order
// one is picked when tools.media.models names none.
var AudioProviders = []string{"openai", "elevenlabs"}

// DefaultElevenLabsAudioModel is ElevenLabs' transcription model.
const DefaultElevenLabsAudioModel = "scribe_v2"

// HandlesAudio reports whether a tools.media.models entry may transcribe
// here.
func (e MediaModelEntry) HandlesAudio() bool {
	if e.Type == "cli" || !slices.Contains(AudioProviders, strings.ToLower(e.Provider)) {
		return false
	}
	return len(e.Capabilities) == 0 || slices.Contains(e.Capabilities, "audio")
}

// validateMedia warns about tools.media entries kept without effect.
func (d *decoder) validateMedia(m *ToolMedia) {
	for i, e := range m.Models {
		if e.HandlesAudio() {
			continue
		}
		path := indexPath("tools.media.models", i)
		n, _ := d.where(path, "tools.media.models")
		switch {
		case e.Type == "cli":
			d.warnAtPath(n, path, "is not in effect here: CLI media models are not run")
		case !slices.Contains(AudioProviders, strings.ToLower(e.Provider)):
			d.warnAtPath(n, path, "is not in effect here: only providers %s transcribe audio, and image and video understanding is not implemented", quoteList(AudioProviders))
		default:
			d.warnAtPath(n, path, "is not in effect here: image and video understanding is not implemented")
		}
	}
	if prov, _, ok := strings.Cut(strings.ToLower(m.Audio.PreferredModel), "/"); ok && !slices.Contains(AudioProviders, prov) {
		n, path := d.where("tools.media.audio.preferredModel")
		d.warnAtPath(n, path, "%q is not in effect here: only %s models transcribe", m.Audio.PreferredModel, quoteList(AudioProviders))
	}
}
