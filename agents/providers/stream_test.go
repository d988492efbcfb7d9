package providers

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll reads every event of a stream, and the error that ended it.
func readAll(r io.Reader) ([]sseEvent, error) {
	s := newSSEReader(r)
	var out []sseEvent
	for {
		ev, err := s.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return out, err
		}
		out = append(out, sseEvent{Name: ev.Name, Data: bytes.Clone(ev.Data)})
	}
}

var sseTests = []struct {
	name string
	in   string
	want []sseEvent
}{
	{"one event", "data: {\"a\":1}\n\n", []sseEvent{{Data: []byte(`{"a":1}`)}}},
	{"named", "event: message_start\ndata: x\n\n", []sseEvent{{Name: "message_start", Data: []byte("x")}}},
	{"lines joined", "data: one\ndata: two\ndata:\ndata: three\n\n", []sseEvent{{Data: []byte("one\ntwo\n\nthree")}}},
	{"comments", ": OPENROUTER PROCESSING\n\n: ping\ndata: x\n: between\n\n", []sseEvent{{Data: []byte("x")}}},
	{"crlf", "event: a\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n", []sseEvent{{Name: "a", Data: []byte("1")}, {Data: []byte("2")}}},
	{"cr", "event: a\rdata: 1\r\rdata: 2\r\r", []sseEvent{{Name: "a", Data: []byte("1")}, {Data: []byte("2")}}},
	{"mixed endings", "data: 1\r\n\ndata: 2\r\rdata: 3\n\r\n", []sseEvent{{Data: []byte("1")}, {Data: []byte("2")}, {Data: []byte("3")}}},
	{"bom", "\xef\xbb\xbfdata: x\n\n", []sseEvent{{Data: []byte("x")}}},
	{"bom only first", "data: a\n\n\xef\xbb\xbfdata: b\n\n", []sseEvent{{Data: []byte("a")}}},
	{"no space", "data:x\n\n", []sseEvent{{Data: []byte("x")}}},
	{"one space dropped", "data:  x \n\n", []sseEvent{{Data: []byte(" x ")}}},
	{"colon in value", "data: a: b\n\n", []sseEvent{{Data: []byte("a: b")}}},
	{"field without colon", "data\n\n", []sseEvent{{Data: []byte("")}}},
	{"empty data dispatched", "data:\n\n", []sseEvent{{Data: []byte("")}}},
	{"other fields ignored", "id: 7\nretry: 100\nfoo: bar\ndata: x\n\n", []sseEvent{{Data: []byte("x")}}},
	{"name without data not dispatched", "event: ping\n\ndata: x\n\n", []sseEvent{{Data: []byte("x")}}},
	{"name is per event", "event: a\ndata: 1\n\ndata: 2\n\n", []sseEvent{{Name: "a", Data: []byte("1")}, {Data: []byte("2")}}},
	{"last name wins", "event: a\nevent: b\ndata: 1\n\n", []sseEvent{{Name: "b", Data: []byte("1")}}},
	{"unterminated event dropped", "data: 1\n\ndata: 2\n", []sseEvent{{Data: []byte("1")}}},
	{"unterminated line dropped", "data: 1\n\ndata: 2", []sseEvent{{Data: []byte("1")}}},
	{"blank lines", "\n\n\r\n\rdata: x\n\n\n\n", []sseEvent{{Data: []byte("x")}}},
	{"done is data", "data: {}\n\ndata: [DONE]\n\n", []sseEvent{{Data: []byte("{}")}, {Data: []byte("[DONE]")}}},
	{"empty stream", "", nil},
	{"utf-8", "data: héllo ☃\n\n", []sseEvent{{Data: []byte("héllo ☃")}}},
}

func TestSSEReader(t *testing.T) {
	readers := map[string]func(string) io.Reader{
		"whole":    func(s string) io.Reader { return strings.NewReader(s) },
		"one byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"half":     func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
	}
	for _, tt := range sseTests {
		for rname, mk := range readers {
			t.Run(tt.name+"/"+rname, func(t *testing.T) {
				got, err := readAll(mk(tt.in))
				if err != nil {
					t.Fatalf("error %v", err)
				}
				if !sameEvents(got, tt.want) {
					t.Errorf("events %s, want %s", showEvents(got), showEvents(tt.want))
				}
			})
		}
	}
}

// A stream cut by a failing connection reports the read error, not EOF.
func TestSSEReaderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: 1\n\ndata: 2"), iotest.ErrReader(boom))
	got, err := readAll(r)
	if !errors.Is(err, boom) || len(got) != 1 {
		t.Fatalf("events %s, error %v; want one event then %v", showEvents(got), err, boom)
	}
}

