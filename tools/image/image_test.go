package image

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/netguard"
)

// Smallest headers of each accepted format; the tool reads only the
// signature, the model gets the bytes as they are.
var (
	pngBytes  = append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 60)...)
	jpegBytes = append([]byte("\xff\xd8\xff\xe0"), make([]byte, 30)...)
	gifBytes  = append([]byte("GIF89a"), make([]byte, 20)...)
	webpBytes = append([]byte("RIFF\x00\x00\x00\x00WEBPVP8 "), make([]byte, 10)...)
)

// fakeAnalyzer records what it was asked and answers with a summary.
type fakeAnalyzer struct {
	mu     sync.Mutex
	prompt string
	agent  string
	imgs   []Image
	err    error
}

func (f *fakeAnalyzer) Analyze(_ context.Context, agentID, prompt string, imgs []Image) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.agent, f.prompt, f.imgs = agentID, prompt, imgs
	if f.err != nil {
		return "", f.err
	}
	var parts []string
	for _, img := range imgs {
		parts = append(parts, fmt.Sprintf("%s %s %d", img.Source, img.MediaType, len(img.Data)))
	}
	return "saw " + strings.Join(parts, "; "), nil
}

// newWorkspace makes a workspace holding the sample images and a few
// files that are not images.
func newWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{
		"shot.png": pngBytes, "photo.jpg": jpegBytes, "anim.gif": gifBytes, "pic.webp": webpBytes,
		"renamed.txt": pngBytes, "notes.png": []byte("just some text, not a picture\n"),
		"empty.png": nil, "big.png": append(slices(pngBytes), make([]byte, 2<<20)...),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	// A file beside the workspace, for the traversal cases.
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "outside.png"), pngBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func slices(b []byte) []byte { return append([]byte(nil), b...) }

func call(t *testing.T, tool tools.Tool, args string) tools.Result {
	t.Helper()
	res, err := tool.Call(context.Background(), tools.Call{Name: "image", Args: json.RawMessage(args), Who: tools.Who{AgentID: "main"}})
	if err != nil {
		return tools.Result{Text: err.Error(), IsError: true}
	}
	return res
}

func TestImageArguments(t *testing.T) {
	dir := newWorkspace(t)
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(pngBytes) }))
	defer private.Close()
	ws := func(tools.Who) (string, error) { return dir, nil }
	withModel := Tool(Config{Workspace: ws, Analyzer: &fakeAnalyzer{}})
	cases := []struct {
		name string
		tool tools.Tool
		args string
		want string // in the error text
	}{
		{"no image", withModel, `{"prompt":"what?"}`, "give image"},
		{"blank image", withModel, `{"image":"  "}`, "give image"},
		{"too many", withModel, `{"images":["1.png","2.png","3.png","4.png","5.png","6.png","7.png","8.png","9.png"]}`, "9 images given; at most 8"},
		{"negative size", withModel, `{"image":"shot.png","maxBytesMb":-1}`, "maxBytesMb -1 is negative"},
		{"unknown argument", withModel, `{"image":"shot.png","model":"x/y"}`, "unknown field"},
		{"missing file", withModel, `{"image":"nope.png"}`, "open nope.png"},
		{"traversal", withModel, `{"image":"../outside.png"}`, "outside the workspace"},
		{"absolute outside", withModel, fmt.Sprintf(`{"image":%q}`, filepath.Join(filepath.Dir(dir), "outside.png")), "outside the workspace"},
		{"directory", withModel, `{"image":"sub"}`, "sub is not a regular file"},
		{"too big", withModel, `{"image":"big.png","maxBytesMb":1}`, "big.png is 2.0 MB, over the 1.0 MB limit"},
		{"too big fractional", withModel, `{"image":"shot.png","maxBytesMb":0.00001}`, "shot.png is 68 bytes, over the 10 bytes limit"},
		{"not an image", withModel, `{"image":"notes.png"}`, "notes.png is not a PNG, JPEG, GIF or WebP image (its content looks like text/plain"},
		{"empty file", withModel, `{"image":"empty.png"}`, "looks like an empty file"},
		{"second of two bad", withModel, `{"images":["shot.png","notes.png"]}`, "notes.png is not a PNG"},
		{"private URL", withModel, fmt.Sprintf(`{"image":%q}`, private.URL+"/x.png"), "blocked by network guard"},
		{"metadata URL", withModel, `{"image":"http://169.254.169.254/latest/meta-data"}`, "blocked by network guard"},
		{"no analyzer", Tool(Config{Workspace: ws}), `{"image":"shot.png"}`, "no image model configured: set agents.defaults.imageModel"},
		{"no model configured", Tool(Config{Workspace: ws, Analyzer: &fakeAnalyzer{err: ErrNoImageModel}}), `{"image":"shot.png"}`, "no image model configured: set agents.defaults.imageModel"},
		{"model fails", Tool(Config{Workspace: ws, Analyzer: &fakeAnalyzer{err: errors.New("rate limited")}}), `{"image":"shot.png"}`, "analyze 1 image(s): rate limited"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, tc.tool, tc.args)
			if !res.IsError || !strings.Contains(res.Text, tc.want) {
				t.Fatalf("got error=%v %q; want an error containing %q", res.IsError, res.Text, tc.want)
			}
		})
	}
}

