package generate

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
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

// The fakes speak each provider's wire format: OpenAI Images
// (generations JSON, edits multipart, b64_json answers), Runway's task API
// (submit, then GET /v1/tasks/{id} PENDING → RUNNING → SUCCEEDED with an
// output URL it serves itself), MiniMax's music_generation (hex audio) and
// Meshy's text-to-3D tasks.

const fakeKey = "sk-test-SECRET-0123456789"

var (
	pngBytes = append([]byte("\x89PNG\r\n\x1a\n"), []byte("fake png body")...)
	mp4Bytes = append([]byte("\x00\x00\x00\x18ftypmp42"), make([]byte, 64)...)
	mp3Bytes = append([]byte("ID3\x04\x00\x00"), make([]byte, 64)...)
	glbBytes = append([]byte("glTF\x02\x00\x00\x00"), make([]byte, 64)...)
)

// fake is one httptest server holding all four providers.
type fake struct {
	*httptest.Server
	t *testing.T

	mu       sync.Mutex
	requests []string       // "METHOD /path"
	bodies   map[string]any // last JSON body by path
	edits    []editRequest
	polls    int

	// Knobs for attacks and failures.
	status          int    // when set, every API call answers this with errBody
	errBody         string // the body of that answer
	resultURL       string // overrides the task output URL
	taskID          string // overrides the submitted task id
	imageB64        string // overrides b64_json
	bigResult       bool   // serve a result larger than any test limit, without a length
	redirect        string // when set, submissions answer 307 to it
	contentRedirect bool   // OpenAI's video content answers with a redirect to storage
	failTask        bool
	pollsToDone     int
}

type editRequest struct {
	fields map[string]string
	images [][]byte
	types  []string
}

