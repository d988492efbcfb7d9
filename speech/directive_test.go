package speech

import (
	"strings"
	"testing"
	"unicode/utf8"
)

var directiveCases = []struct {
	name, in, visible string
	want              Directives
}{
	{"none", "Just text.", "Just text.", Directives{}},
	{"voice", "Hi. [[tts:speakerVoice=nova speed=1.2]]", "Hi.", Directives{Tagged: true, Voice: "nova", Speed: 1.2}},
	{"text block", "Shown.\n\n[[tts:text]]Spoken.[[/tts:text]]\n\nMore.", "Shown.\n\nMore.", Directives{Tagged: true, Text: "Spoken."}},
	{"unclosed block", "A [[tts:text]]rest", "A", Directives{Tagged: true, Text: "rest"}},
	{"bare", "[[tts]] hello", "hello", Directives{Tagged: true}},
	{"path in voice", "[[tts:voiceId=../../v1/user model=x?y]] ok", "ok", Directives{Tagged: true}},
	{"provider", "[[tts:provider=ElevenLabs model=eleven_v3]]", "", Directives{Tagged: true, Provider: "elevenlabs", Model: "eleven_v3"}},
	{"speed out of range", "[[tts:speed=99]]x", "x", Directives{Tagged: true}},
	{"not ours", "see [[ttsx]] and [[other]]", "see [[ttsx]] and [[other]]", Directives{}},
	{"unterminated", "a [[tts:voice=x", "a [[tts:voice=x", Directives{}},
}

func TestParseDirectives(t *testing.T) {
	for _, tc := range directiveCases {
		t.Run(tc.name, func(t *testing.T) {
			vis, d := ParseDirectives(tc.in)
			if vis != tc.visible || d != tc.want {
				t.Errorf("got %q %+v, want %q %+v", vis, d, tc.visible, tc.want)
			}
		})
	}
}

// FuzzParseDirectives: any reply parses without panic, the visible text
// never grows nor keeps a complete directive, and what a directive sets is
// always a plain id.
func FuzzParseDirectives(f *testing.F) {
	for _, tc := range directiveCases {
		f.Add(tc.in)
	}
	f.Add(strings.Repeat("[[tts", 1000))
	f.Fuzz(func(t *testing.T, in string) {
		vis, d := ParseDirectives(in)
		if len(vis) > len(in) {
			t.Fatalf("visible %q longer than input", vis)
		}
		if utf8.ValidString(in) && !utf8.ValidString(vis) {
			t.Fatalf("visible %q is not UTF-8", vis)
		}
		for _, id := range []string{d.Voice, d.Model, d.Provider} {
			if id != "" && !safeID(id) {
				t.Fatalf("unsafe id %q", id)
			}
		}
		if strings.Contains(vis, "[[tts:text]]") && strings.Contains(vis, "[[/tts:text]]") && !strings.Contains(in, "[[tts:text]][[tts:text]]") {
			// a complete block left visible would be spoken and shown
			if i, j := strings.Index(vis, "[[tts:text]]"), strings.Index(vis, "[[/tts:text]]"); i < j {
				t.Fatalf("block left in visible %q", vis)
			}
		}
	})
}
