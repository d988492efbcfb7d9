package discord

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/bwmarrin/discordgo"

	"github.com/openclaw-go/openclaw/channels"
)

// A voice message is a message with the IS_VOICE_MESSAGE flag, no
// content and one Ogg/Opus attachment whose metadata gives its length
// (duration_secs) and a waveform to draw.
type voicePayload struct {
	Flags       discordgo.MessageFlags      `json:"flags"`
	Attachments []voiceAttachment           `json:"attachments"`
	Reference   *discordgo.MessageReference `json:"message_reference,omitempty"`
}

type voiceAttachment struct {
	ID           int     `json:"id"`
	Filename     string  `json:"filename"`
	DurationSecs float64 `json:"duration_secs"`
	Waveform     string  `json:"waveform"`
}

// flatWaveform is drawn for every voice message: Discord wants up to 256
// amplitude bytes, and decoding Opus to measure them is not worth it.
var flatWaveform = base64.StdEncoding.EncodeToString(func() []byte {
	b := make([]byte, 64)
	for i := range b {
		b[i] = 96
	}
	return b
}())

// sendVoice posts f as a voice message (POST /channels/{id}/messages,
// multipart with payload_json and files[0]).
func (a *Adapter) sendVoice(ctx context.Context, channelID string, msg channels.Outbound, f outFile) (channels.Sent, error) {
	data, err := os.ReadFile(f.path)
	if err != nil {
		return channels.Sent{}, fmt.Errorf("discord: attachment %q: %w", f.name, err)
	}
	p := voicePayload{
		Flags:       discordgo.MessageFlagsIsVoiceMessage,
		Attachments: []voiceAttachment{{ID: 0, Filename: f.name, DurationSecs: OggDuration(data), Waveform: flatWaveform}},
	}
	if msg.ReplyToID != "" {
		p.Reference = &discordgo.MessageReference{MessageID: msg.ReplyToID, ChannelID: channelID, FailIfNotExists: ptr(false)}
	}
	if msg.Silent {
		p.Flags |= discordgo.MessageFlagsSuppressNotifications
	}
	ct, body, err := discordgo.MultipartBodyWithJSON(p, []*discordgo.File{{Name: f.name, ContentType: "audio/ogg", Reader: bytes.NewReader(data)}})
	if err != nil {
		return channels.Sent{}, fmt.Errorf("discord: voice message: %w", err)
	}
	endpoint := discordgo.EndpointChannelMessages(channelID)
	var res []byte
	err = a.call(ctx, "send voice message", func(o ...discordgo.RequestOption) (err error) {
		res, err = a.rest.RequestRaw("POST", endpoint, ct, body, endpoint, 0, o...)
		return err
	})
	if err != nil {
		return channels.Sent{}, err
	}
	var m struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(res, &m) != nil || m.ID == "" {
		return channels.Sent{}, fmt.Errorf("discord send voice message: %w: no id", ErrMalformedResponse)
	}
	return channels.Sent{MessageID: m.ID}, nil
}

// OggDuration is the length in seconds of an Ogg/Opus stream: the last
// page's granule position (48 kHz samples) less the OpusHead pre-skip.
// A stream it cannot read is estimated from its size at 64 kbit/s, and
// never said to be shorter than a second. The audio comes from a speech
// provider, so the walk is bounded by the data and trusts no length.
func OggDuration(b []byte) float64 {
	var granule uint64
	preSkip := 0
	first := true
	for off := 0; off+27 <= len(b); {
		if string(b[off:off+4]) != "OggS" {
			break
		}
		g := binary.LittleEndian.Uint64(b[off+6 : off+14])
		nseg := int(b[off+26])
		if off+27+nseg > len(b) {
			break
		}
		size := 0
		for _, s := range b[off+27 : off+27+nseg] {
			size += int(s)
		}
		bodyAt := off + 27 + nseg
		if bodyAt+size > len(b) {
			break
		}
		if first {
			body := b[bodyAt : bodyAt+size]
			if len(body) >= 12 && string(body[:8]) == "OpusHead" {
				preSkip = int(binary.LittleEndian.Uint16(body[10:12]))
			}
			first = false
		}
		if g != math.MaxUint64 { // -1: no packet ends on this page
			granule = g
		}
		off = bodyAt + size
	}
	secs := (float64(granule) - float64(preSkip)) / 48000
	if granule == 0 || secs <= 0 || secs > 24*3600 {
		secs = float64(len(b)) * 8 / 64000
	}
	return math.Max(1, math.Round(secs*100)/100)
}
