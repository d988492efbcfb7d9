// Package speechtest is a fake of the speech providers' HTTP APIs, for
// tests: OpenAI's /v1/audio/speech and /v1/audio/transcriptions and
// ElevenLabs' /v1/text-to-speech/{voice_id} and /v1/speech-to-text, in
// their real wire formats
// (JSON or multipart in, audio bytes or JSON out, their error bodies),
// so the real client code is what a test exercises.
package speechtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Key is the API key the fake accepts for both providers.
const Key = "sk-speechtest-0123456789"

// Request is one call the fake received.
type Request struct {
	Provider string // "openai" or "elevenlabs"
	Path     string
	Query    string
	// Auth is the credential header as sent (Authorization or xi-api-key).
	Auth string
	// JSON is the decoded body of a speech call.
	JSON map[string]any
	// Fields and File are a transcription's multipart fields and upload.
	Fields   map[string]string
	FileName string
	File     []byte
}

// Server is the fake. Its zero configuration answers every call with
// success; set Fail to answer the next calls with an error instead.
type Server struct {
	*httptest.Server

	mu       sync.Mutex
	requests []Request
	// Transcript is what transcriptions return.
	transcript string
	fail       *failure
	endless    bool
}

type failure struct {
	status int
	body   string
}

// New starts a fake, closed when t ends.
func New(t testing.TB) *Server {
	s := &Server{transcript: "hello from the fake transcriber"}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// OpenAIBase is the base URL for the OpenAI provider ("…/v1").
func (s *Server) OpenAIBase() string { return s.URL + "/v1" }

// ElevenLabsBase is the base URL for the ElevenLabs provider.
func (s *Server) ElevenLabsBase() string { return s.URL }

// SetTranscript sets what transcriptions return.
func (s *Server) SetTranscript(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.transcript = text
}

// Fail answers every later call with status and body (nil clears it).
func (s *Server) Fail(status int, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = &failure{status, body}
}

// Endless makes speech answers a 200 whose audio never ends.
func (s *Server) Endless() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.endless = true
}

// Requests lists the calls so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// The error bodies of the real APIs.
const (
	OpenAIQuotaBody     = `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`
	OpenAIBadKeyBody    = `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	ElevenLabsQuotaBody = `{"detail":{"status":"quota_exceeded","message":"This request exceeds your quota. You have 3 credits remaining, while 120 credits are required for this request."}}`
)

// Audio the fake returns: an Ogg page header or an MP3 frame sync, so a
// test can tell which format was asked for.
var (
	OggBytes = append([]byte("OggS\x00\x02"), make([]byte, 2048)...)
	MP3Bytes = append([]byte("ID3\x04\x00"), make([]byte, 2048)...)
)

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	req := Request{Path: r.URL.Path, Query: r.URL.RawQuery}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/audio/speech":
		req.Provider, req.Auth = "openai", r.Header.Get("Authorization")
	case r.Method == http.MethodPost && r.URL.Path == "/v1/audio/transcriptions":
		req.Provider, req.Auth = "openai", r.Header.Get("Authorization")
	case r.Method == http.MethodPost && r.URL.Path == "/v1/speech-to-text":
		req.Provider, req.Auth = "elevenlabs", r.Header.Get("Xi-Api-Key")
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1/text-to-speech/"):
		req.Provider, req.Auth = "elevenlabs", r.Header.Get("Xi-Api-Key")
	default:
		http.NotFound(w, r)
		return
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		if err := r.ParseMultipartForm(64 << 20); err != nil {
			http.Error(w, `{"error":{"message":"bad multipart","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		req.Fields = map[string]string{}
		for k, v := range r.MultipartForm.Value {
			req.Fields[k] = v[0]
		}
		if fh := r.MultipartForm.File["file"]; len(fh) > 0 {
			req.FileName = fh[0].Filename
			f, _ := fh[0].Open()
			req.File, _ = io.ReadAll(f)
			f.Close()
		}
	} else {
		_ = json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req.JSON)
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	fail, endless, transcript := s.fail, s.endless, s.transcript
	s.mu.Unlock()

	okAuth := req.Auth == Key || req.Auth == "Bearer "+Key
	switch {
	case fail != nil:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(fail.status)
		io.WriteString(w, fail.body)
		return
	case !okAuth && req.Provider == "openai":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, OpenAIBadKeyBody)
		return
	case !okAuth:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"detail":{"status":"invalid_api_key","message":"Invalid API key"}}`)
		return
	}
	if req.Fields != nil {
		w.Header().Set("Content-Type", "application/json")
		if req.Provider == "elevenlabs" { // Scribe's answer carries more than the text
			json.NewEncoder(w).Encode(map[string]any{"language_code": "eng", "language_probability": 0.98, "text": transcript, "words": []any{}})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"text": transcript})
		return
	}
	opus := req.JSON["response_format"] == "opus" || strings.Contains(req.Query, "output_format=opus")
	if opus {
		w.Header().Set("Content-Type", "audio/ogg")
	} else {
		w.Header().Set("Content-Type", "audio/mpeg")
	}
	if endless {
		chunk := make([]byte, 64<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
	if opus {
		w.Write(OggBytes)
	} else {
		w.Write(MP3Bytes)
	}
}
