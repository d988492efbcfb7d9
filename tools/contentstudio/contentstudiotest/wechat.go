// Package contentstudiotest holds a fake of the WeChat Official Account
// API and image helpers, for the Content Studio tools' tests and the
// gateway's.
package contentstudiotest

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Answers the fake gives, for tests to look for.
const (
	AccessToken = "ACCESS-TOKEN-123"
	ThumbID     = "THUMB-1"
	DraftID     = "DRAFT-1"
	PublishID   = "PUB-9"
)

// WeChat speaks the Official Account API's wire format for the calls
// gzh_publish makes (stable_token, add_material, draft/add,
// freepublish/submit) and records them.
type WeChat struct {
	*httptest.Server
	mu      sync.Mutex
	calls   []string // "METHOD /path?query"
	bodies  []string
	failOn  string
	errcode int
}

// NewWeChat starts the fake; it stops when the test ends.
func NewWeChat(t testing.TB) *WeChat {
	f := &WeChat{}
	f.Server = httptest.NewServer(f)
	t.Cleanup(f.Close)
	return f
}

// Calls are the requests so far, "METHOD /path?query", in order.
func (f *WeChat) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// Bodies are the requests' bodies, in the order of Calls.
func (f *WeChat) Bodies() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

// Saw reports whether a call to path was made.
func (f *WeChat) Saw(path string) bool {
	for _, c := range f.Calls() {
		if strings.HasPrefix(c, "POST "+path+"?") {
			return true
		}
	}
	return false
}

// FailOn makes calls to path answer the platform's error errcode, with
// HTTP 200 as the platform does.
func (f *WeChat) FailOn(path string, errcode int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failOn, f.errcode = path, errcode
}

func (f *WeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
	f.bodies = append(f.bodies, string(body))
	fail, code := f.failOn == r.URL.Path, f.errcode
	f.mu.Unlock()
	if fail {
		fmt.Fprintf(w, `{"errcode":%d,"errmsg":"reach max api daily quota limit"}`, code)
		return
	}
	token := r.URL.Query().Get("access_token") == AccessToken
	switch {
	case r.Method != http.MethodPost:
		http.Error(w, "method", http.StatusMethodNotAllowed)
	case r.URL.Path == "/cgi-bin/stable_token":
		io.WriteString(w, `{"access_token":"`+AccessToken+`","expires_in":7200}`)
	case !token:
		io.WriteString(w, `{"errcode":40001,"errmsg":"invalid credential, access_token is invalid or not latest"}`)
	case r.URL.Path == "/cgi-bin/material/add_material":
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") || !strings.Contains(string(body), `name="media"; filename="cover.png"`) {
			http.Error(w, "bad upload", http.StatusBadRequest)
			return
		}
		io.WriteString(w, `{"media_id":"`+ThumbID+`","url":"http://mmbiz.qpic.cn/x"}`)
	case r.URL.Path == "/cgi-bin/draft/add":
		io.WriteString(w, `{"media_id":"`+DraftID+`"}`)
	case r.URL.Path == "/cgi-bin/freepublish/submit":
		io.WriteString(w, `{"errcode":0,"errmsg":"ok","publish_id":"`+PublishID+`"}`)
	default:
		http.NotFound(w, r)
	}
}

// PNG is a blank w×h PNG image.
func PNG(t testing.TB, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
