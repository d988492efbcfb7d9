package canvas

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func newHostServer(t *testing.T) (*Host, *httptest.Server) {
	t.Helper()
	h := NewHost()
	mux := http.NewServeMux()
	mux.Handle(Prefix, h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return h, srv
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func getState(t *testing.T, url string) State {
	t.Helper()
	resp, body := get(t, url)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	var st State
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("state %q: %v", body, err)
	}
	return st
}

func TestHostServesPage(t *testing.T) {
	_, srv := newHostServer(t)
	resp, body := get(t, srv.URL+Prefix+"?session=a")
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(body, `src="canvas.js"`) {
		t.Fatalf("page: %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("CSP = %q", csp)
	}
	resp, body = get(t, srv.URL+Prefix+"canvas.js")
	if resp.StatusCode != 200 || !strings.Contains(body, "a2uiVersion") {
		t.Fatalf("script: %d", resp.StatusCode)
	}
	if resp, _ := get(t, srv.URL+Prefix+"nope"); resp.StatusCode != 404 {
		t.Errorf("unknown path: %d", resp.StatusCode)
	}
	if resp, _ := get(t, srv.URL+strings.TrimSuffix(Prefix, "/")); resp.Request.URL.Path != Prefix {
		t.Errorf("no-slash path ended at %s", resp.Request.URL.Path)
	}
}

func TestHostPushReset(t *testing.T) {
	h, srv := newHostServer(t)
	stateURL := srv.URL + Prefix + "state?session=s1"

	if st := getState(t, stateURL); st.Version != 0 || len(st.Messages) != 0 {
		t.Fatalf("fresh state = %+v", st)
	}
	v1, err := h.Push("s1", TextMessages("one"))
	if err != nil {
		t.Fatal(err)
	}
	st := getState(t, stateURL)
	if st.Version != v1 || len(st.Messages) != 2 || st.Messages[1].BeginRendering == nil {
		t.Fatalf("after push: %+v", st)
	}
	// Sessions are apart.
	if other := getState(t, srv.URL+Prefix+"state?session=s2"); len(other.Messages) != 0 {
		t.Fatalf("s2 sees s1: %+v", other)
	}
	v2, _ := h.Push("s1", TextMessages("two"))
	if st := getState(t, stateURL); st.Version != v2 || len(st.Messages) != 4 {
		t.Fatalf("after second push: %+v", st)
	}
	v3 := h.Reset("s1")
	if v3 <= v2 {
		t.Fatalf("reset version %d not after %d", v3, v2)
	}
	if st := getState(t, stateURL); st.Version != v3 || len(st.Messages) != 0 {
		t.Fatalf("after reset: %+v", st)
	}
}

func TestHostLongPoll(t *testing.T) {
	h, srv := newHostServer(t)
	v := h.Reset("lp")
	got := make(chan State, 1)
	go func() {
		resp, err := http.Get(srv.URL + Prefix + "state?session=lp&after=" + jsonNum(v))
		if err != nil {
			close(got)
			return
		}
		defer resp.Body.Close()
		var st State
		json.NewDecoder(resp.Body).Decode(&st)
		got <- st
	}()
	// A change elsewhere must not answer the wait; its own session's does.
	h.Push("elsewhere", TextMessages("x"))
	select {
	case st := <-got:
		t.Fatalf("answered early: %+v", st)
	case <-time.After(100 * time.Millisecond):
	}
	v2, _ := h.Push("lp", TextMessages("y"))
	select {
	case st := <-got:
		if st.Version != v2 || len(st.Messages) != 2 {
			t.Fatalf("long poll answer = %+v", st)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("long poll did not answer the push")
	}
	if resp, _ := get(t, srv.URL+Prefix+"state?after=x"); resp.StatusCode != 400 {
		t.Errorf("bad after: %d", resp.StatusCode)
	}
}

func jsonNum(v uint64) string { b, _ := json.Marshal(v); return string(b) }

func TestHostAction(t *testing.T) {
	h, srv := newHostServer(t)
	var mu sync.Mutex
	var got []UserAction
	h.OnAction = func(session string, a UserAction) {
		mu.Lock()
		defer mu.Unlock()
		if session == "s" {
			got = append(got, a)
		}
	}
	resp, err := http.Post(srv.URL+Prefix+"action?session=s", "application/json", strings.NewReader(`{"surfaceId":"main","componentId":"b","name":"go"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	if resp.StatusCode != 204 || len(got) != 1 || got[0].Name != "go" {
		t.Fatalf("status %d, actions %+v", resp.StatusCode, got)
	}
	if resp, _ := get(t, srv.URL+Prefix+"action"); resp.StatusCode != 405 {
		t.Errorf("GET action: %d", resp.StatusCode)
	}
}

func TestHostFull(t *testing.T) {
	h := NewHost()
	big := make([]Message, MaxMessages)
	if _, err := h.Push("s", big); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Push("s", TextMessages("one more")); err != ErrTooManyMessages {
		t.Fatalf("err = %v", err)
	}
	h.Reset("s")
	if _, err := h.Push("s", TextMessages("after reset")); err != nil {
		t.Fatal(err)
	}
}
