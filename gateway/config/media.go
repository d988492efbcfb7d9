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

// HandlesAudio reports whether a tools.media.models entry may transcribe
// here.
func (e MediaModelEntry) HandlesAudio() bool {
	if e.Type == "cli" || !strings.EqualFold(e.Provider, "openai") {
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
		case !strings.EqualFold(e.Provider, "openai"):
			d.warnAtPath(n, path, "is not in effect here: only provider \"openai\" transcribes audio, and image and video understanding is not implemented")
		default:
			d.warnAtPath(n, path, "is not in effect here: image and video understanding is not implemented")
		}
	}
	if strings.Contains(m.Audio.PreferredModel, "/") && !strings.HasPrefix(strings.ToLower(m.Audio.PreferredModel), "openai/") {
		n, path := d.where("tools.media.audio.preferredModel")
		d.warnAtPath(n, path, "%q is not in effect here: only openai models transcribe", m.Audio.PreferredModel)
	}
}
