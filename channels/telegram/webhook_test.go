package telegram

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/channels/channelstest"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

const (
	hookURL    = "https://gw.example.com/telegram-webhook"
	hookSecret = "s3cret_Value-1"
	hookUpdate = `{"update_id":900,"message":{"message_id":5,"date":1764500000,"chat":{"id":42,"type":"private","first_name":"Ada"},"from":{"id":42,"is_bot":false,"first_name":"Ada"},"text":"via webhook"}}`
)

// trapBody fails the test when read: the secret must be checked first.
type trapBody struct{ t *testing.T }

func (b trapBody) Read([]byte) (int, error) {
	b.t.Error("body read before the secret was checked")
	return 0, io.EOF
}

func TestWebhook(t *testing.T) {
	tests := []struct {
		name   string
		method string
		secret *string // nil: no header
		body   string  // "" : a trap body
		sink   string  // "ok", "failing"
		want   int
		stored int
	}{
		{name: "missing secret", method: "POST", want: 401},
		{name: "wrong secret", method: "POST", secret: ptr("s3cret_Value-2"), want: 401},
		{name: "empty secret", method: "POST", secret: ptr(""), want: 401},
		{name: "right secret", method: "POST", secret: ptr(hookSecret), body: hookUpdate, sink: "ok", want: 200, stored: 1},
		{name: "receive fails", method: "POST", secret: ptr(hookSecret), body: hookUpdate, sink: "failing", want: 500},
		{name: "not json", method: "POST", secret: ptr(hookSecret), body: "{", sink: "ok", want: 400},
		{name: "too large", method: "POST", secret: ptr(hookSecret), body: `{"x":"` + strings.Repeat("a", maxWebhookBody) + `"}`, sink: "ok", want: 413},
		{name: "ignored kind", method: "POST", secret: ptr(hookSecret), body: `{"update_id":901,"inline_query":{"id":"q"}}`, sink: "ok", want: 200},
		{name: "GET", method: "GET", secret: ptr(hookSecret), want: 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := telegramtest.New(t, testToken)
			a := newAdapter(t, fake, func(o *Options) {
				o.WebhookURL, o.WebhookSecret = hookURL, hookSecret
			})
			rec := &recSink{}
			if tt.sink == "failing" {
				rec.SetFail(1 << 30)
			}
			start(t, a, rec)
			eventually(t, "webhook registered", func() bool { u, _ := fake.Webhook(); return u != "" })
			if u, s := fake.Webhook(); u != hookURL || s != hookSecret {
				t.Fatalf("setWebhook got %q %q", u, s)
			}

			var body io.Reader = trapBody{t}
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			req := httptest.NewRequest(tt.method, DefaultWebhookPath, body)
			if tt.secret != nil {
				req.Header.Set(secretHeader, *tt.secret)
			}
			w := httptest.NewRecorder()
			a.ServeHTTP(w, req)
			if w.Code != tt.want {
				t.Errorf("status %d, want %d (%s)", w.Code, tt.want, w.Body)
			}
			if got := len(rec.Stored()); got != tt.stored {
				t.Errorf("%d stored, want %d", got, tt.stored)
			}
			if tt.sink == "failing" && len(rec.Attempts()) != 1 {
				t.Errorf("Receive called %d times, want 1", len(rec.Attempts()))
			}
			if tt.stored == 1 && rec.Stored()[0].Text != "via webhook" {
				t.Errorf("stored %+v", rec.Stored()[0])
			}
		})
	}
}

func TestWebhookNotReady(t *testing.T) {
	a := New(Options{Token: testToken, WebhookURL: hookURL, WebhookSecret: hookSecret})
	if a.WebhookPath() != DefaultWebhookPath {
		t.Errorf("WebhookPath %q", a.WebhookPath())
	}
	req := httptest.NewRequest("POST", DefaultWebhookPath, strings.NewReader(hookUpdate))
	req.Header.Set(secretHeader, hookSecret)
	w := httptest.NewRecorder()
	a.ServeHTTP(w, req)
	if w.Code != http.StatusServiceUnavailable {
		t.Errorf("status %d before Start, want 503", w.Code)
	}

	polling := New(Options{Token: testToken})
	w = httptest.NewRecorder()
	polling.ServeHTTP(w, httptest.NewRequest("POST", "/", trapBody{t}))
	if w.Code != http.StatusNotFound {
		t.Errorf("status %d in polling mode, want 404", w.Code)
	}
}

