package canvas

import (
	"strings"
	"testing"
)

const (
	lineSurface = `{"surfaceUpdate":{"surfaceId":"main","components":[{"id":"root","component":{"Column":{"children":{"explicitList":["t"]}}}},{"id":"t","component":{"Text":{"text":{"literalString":"Hi"},"usageHint":"h1"}}}]}}`
	lineData    = `{"dataModelUpdate":{"surfaceId":"main","path":"/","contents":[{"key":"name","valueString":"Ada"}]}}`
	lineBegin   = `{"beginRendering":{"surfaceId":"main","root":"root","styles":{"primaryColor":"#00f"}}}`
	lineDelete  = `{"deleteSurface":{"surfaceId":"main"}}`
)

var parseCases = []struct {
	name    string
	in      string
	n       int    // messages on success
	wantErr string // substring; empty means success
}{
	{"surfaceUpdate", lineSurface, 1, ""},
	{"dataModelUpdate", lineData, 1, ""},
	{"beginRendering", lineBegin, 1, ""},
	{"deleteSurface", lineDelete, 1, ""},
	{"all kinds", strings.Join([]string{lineSurface, lineData, lineBegin, lineDelete}, "\n"), 4, ""},
	{"blank lines and CRLF ignored", "\n" + lineSurface + "\r\n\n   \n" + lineBegin + "\n", 2, ""},
	{"version 0.8 accepted", `{"version":"0.8","deleteSurface":{"surfaceId":"a"}}`, 1, ""},
	{"v0.9 createSurface", lineSurface + "\n" + lineBegin + "\n" + `{"createSurface":{"surfaceId":"x"}}`, 0, "line 3: createSurface is A2UI v0.9; this canvas takes v0.8"},
	{"v0.9 updateComponents", `{"updateComponents":{"surfaceId":"x","components":[]}}`, 0, "line 1: updateComponents is A2UI v0.9"},
	{"v0.9 version field", "\n" + `{"version":"0.9","deleteSurface":{"surfaceId":"x"}}`, 0, `line 2: version "0.9" is A2UI v0.9`},
	{"bad JSON", lineSurface + "\n{\"beginRendering\":", 0, "line 2: invalid JSON"},
	{"bad JSON after blank lines", "\n\n\nnot json", 0, "line 4: invalid JSON"},
	{"not an object", `[1,2]`, 0, "line 1: a message must be a JSON object"},
	{"empty", "\n  \n", 0, "no messages"},
	{"empty object", `{}`, 0, "line 1: empty message"},
	{"two kinds", `{"deleteSurface":{"surfaceId":"a"},"beginRendering":{"surfaceId":"a","root":"r"}}`, 0, "exactly one of"},
	{"unknown key", `{"surfaceUpdat":{}}`, 0, `line 1: unknown key "surfaceUpdat"`},
	{"missing surfaceId", `{"deleteSurface":{}}`, 0, "deleteSurface.surfaceId is required"},
	{"missing root", `{"beginRendering":{"surfaceId":"a"}}`, 0, "beginRendering.root is required"},
	{"no components", `{"surfaceUpdate":{"surfaceId":"a","components":[]}}`, 0, "components is empty"},
	{"component without id", `{"surfaceUpdate":{"surfaceId":"a","components":[{"component":{"Text":{}}}]}}`, 0, "components[0].id is required"},
	{"component with two types", `{"surfaceUpdate":{"surfaceId":"a","components":[{"id":"x","component":{"Text":{},"Row":{}}}]}}`, 0, "exactly one type key"},
	{"component props not object", `{"surfaceUpdate":{"surfaceId":"a","components":[{"id":"x","component":{"Text":"hi"}}]}}`, 0, "component.Text must be an object"},
	{"duplicate ids", `{"surfaceUpdate":{"surfaceId":"a","components":[{"id":"x","component":{"Text":{}}},{"id":"x","component":{"Text":{}}}]}}`, 0, `duplicate id "x"`},
	{"contents not array", `{"dataModelUpdate":{"surfaceId":"a","contents":{}}}`, 0, "contents must be an array"},
	{"body not object", `{"deleteSurface":"a"}`, 0, "deleteSurface must be an object"},
	{"wrong field type", `{"deleteSurface":{"surfaceId":7}}`, 0, "line 1: deleteSurface:"},
}

func TestParseJSONL(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			msgs, err := ParseJSONL(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) != tc.n {
				t.Fatalf("got %d messages, want %d", len(msgs), tc.n)
			}
			// What we re-encode for nodes must parse to the same messages.
			again, err := ParseJSONL(EncodeJSONL(msgs))
			if err != nil || len(again) != len(msgs) {
				t.Fatalf("round trip: %d messages, %v", len(again), err)
			}
		})
	}
}

func TestParseJSONLKeepsFields(t *testing.T) {
	msgs, err := ParseJSONL(strings.Join([]string{lineSurface, lineData, lineBegin}, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if u := msgs[0].SurfaceUpdate; u == nil || u.SurfaceID != "main" || len(u.Components) != 2 || string(u.Components[1].Component["Text"]) != `{"text":{"literalString":"Hi"},"usageHint":"h1"}` {
		t.Errorf("surfaceUpdate = %+v", msgs[0].SurfaceUpdate)
	}
	if d := msgs[1].DataModelUpdate; d == nil || d.Path != "/" || !strings.Contains(string(d.Contents), "Ada") {
		t.Errorf("dataModelUpdate = %+v", msgs[1].DataModelUpdate)
	}
	if b := msgs[2].BeginRendering; b == nil || b.Root != "root" || string(b.Styles) != `{"primaryColor":"#00f"}` {
		t.Errorf("beginRendering = %+v", msgs[2].BeginRendering)
	}
}

func TestParseJSONLTooLarge(t *testing.T) {
	if _, err := ParseJSONL(strings.Repeat(" ", MaxJSONLBytes+1)); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("err = %v", err)
	}
}

func TestTextMessages(t *testing.T) {
	msgs := TextMessages(`Hello "from" A2UI`)
	again, err := ParseJSONL(EncodeJSONL(msgs))
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 2 || again[0].SurfaceUpdate == nil || again[1].BeginRendering == nil || again[1].BeginRendering.Root != "text" {
		t.Fatalf("messages = %s", EncodeJSONL(again))
	}
	if !strings.Contains(string(again[0].SurfaceUpdate.Components[0].Component["Text"]), `Hello \"from\" A2UI`) {
		t.Fatalf("text lost: %s", again[0].SurfaceUpdate.Components[0].Component["Text"])
	}
}

func FuzzParseJSONL(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		msgs, err := ParseJSONL(in)
		if err != nil {
			if len(msgs) != 0 {
				t.Fatal("messages returned with an error")
			}
			return
		}
		// Whatever is accepted must survive the trip to a node unchanged.
		again, err := ParseJSONL(EncodeJSONL(msgs))
		if err != nil {
			t.Fatalf("re-encoded input refused: %v", err)
		}
		if EncodeJSONL(again) != EncodeJSONL(msgs) {
			t.Fatal("round trip changed the messages")
		}
	})
}