func TestSSEReaderBoundsEvents(t *testing.T) {
	big := strings.Repeat("x", maxEventBytes/2)
	tests := []struct {
		name    string
		in      string
		wantErr bool
	}{
		{"data at the bound", "data: " + strings.Repeat("x", maxEventBytes) + "\n\n", false},
		{"data lines at the bound", "data: " + big + "\ndata: " + big[1:] + "\n\n", false},
		{"one data line past it", "data: " + strings.Repeat("x", maxEventBytes+1) + "\n\n", true},
		{"data lines past it", "data: " + big + "\ndata: " + big + "\ndata: x\n\n", true},
		{"a comment past it", ":" + strings.Repeat("x", maxLineBytes) + "\n\ndata: x\n\n", true},
		{"an unended line past it", "data: " + strings.Repeat("x", maxLineBytes), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAll(strings.NewReader(tt.in))
			if tt.wantErr {
				if !errors.Is(err, errEventTooLarge) || len(got) != 0 {
					t.Fatalf("got %d events, error %v; want %v", len(got), err, errEventTooLarge)
				}
				if !strings.Contains(err.Error(), "line ") {
					t.Errorf("error %q does not say where", err)
				}
				return
			}
			if err != nil || len(got) != 1 {
				t.Fatalf("got %d events, error %v; want one", len(got), err)
			}
		})
	}
}

// FuzzSSEReader: any input ends in events within the bound and EOF or an
// error, never a panic, and reading it a byte at a time changes nothing.
func FuzzSSEReader(f *testing.F) {
	for _, tt := range sseTests {
		f.Add(tt.in)
	}
	f.Add("data: \xef\xbb\xbf\r\r\n:\r\nevent\rdata")
	f.Fuzz(func(t *testing.T, in string) {
		whole, err1 := readAll(strings.NewReader(in))
		bytewise, err2 := readAll(iotest.OneByteReader(strings.NewReader(in)))
		if (err1 == nil) != (err2 == nil) || !sameEvents(whole, bytewise) {
			t.Fatalf("whole %s (%v) and byte-wise %s (%v) differ", showEvents(whole), err1, showEvents(bytewise), err2)
		}
		for _, ev := range whole {
			if len(ev.Data) > maxEventBytes {
				t.Fatalf("event of %d bytes", len(ev.Data))
			}
		}
	})
}

func sameEvents(a, b []sseEvent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}

func showEvents(evs []sseEvent) string {
	var b strings.Builder
	for _, ev := range evs {
		b.WriteString("[" + ev.Name + "|" + string(ev.Data) + "]")
	}
	return b.String()
}

func TestPostStream(t *testing.T) {
	var gotHeader http.Header
	var gotBody string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		gotHeader, gotBody = r.Header.Clone(), string(b)
		switch r.URL.Path {
		case "/ok":
			io.WriteString(w, "data: x\n\n")
		case "/limited":
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"slow down"}}`)
		case "/elsewhere":
			http.Redirect(w, r, "http://other.invalid/ok", http.StatusTemporaryRedirect)
		case "/here":
			http.Redirect(w, r, "/ok", http.StatusTemporaryRedirect)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	header := http.Header{"X-Api-Key": {"k"}, "Accept": {"text/event-stream"}}

	res, err := postStream(ctx, srv.Client(), srv.URL+"/ok", header, map[string]int{"a": 1})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if gotBody != `{"a":1}` || gotHeader.Get("Content-Type") != "application/json" || gotHeader.Get("X-Api-Key") != "k" {
		t.Errorf("sent %s with %v", gotBody, gotHeader)
	}

	_, err = postStream(ctx, srv.Client(), srv.URL+"/limited", header, 1)
	var se *statusError
	if !errors.As(err, &se) || se.status != 429 || se.header.Get("Retry-After") != "3" || !strings.Contains(string(se.body), "slow down") {
		t.Errorf("got %v, want the 429 with its header and body", err)
	}
	e := call{provider: "p", model: "m"}.classify(ctx, err, nil)
	if e.Kind != KindRateLimit || e.Status != 429 || e.RetryAfter.Seconds() != 3 || e.Message != "slow down" {
		t.Errorf("classified as %+v", e)
	}

	if _, err := postStream(ctx, srv.Client(), srv.URL+"/elsewhere", header, 1); !errors.Is(err, errCrossOriginRedirect) {
		t.Errorf("redirect to another origin: got %v, want %v", err, errCrossOriginRedirect)
	} else if e := (call{}).classify(ctx, err, nil); e.Kind != KindNotConfigured {
		t.Errorf("redirect to another origin classified %s", e.Kind)
	}
	res, err = postStream(ctx, srv.Client(), srv.URL+"/here", header, 1)
	if err != nil {
		t.Fatalf("redirect on the same origin: %v", err)
	}
	res.Body.Close()

	_, err = postStream(ctx, srv.Client(), "http://user:pw@[::1:bad/v1", header, 1)
	if e := (call{}).classify(ctx, err, nil); e.Kind != KindNotConfigured || strings.Contains(e.Message, "pw") {
		t.Errorf("bad URL: %+v", e)
	}
}
