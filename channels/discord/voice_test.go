package discord

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/discord/discordtest"
)

// oggPage builds one Ogg page holding body, ending at granule.
func oggPage(granule uint64, body []byte) []byte {
	h := make([]byte, 27)
	copy(h, "OggS")
	binary.LittleEndian.PutUint64(h[6:], granule)
	var segs []byte
	for n := len(body); ; n -= 255 {
		if n < 255 {
			segs = append(segs, byte(n))
			break
		}
		segs = append(segs, 255)
	}
	h[26] = byte(len(segs))
	return append(append(h, segs...), body...)
}

func opusStream(seconds float64) []byte {
	head := append([]byte("OpusHead\x01\x01"), 0x38, 0x01, 0, 0, 0, 0, 0, 0, 0) // pre-skip 312
	out := oggPage(0, head)
	out = append(out, oggPage(0, []byte("OpusTags"))...)
	return append(out, oggPage(uint64(seconds*48000)+312, make([]byte, 300))...)
}

var oggCases = []struct {
	name string
	data []byte
	want float64
}{
	{"three seconds", opusStream(3), 3},
	{"long", opusStream(95.5), 95.5},
	{"not ogg, by size", make([]byte, 16000), 2},
	{"tiny", []byte("OggS"), 1},
	{"truncated page", opusStream(3)[:40], 1},
}

func TestOggDuration(t *testing.T) {
	for _, tc := range oggCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := OggDuration(tc.data); got != tc.want {
				t.Errorf("OggDuration = %v, want %v", got, tc.want)
			}
		})
	}
}

// FuzzOggDuration: any bytes give a duration of at least a second and at
// most a day, without panicking.
func FuzzOggDuration(f *testing.F) {
	for _, tc := range oggCases {
		f.Add(tc.data)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if d := OggDuration(b); d < 1 || d > 24*3600+float64(len(b))*8/64000 {
			t.Fatalf("duration %v for %d bytes", d, len(b))
		}
	})
}

// TestSendVoiceMessage: a voice attachment goes as a Discord voice
// message: the IS_VOICE_MESSAGE flag, no content, one file, and its
// duration and waveform in the attachment metadata (the fake refuses a
// voice message without them, as Discord does).
func TestSendVoiceMessage(t *testing.T) {
	fake := discordtest.New(t, testToken)
	a := newAdapter(t, fake, nil)
	path := filepath.Join(t.TempDir(), "voice.ogg")
	data := opusStream(4)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	sent, err := a.Send(context.Background(), channels.Outbound{To: channels.Target{ChatID: "c1"}, ReplyToID: "m9",
		Attachments: []channels.Attachment{{Path: path, Name: "voice.ogg", MIME: "audio/ogg", Voice: true}}})
	if err != nil {
		t.Fatal(err)
	}
	ms := fake.Sent()
	if len(ms) != 1 || sent.MessageID != ms[0].ID {
		t.Fatalf("sent %+v (%+v)", ms, sent)
	}
	m := ms[0]
	if m.Flags&(1<<13) == 0 || m.Content != "" || len(m.Files) != 1 || !bytes.Equal(m.Files[0].Bytes, data) || m.ReplyTo != "m9" {
		t.Errorf("voice message %+v", m)
	}
	if len(m.Attachments) != 1 || m.Attachments[0].DurationSecs != 4 || m.Attachments[0].Waveform == "" {
		t.Errorf("attachment metadata %+v", m.Attachments)
	}
}
