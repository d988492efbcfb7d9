// Package generatetest holds a fake of the generation providers' APIs,
// for the generation tools' tests and the gateway's.
package generatetest

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// The fakes speak each provider's wire format: OpenAI Images
// (generations JSON, edits multipart, b64_json answers), Runway's task API
// (submit, then GET /v1/tasks/{id} PENDING → RUNNING → SUCCEEDED with an
// output URL it serves itself), MiniMax's music_generation (hex audio) and
// Meshy's text-to-3D tasks.

// Key is the API key the fake wants, as a Bearer token, from every
// provider.
const Key = "sk-test-SECRET-0123456789"

// What the fake generates: each starts with its format's magic bytes.
var (
	PNG = append([]byte("\x89PNG\r\n\x1a\n"), []byte("fake png body")...)
	MP4 = append([]byte("\x00\x00\x00\x18ftypmp42"), make([]byte, 64)...)
	MP3 = append([]byte("ID3\x04\x00\x00"), make([]byte, 64)...)
	GLB = append([]byte("glTF\x02\x00\x00\x00"), make([]byte, 64)...)
)

// RunwayVersion is the X-Runway-Version the fake wants on Runway's
// calls (generate.RunwayVersion; this package cannot import it, as
// generate's own tests use this one).
const RunwayVersion = "2024-11-06"

// Fake is one httptest server holding all four providers. Its knobs,
// for attacks and failures, are set before the tool call they change.
type Fake struct {
	*httptest.Server

	mu       sync.Mutex
	requests []string       // "METHOD /path"
	bodies   map[string]any // last JSON body by path
	edits    []Edit
	polls    int

	Status          int    // when set, every API call answers this with ErrBody
	ErrBody         string // the body of that answer
	ResultURL       string // overrides the task output URL
	TaskID          string // overrides the submitted task id
	ImageB64        string // overrides b64_json
	BigResult       bool   // serve a result larger than any test limit, without a length
	Redirect        string // when set, submissions answer 307 to it
	ContentRedirect bool   // OpenAI's video content answers with a redirect to storage
	FailTask        bool
	// PollsToDone is how many polls of a job say it is still running
	// before one says it is done (default 2; Runway's first says
	// PENDING).
	PollsToDone int
}

// Edit is one /v1/images/edits request: its form fields, and its images
// with their content types.
type Edit struct {
	Fields map[string]string
	Images [][]byte
	Types  []string
}

// New starts the fake; it stops when the test ends.
func New(t testing.TB) *Fake {
	f := &Fake{bodies: map[string]any{}, PollsToDone: 2}
	mux := http.NewServeMux()
	api := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			f.mu.Lock()
			f.requests = append(f.requests, r.Method+" "+r.URL.Path)
			status, body := f.Status, f.ErrBody
			f.mu.Unlock()
			if r.Header.Get("Authorization") != "Bearer "+Key {
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, `{"error":{"message":"no key","type":"invalid_request_error"}}`)
				return
			}
			if f.Redirect != "" && r.Method == http.MethodPost {
				http.Redirect(w, r, f.Redirect, http.StatusTemporaryRedirect)
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
		b64 := base64.StdEncoding.EncodeToString(PNG)
		if f.ImageB64 != "" {
			b64 = f.ImageB64
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
		er := Edit{Fields: map[string]string{}}
		for k, v := range r.MultipartForm.Value {
			er.Fields[k] = v[0]
		}
		for _, fh := range r.MultipartForm.File["image[]"] {
			file, _ := fh.Open()
			b, _ := io.ReadAll(file)
			file.Close()
			er.Images = append(er.Images, b)
			er.Types = append(er.Types, fh.Header.Get("Content-Type"))
		}
		f.mu.Lock()
		f.edits = append(f.edits, er)
		f.mu.Unlock()
		imageAnswer(w, 1)
	}))
	submit := func(w http.ResponseWriter, r *http.Request, field string) {
		readJSON(r)
		id := "task-1234"
		if f.TaskID != "" {
			id = f.TaskID
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
		case f.FailTask:
			task["status"], task["failure"], task["failureCode"] = "FAILED", "Content moderation", "SAFETY.INPUT.TEXT"
		case n == 1:
			task["status"] = "PENDING"
		case n < f.PollsToDone+1:
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
		if f.TaskID != "" {
			id = f.TaskID
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
		case f.FailTask:
			v["status"], v["error"] = "failed", map[string]any{"code": "moderation_blocked", "message": "Your request was blocked by our moderation system."}
		case n == 1:
			v["status"], v["progress"] = "queued", 0
		case n < f.PollsToDone+1:
			v["status"], v["progress"] = "in_progress", 50
		default:
			v["status"], v["progress"], v["completed_at"] = "completed", 100, 1764500100
		}
		json.NewEncoder(w).Encode(v)
	}))
	mux.HandleFunc("GET /v1/videos/{id}/content", api(func(w http.ResponseWriter, r *http.Request) {
		if f.ContentRedirect {
			http.Redirect(w, r, f.result("/results/video.mp4?X-Amz-Signature=abc"), http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "video/mp4")
		w.Write(MP4)
	}))
	mux.HandleFunc("POST /v1/music_generation", api(func(w http.ResponseWriter, r *http.Request) {
		readJSON(r)
		json.NewEncoder(w).Encode(map[string]any{
			"data":       map[string]any{"audio": hex.EncodeToString(MP3), "status": 2},
			"extra_info": map[string]any{"music_duration": 25364, "music_sample_rate": 44100, "music_channel": 2, "bitrate": 256000, "music_size": len(MP3)},
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
		if n <= f.PollsToDone {
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
		if f.BigResult {
			w.Header().Set("Content-Type", "application/octet-stream")
			chunk := make([]byte, 64<<10)
			copy(chunk, MP4)
			for range 64 { // 4 MB, no Content-Length
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
			return
		}
		switch r.PathValue("name") {
		case "video.mp4":
			w.Write(MP4)
		case "model.glb":
			w.Write(GLB)
		default:
			http.NotFound(w, r)
		}
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

func (f *Fake) result(p string) string {
	if f.ResultURL != "" {
		return f.ResultURL
	}
	return f.URL + p
}

// Saw reports whether a request "METHOD /path" was made.
func (f *Fake) Saw(req string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.requests {
		if r == req {
			return true
		}
	}
	return false
}

// Body is the last JSON (or, for /v1/videos, form) body sent to path.
func (f *Fake) Body(path string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, _ := f.bodies[path].(map[string]any)
	return m
}

// BaseURL is the endpoint to configure for a provider: OpenAI's API
// root ends in /v1, the others are the server's root.
func (f *Fake) BaseURL(provider string) string {
	if provider == "openai" {
		return f.URL + "/v1"
	}
	return f.URL
}

// Requests are the requests so far, "METHOD /path", in order.
func (f *Fake) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

// Edits are the image edit requests so far.
func (f *Fake) Edits() []Edit {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Edit(nil), f.edits...)
}

// Polls is how many times a job's state was asked.
func (f *Fake) Polls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.polls
}