func TestStartValidates(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no token", Options{}, "botToken is required"},
		{"token with slash", Options{Token: "1:a/b"}, "characters"},
		{"bad api root", Options{Token: testToken, APIRoot: "ftp://x"}, "apiRoot"},
		{"webhook without secret", Options{Token: testToken, WebhookURL: hookURL}, "webhookSecret is required"},
		{"webhook bad secret", Options{Token: testToken, WebhookURL: hookURL, WebhookSecret: "has space"}, "webhookSecret"},
		{"webhook bad url", Options{Token: testToken, WebhookURL: "gw.example.com", WebhookSecret: hookSecret}, "webhookUrl"},
		{"bad proxy", Options{Token: testToken, Proxy: "://user:pw@"}, "proxy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New(tt.opts).Start(context.Background(), &recSink{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Start = %v, want an error about %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "pw") {
				t.Errorf("error shows the proxy password: %v", err)
			}
		})
	}
	a := New(Options{Token: testToken, APIRoot: "http://127.0.0.1:1"})
	if err := a.Stop(context.Background()); err != nil {
		t.Errorf("Stop before Start: %v", err)
	}
}

func TestWebhookAfterStop(t *testing.T) {
	fake := telegramtest.New(t, testToken)
	a := newAdapter(t, fake, func(o *Options) { o.WebhookURL, o.WebhookSecret = hookURL, hookSecret })
	sink := &recSink{}
	if err := a.Start(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	eventually(t, "webhook registered", func() bool { u, _ := fake.Webhook(); return u != "" })
	if err := a.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("POST", DefaultWebhookPath, strings.NewReader(hookUpdate))
	req.Header.Set(secretHeader, hookSecret)
	w := httptest.NewRecorder()
	a.ServeHTTP(w, req)
	if w.Code != http.StatusServiceUnavailable || len(sink.Stored()) != 0 {
		t.Errorf("after Stop: status %d, %d stored; want 503 and none", w.Code, len(sink.Stored()))
	}
}

// TestWebhookThrottled: someone who found the webhook URL guesses the
// secret token. Each wrong guess is counted; once the throttle locks the
// client out, even the right token is answered 429 with Retry-After, and
// neither the secret nor the body is looked at.
func TestWebhookThrottled(t *testing.T) {
	fake := telegramtest.New(t, testToken)
	throttle := &channelstest.Throttle{Max: 3}
	a := newAdapter(t, fake, func(o *Options) {
		o.WebhookURL, o.WebhookSecret, o.Throttle = hookURL, hookSecret, throttle
	})
	rec := &recSink{}
	start(t, a, rec)
	eventually(t, "webhook registered", func() bool { u, _ := fake.Webhook(); return u != "" })

	hit := func(secret *string, body io.Reader) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", DefaultWebhookPath, body)
		if secret != nil {
			req.Header.Set(secretHeader, *secret)
		}
		w := httptest.NewRecorder()
		a.ServeHTTP(w, req)
		return w
	}
	for i, guess := range []*string{ptr("guess-1"), nil, ptr("")} {
		if w := hit(guess, trapBody{t}); w.Code != http.StatusUnauthorized {
			t.Fatalf("guess %d: status %d", i, w.Code)
		}
	}
	if throttle.Failures() != 3 {
		t.Fatalf("%d failures counted, want 3", throttle.Failures())
	}
	w := hit(ptr(hookSecret), trapBody{t})
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
		t.Fatalf("right secret while locked out: %d %q", w.Code, w.Header().Get("Retry-After"))
	}
	if len(rec.Stored()) != 0 {
		t.Fatal("an update was stored while the client was locked out")
	}
}