func newFake(t *testing.T) *fake {
	f := &fake{t: t, bodies: map[string]any{}, pollsToDone: 2}
	mux := http.NewServeMux()
	api := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			f.mu.Lock()
			f.requests = append(f.requests, r.Method+" "+r.URL.Path)
			status, body := f.status, f.errBody
			f.mu.Unlock()
			if r.Header.Get("Authorization") != "Bearer "+fakeKey {
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, `{"error":{"message":"no key","type":"invalid_request_error"}}`)
				return
			}
			if f.redirect != "" && r.Method == http.MethodPost {
				http.Redirect(w, r, f.redirect, http.StatusTemporaryRedirect)
				return
			}
			if status != 0 {
				w.WriteHeader(status)
				io.WriteString(w, body)
				return
			}
			h(w, r)
		}
	}
	readJSON := func(r *http.Request) map[string]any {
		var v map[string]any
		if err := json.NewDecoder(r.Body).Decode(&v); err != nil {
			t.Errorf("%s: body is not JSON: %v", r.URL.Path, err)
		}
		f.mu.Lock()
		f.bodies[r.URL.Path] = v
		f.mu.Unlock()
		return v
	}
	imageAnswer := func(w http.ResponseWriter, n int) {
		b64 := base64.StdEncoding.EncodeToString(pngBytes)
		if f.imageB64 != "" {
			b64 = f.imageB64
		}
		var data []map[string]any
		for range n {
			data = append(data, map[string]any{"b64_json": b64})
		}
		json.NewEncoder(w).Encode(map[string]any{"created": 1764500000, "data": data,
			"usage": map[string]any{"total_tokens": 100, "input_tokens": 10, "output_tokens": 90}})
	}
	mux.HandleFunc("POST /v1/images/generations", api(func(w http.ResponseWriter, r *http.Request) {
		v := readJSON(r)
		n, _ := v["n"].(float64)
		imageAnswer(w, int(n))
	}))
	mux.HandleFunc("POST /v1/images/edits", api(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(32 << 20); err != nil {
			t.Errorf("edits: not multipart: %v", err)
			return
		}
		er := editRequest{fields: map[string]string{}}
		for k, v := range r.MultipartForm.Value {
			er.fields[k] = v[0]
		}
		for _, fh := range r.MultipartForm.File["image[]"] {
			file, _ := fh.Open()
			b, _ := io.ReadAll(file)
			file.Close()
			er.images = append(er.images, b)
			er.types = append(er.types, fh.Header.Get("Content-Type"))
		}
		f.mu.Lock()
		f.edits = append(f.edits, er)
		f.mu.Unlock()
		imageAnswer(w, 1)
	}))
	submit := func(w http.ResponseWriter, r *http.Request, field string) {
		readJSON(r)
		id := "task-1234"
		if f.taskID != "" {
			id = f.taskID
		}
		json.NewEncoder(w).Encode(map[string]any{field: id})
	}
	mux.HandleFunc("POST /v1/text_to_video", api(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Runway-Version") != RunwayVersion {
			t.Errorf("runway call without X-Runway-Version")
		}
		submit(w, r, "id")
	}))
	mux.HandleFunc("POST /v1/image_to_video", api(func(w http.ResponseWriter, r *http.Request) { submit(w, r, "id") }))
	mux.HandleFunc("GET /v1/tasks/{id}", api(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.polls++
		n := f.polls
		f.mu.Unlock()
		task := map[string]any{"id": r.PathValue("id"), "createdAt": "2026-12-03T10:00:00.000Z"}
		switch {
		case f.failTask:
			task["status"], task["failure"], task["failureCode"] = "FAILED", "Content moderation", "SAFETY.INPUT.TEXT"
		case n == 1:
			task["status"] = "PENDING"
		case n < f.pollsToDone+1:
			task["status"], task["progress"] = "RUNNING", 0.5
		default:
			task["status"], task["output"] = "SUCCEEDED", []string{f.result("/results/video.mp4?sig=abc")}
		}
		json.NewEncoder(w).Encode(task)
	}))
	mux.HandleFunc("POST /v1/videos", api(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(32 << 20); err != nil {
			t.Errorf("videos: not multipart: %v", err)
			return
		}
		v := map[string]any{}
		for k, vals := range r.MultipartForm.Value {
			v[k] = vals[0]
		}
		if fh := r.MultipartForm.File["input_reference"]; len(fh) == 1 {
			v["input_reference"] = fh[0].Header.Get("Content-Type")
		}
		f.mu.Lock()
		f.bodies[r.URL.Path] = v
		f.mu.Unlock()
		id := "video_68d7512d07848190b3e45da0ecbebcde004da08e1e0678d5"
		if f.taskID != "" {
			id = f.taskID
		}
		json.NewEncoder(w).Encode(map[string]any{"id": id, "object": "video", "model": v["model"], "status": "queued", "progress": 0,
			"created_at": 1764500000, "size": v["size"], "seconds": v["seconds"]})
	}))
	mux.HandleFunc("GET /v1/videos/{id}", api(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.polls++
		n := f.polls
		f.mu.Unlock()
		v := map[string]any{"id": r.PathValue("id"), "object": "video", "model": "sora-2"}
		switch {
		case f.failTask:
			v["status"], v["error"] = "failed", map[string]any{"code": "moderation_blocked", "message": "Your request was blocked by our moderation system."}
		case n == 1:
			v["status"], v["progress"] = "queued", 0
		case n < f.pollsToDone+1:
			v["status"], v["progress"] = "in_progress", 50
		default:
			v["status"], v["progress"], v["completed_at"] = "completed", 100, 1764500100
		}
		json.NewEncoder(w).Encode(v)
	}))
	mux.HandleFunc("GET /v1/videos/{id}/content", api(func(w http.ResponseWriter, r *http.Request) {
		if f.contentRedirect {
			http.Redirect(w, r, f.result("/results/video.mp4?X-Amz-Signature=abc"), http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "video/mp4")
		w.Write(mp4Bytes)
	}))
	mux.HandleFunc("POST /v1/music_generation", api(func(w http.ResponseWriter, r *http.Request) {
		readJSON(r)
		json.NewEncoder(w).Encode(map[string]any{
			"data":       map[string]any{"audio": hex.EncodeToString(mp3Bytes), "status": 2},
			"extra_info": map[string]any{"music_duration": 25364, "music_sample_rate": 44100, "music_channel": 2, "bitrate": 256000, "music_size": len(mp3Bytes)},
			"trace_id":   "t-1", "base_resp": map[string]any{"status_code": 0, "status_msg": "success"},
		})
	}))
	mux.HandleFunc("POST /openapi/v2/text-to-3d", api(func(w http.ResponseWriter, r *http.Request) { submit(w, r, "result") }))
	mux.HandleFunc("GET /openapi/v2/text-to-3d/{id}", api(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.polls++
		n := f.polls
		f.mu.Unlock()
		task := map[string]any{"id": r.PathValue("id"), "mode": "preview"}
		if n <= f.pollsToDone {
			task["status"], task["progress"] = "IN_PROGRESS", 40
		} else {
			task["status"], task["progress"] = "SUCCEEDED", 100
			task["model_urls"] = map[string]string{"glb": f.result("/results/model.glb?Expires=1"), "fbx": "", "obj": "", "usdz": ""}
		}
		json.NewEncoder(w).Encode(task)
	}))
	// Results are pre-signed: no key is needed, and none may be sent.
	mux.HandleFunc("GET /results/{name}", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.requests = append(f.requests, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		if r.Header.Get("Authorization") != "" {
			t.Errorf("a result download carried the API key")
		}
		if f.bigResult {
			w.Header().Set("Content-Type", "application/octet-stream")
			chunk := make([]byte, 64<<10)
			copy(chunk, mp4Bytes)
			for range 64 { // 4 MB, no Content-Length
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
			return
		}
		switch r.PathValue("name") {
		case "video.mp4":
			w.Write(mp4Bytes)
		case "model.glb":
			w.Write(glbBytes)
		default:
			http.NotFound(w, r)
		}
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

func (f *fake) result(p string) string {
	if f.resultURL != "" {
		return f.resultURL
	}
	return f.URL + p
}

func (f *fake) saw(req string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.requests {
		if r == req {
			return true
		}
	}
	return false
}

func (f *fake) body(path string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, _ := f.bodies[path].(map[string]any)
	return m
}

// loopbackOK lets result downloads reach the fake, as an operator's
// allowlist would let them reach an internal store.
var loopbackOK = netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}}

// attached records what the tools sent to the chat.
type attached struct {
	mu    sync.Mutex
	files map[string][]byte // base name → bytes
	chat  bool
}

func (a *attached) Attach(_ context.Context, who tools.Who, file, caption, key string) (bool, error) {
	if !a.chat {
		return false, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return false, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.files == nil {
		a.files = map[string][]byte{}
	}
	a.files[filepath.Base(file)] = b
	return true, nil
}

// harness is the tools over a fake, in a temporary workspace.
type harness struct {
	f      *fake
	ws     string
	tools  map[string]tools.Tool
	att    *attached
	events []tools.Progress
	mu     sync.Mutex
	links  []string
}

func newHarness(t *testing.T, policy netguard.Policy, chat bool) *harness {
	t.Helper()
	h := &harness{f: newFake(t), ws: t.TempDir(), tools: map[string]tools.Tool{}, att: &attached{chat: chat}}
	cfg := Config{
		Workspace: func(tools.Who) (string, error) { return h.ws, nil },
		Credentials: func(p string) Credentials {
			base := h.f.URL
			if p == "openai" {
				base += "/v1"
			}
			return Credentials{BaseURL: base, APIKey: fakeKey}
		},
		Attach: h.att,
		Publish: func(_ context.Context, _ tools.Who, rel string) (string, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.links = append(h.links, rel)
			return "http://gateway.test/files/tok/" + filepath.Base(rel), nil
		},
		Network:      func() netguard.Policy { return policy },
		PollInterval: 1, // a nanosecond: the fake answers at once
		MaxBytes:     func(Kind) int64 { return 1 << 20 },
	}
	for _, tl := range Tools(cfg) {
		h.tools[tl.Spec().Name] = tl
	}
	return h
}

// call runs a tool the way the runner does, collecting progress.
func (h *harness) call(t *testing.T, name, args string) (tools.Result, error) {
	t.Helper()
	ctx := tools.WithProgress(t.Context(), func(p tools.Progress) {
		h.mu.Lock()
		h.events = append(h.events, p)
		h.mu.Unlock()
	})
	return h.tools[name].Call(ctx, tools.Call{ID: "c1", Name: name, Args: json.RawMessage(args), Who: tools.Who{AgentID: "main", RunID: "r1"}})
}

// files is the result's files list.
func files(t *testing.T, res tools.Result) []saved {
	t.Helper()
	var out struct {
		Files []saved `json:"files"`
	}
	if err := json.Unmarshal([]byte(res.Text), &out); err != nil {
		t.Fatalf("result %q: %v", res.Text, err)
	}
	return out.Files
}

func (h *harness) read(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.ws, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustContain(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%q does not say %q", s, sub)
		}
	}
}

