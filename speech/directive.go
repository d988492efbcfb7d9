package speech

import (
	"strconv"
	"strings"
)

// Directives is what a reply's [[tts:...]] tags asked for.
type Directives struct {
	// Tagged: the reply had a [[tts:...]] directive or a [[tts:text]]
	// block (tts.auto "tagged" speaks only such replies).
	Tagged bool
	// Text is the [[tts:text]]...[[/tts:text]] blocks' content, spoken
	// instead of the visible text and never shown; "" when there is none.
	Text     string
	Provider string
	Voice    string
	Model    string
	Speed    float64
}

// overrides are the directive values a provider call obeys.
type overrides struct {
	voice, model string
	speed        float64
}

// Limits of directive parsing: a reply is the model's, and a prompt
// injection may try to make it costly to parse or speak.
const (
	maxDirectives    = 16
	maxDirectiveBody = 512
)

// ParseDirectives takes the [[tts:...]] directives and [[tts:text]] blocks
// out of a reply: visible is what the chat shows, d what they asked.
// Unknown keys and malformed values are ignored; a voice or model id that
// is not a plain id is dropped. An unclosed [[tts:text]] runs to the end
// of the reply.
func ParseDirectives(reply string) (visible string, d Directives) {
	var vis, spoken strings.Builder
	rest := reply
	for n := 0; ; n++ {
		i := strings.Index(rest, "[[tts")
		if i < 0 {
			vis.WriteString(rest)
			break
		}
		vis.WriteString(rest[:i])
		rest = rest[i:]
		// Look for the end only near the start, so a reply of many
		// unclosed "[[tts" stays linear to parse.
		end := strings.Index(rest[:min(len(rest), maxDirectiveBody+8)], "]]")
		if end < 0 {
			// Not a directive: keep the text as written.
			vis.WriteString(rest[:5])
			rest = rest[5:]
			continue
		}
		tag := rest[len("[[tts"):end]
		rest = rest[end+2:]
		switch {
		case tag == ":text":
			d.Tagged = true
			body := rest
			if j := strings.Index(rest, "[[/tts:text]]"); j >= 0 {
				body, rest = rest[:j], rest[j+len("[[/tts:text]]"):]
			} else {
				rest = ""
			}
			if spoken.Len() > 0 {
				spoken.WriteByte(' ')
			}
			spoken.WriteString(strings.TrimSpace(body))
		case tag == "" || tag == "]":
			d.Tagged = true
		case strings.HasPrefix(tag, ":"):
			d.Tagged = true
			if n < maxDirectives {
				d.apply(tag[1:])
			}
		case strings.HasPrefix(tag, "/"):
			// a stray closing tag
		default:
			vis.WriteString("[[tts" + tag + "]]")
		}
	}
	d.Text = strings.TrimSpace(spoken.String())
	return tidy(vis.String()), d
}

func (d *Directives) apply(body string) {
	for _, kv := range strings.Fields(body) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"'`)
		switch k {
		case "provider":
			if safeID(v) {
				d.Provider = strings.ToLower(v)
			}
		case "speakerVoice", "speakerVoiceId", "voice", "voiceId", "voiceName", "voice_name":
			if safeID(v) {
				d.Voice = v
			}
		case "model", "modelId":
			if safeID(v) {
				d.Model = v
			}
		case "speed":
			if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0.25 && f <= 4 {
				d.Speed = f
			}
		}
	}
}

// tidy trims what taking tags out left: trailing spaces on lines and
// runs of blank lines.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}