func TestImageSendsDetectedTypes(t *testing.T) {
	dir := newWorkspace(t)
	// An allowed internal server stands in for a public one.
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/cat.gif":
			w.Header().Set("Content-Type", "text/plain") // the content decides, not the header
			w.Write(gifBytes)
		case "/huge.png", "/stream.png":
			data := append(slices(pngBytes), make([]byte, 2<<20)...)
			if r.URL.Path == "/huge.png" {
				w.Header().Set("Content-Length", fmt.Sprint(len(data)))
			}
			w.Write(data)
		default:
			http.NotFound(w, r)
		}
	}))
	defer web.Close()
	az := &fakeAnalyzer{}
	tool := Tool(Config{
		Workspace: func(tools.Who) (string, error) { return dir, nil },
		Analyzer:  az,
		Network:   netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}},
	})
	cases := []struct {
		name, args string
		wantPrompt string
		want       []string // source, media type, size of each image
		wantErr    string
	}{
		{"one png", `{"image":"shot.png"}`, DefaultPrompt, []string{"shot.png image/png 68"}, ""},
		{"renamed png", `{"image":"renamed.txt","prompt":"  What is it?  "}`, "What is it?", []string{"renamed.txt image/png 68"}, ""},
		{"all four, repeat dropped", `{"image":"shot.png","images":["photo.jpg","anim.gif","pic.webp","shot.png"]}`, DefaultPrompt,
			[]string{"shot.png image/png 68", "photo.jpg image/jpeg 34", "anim.gif image/gif 26", "pic.webp image/webp 26"}, ""},
		{"URL", fmt.Sprintf(`{"images":[%q]}`, web.URL+"/cat.gif"), DefaultPrompt, []string{web.URL + "/cat.gif image/gif 26"}, ""},
		{"URL not found", fmt.Sprintf(`{"image":%q}`, web.URL+"/gone.png"), "", nil, "HTTP 404"},
		{"URL too big", fmt.Sprintf(`{"image":%q,"maxBytesMb":1}`, web.URL+"/huge.png"), "", nil, "/huge.png is 2.0 MB, over the 1.0 MB limit"},
		{"URL of unknown size too big", fmt.Sprintf(`{"image":%q,"maxBytesMb":1}`, web.URL+"/stream.png"), "", nil, "/stream.png is over the 1.0 MB limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, tool, tc.args)
			if tc.wantErr != "" {
				if !res.IsError || !strings.Contains(res.Text, tc.wantErr) {
					t.Fatalf("got error=%v %q; want an error containing %q", res.IsError, res.Text, tc.wantErr)
				}
				return
			}
			if res.IsError {
				t.Fatalf("error: %s", res.Text)
			}
			if want := "saw " + strings.Join(tc.want, "; "); res.Text != want {
				t.Fatalf("answer %q, want %q", res.Text, want)
			}
			az.mu.Lock()
			defer az.mu.Unlock()
			if az.prompt != tc.wantPrompt || az.agent != "main" {
				t.Fatalf("asked %q for %q, want %q for main", az.prompt, az.agent, tc.wantPrompt)
			}
			if got := az.imgs[0].Data; !bytes.HasPrefix(got, []byte(mediaSig(az.imgs[0].MediaType))) {
				t.Fatalf("first image bytes %q do not start with its signature", got[:8])
			}
		})
	}
}

// mediaSig is the leading bytes each type's sample starts with.
func mediaSig(mt string) string {
	return map[string]string{"image/png": "\x89PNG", "image/jpeg": "\xff\xd8\xff", "image/gif": "GIF8", "image/webp": "RIFF"}[mt]
}

func TestMediaType(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"png", pngBytes, "image/png"},
		{"jpeg", jpegBytes, "image/jpeg"},
		{"gif87a", []byte("GIF87a......"), "image/gif"},
		{"gif89a", gifBytes, "image/gif"},
		{"webp", webpBytes, "image/webp"},
		{"riff but wave", []byte("RIFF\x00\x00\x00\x00WAVEfmt "), ""},
		{"short riff", []byte("RIFF"), ""},
		{"bmp", []byte("BM\x00\x00\x00\x00"), ""},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), ""},
		{"pdf", []byte("%PDF-1.7"), ""},
		{"empty", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := mediaType(tc.data); got != tc.want {
				t.Fatalf("mediaType = %q, want %q", got, tc.want)
			}
		})
	}
}
