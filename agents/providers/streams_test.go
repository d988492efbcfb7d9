package providers_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/providers"
)

// streamWant is what a recorded stream must assemble to, from
// testdata/streams/<name>.want.json. For a stream that fails, Text is
// what was streamed before the failure.
type streamWant struct {
	Text      string `json:"text"`
	ToolCalls []struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
	Stop         string              `json:"stop"`
	Usage        providers.Usage     `json:"usage"`
	ErrorKind    providers.ErrorKind `json:"errorKind"`
	ErrorMessage string              `json:"errorMessage"`
}

// streamProvider picks the wire by the file's name: anthropic-* streams
// are Messages events, all others chat completion chunks.
func streamProvider(name, base string) providers.Provider {
	o := providers.Options{Name: "rec", BaseURL: base, APIKey: "test-key"}
	if strings.HasPrefix(name, "anthropic-") {
		return providers.NewAnthropic(o)
	}
	o.BaseURL += "/v1"
	return providers.NewOpenAI(o)
}

// lineEndings rewrite a recorded stream's LF line ends: servers may use
// any of the three the standard allows.
var lineEndings = map[string]func(string) string{
	"lf":   func(s string) string { return s },
	"crlf": func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") },
	"cr":   func(s string) string { return strings.ReplaceAll(s, "\n", "\r") },
}

// serveStream answers every request with body, written in small flushed
// pieces so that events arrive split across reads.
func serveStream(t *testing.T, body string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for len(body) > 0 {
			n := min(97, len(body))
			io.WriteString(w, body[:n])
			w.(http.Flusher).Flush()
			body = body[n:]
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRecordedStreams replays testdata/streams/*.sse and checks what the
// provider assembles from each.
func TestRecordedStreams(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "streams", "*.sse"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded streams: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".sse")
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		wantJSON, err := os.ReadFile(strings.TrimSuffix(file, ".sse") + ".want.json")
		if err != nil {
			t.Fatal(err)
		}
		var want streamWant
		if err := json.Unmarshal(wantJSON, &want); err != nil {
			t.Fatalf("%s.want.json: %v", name, err)
		}
		for ending, rewrite := range lineEndings {
			t.Run(name+"/"+ending, func(t *testing.T) {
				srv := serveStream(t, rewrite(string(raw)))
				rec := &recorder{}
				resp, err := streamProvider(name, srv.URL).Complete(t.Context(), userRequest("m", "hi"), rec.hooks())
				streamed := strings.Join(rec.deltas, "")
				if streamed != want.Text {
					t.Errorf("streamed %q, want %q", streamed, want.Text)
				}
				if want.ErrorKind != "" {
					pe := asError(t, err)
					if pe.Kind != want.ErrorKind || pe.Status != 0 || pe.Message != want.ErrorMessage {
						t.Errorf("error %s (HTTP %d) %q, want %s %q", pe.Kind, pe.Status, pe.Message, want.ErrorKind, want.ErrorMessage)
					}
					return
				}
				if err != nil {
					t.Fatalf("Complete: %v", err)
				}
				if resp.Text != want.Text || resp.StopReason != want.Stop || resp.Usage != want.Usage {
					t.Errorf("got text %q stop %q usage %+v\nwant text %q stop %q usage %+v",
						resp.Text, resp.StopReason, resp.Usage, want.Text, want.Stop, want.Usage)
				}
				if len(resp.ToolCalls) != len(want.ToolCalls) {
					t.Fatalf("got %d tool calls %+v, want %d", len(resp.ToolCalls), resp.ToolCalls, len(want.ToolCalls))
				}
				for i, w := range want.ToolCalls {
					g := resp.ToolCalls[i]
					if g.ID != w.ID || g.Name != w.Name || !sameJSON(t, string(g.Arguments), string(w.Arguments)) {
						t.Errorf("call %d = %s %s %s, want %s %s %s", i, g.ID, g.Name, g.Arguments, w.ID, w.Name, w.Arguments)
					}
				}
			})
		}
	}
}

// bodyTransport answers every request with one body, without a network.
type bodyTransport struct{ body string }

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(strings.NewReader(b.body)), Request: r}, nil
}

// FuzzStreams: whatever a server streams, both wires end in a response or
// a classified error, never a panic, and a response's tool arguments are
// JSON.
func FuzzStreams(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "streams", "*.sse"))
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(raw))
	}
	f.Add("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-1,\"function\":{\"arguments\":{}}}]},\"finish_reason\":7}]}\n\n")
	f.Add("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1e308,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n\n")
	f.Fuzz(func(t *testing.T, body string) {
		for _, mk := range []func(providers.Options) providers.Provider{
			func(o providers.Options) providers.Provider { return providers.NewOpenAI(o) },
			func(o providers.Options) providers.Provider { return providers.NewAnthropic(o) },
		} {
			p := mk(providers.Options{Name: "fuzz", BaseURL: "http://model.invalid", HTTPClient: &http.Client{Transport: bodyTransport{body}}})
			resp, err := p.Complete(t.Context(), userRequest("m", "hi"), providers.Hooks{})
			if (resp == nil) == (err == nil) {
				t.Fatalf("response %v and error %v", resp, err)
			}
			if err != nil {
				if providers.KindOf(err) == "" {
					t.Fatalf("unclassified error %v", err)
				}
				continue
			}
			for _, c := range resp.ToolCalls {
				if !json.Valid(c.Arguments) {
					t.Fatalf("call %s arguments %q are not JSON", c.Name, c.Arguments)
				}
			}
		}
	})
}
