package slack

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/channelstest"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
)

// hookServer starts an HTTP-mode adapter and serves its handler at its
// WebhookPath, as the gateway does.
func hookServer(t *testing.T, fake *slacktest.Server, sink *recSink) (*Adapter, string) {
	t.Helper()
	a := newAdapter(t, fake, httpMode)
	start(t, a, sink)
	eventually(t, "connected", func() bool { return sink.HasState(channels.StateConnected) })
	mux := http.NewServeMux()
	mux.Handle(a.WebhookPath(), a)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return a, srv.URL + a.WebhookPath()
}

// post sends body to url signed with secret at time at.
func post(t *testing.T, target, contentType, secret string, at time.Time, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	if secret != "" {
		ts, sig := slacktest.Sign(secret, at, body)
		req.Header.Set("X-Slack-Request-Timestamp", ts)
		req.Header.Set("X-Slack-Signature", sig)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

const jsonType = "application/json"
const formType = "application/x-www-form-urlencoded"

func TestWebhookDelivers(t *testing.T) {
	fake := newFake(t)
	sink := &recSink{}
	a, hook := hookServer(t, fake, sink)
	if a.WebhookPath() != "/slack/events/work" {
		t.Errorf("WebhookPath = %q", a.WebhookPath())
	}
	now := time.Now()
	resp := fake.ResponseURL()
	tests := []struct {
		name      string
		ctype     string
		body      []byte
		kind      channels.EventKind
		chat      channels.ChatKind
		mentioned bool
		text      string
	}{
		{"dm", jsonType, fake.MessagePayload(&slacktest.Msg{Channel: "D1", User: "U1", Text: "hi there"}),
			channels.EventMessage, channels.Direct, false, "hi there"},
		{"channel mention", jsonType, fake.AppMentionPayload(&slacktest.Msg{Channel: "C1", User: "U2", Text: "<@" + slacktest.BotUserID + ">: ping <#C9|random>"}),
			channels.EventMessage, channels.Group, true, "ping #random"},
		{"slash command", formType, fake.CommandForm(slacktest.Command{Command: "/openclaw", Text: "hello", Channel: "D1", ChannelName: "directmessage", User: "U1", ResponseURL: resp}),
			channels.EventMessage, channels.Direct, true, "hello"},
		{"button", formType, []byte("payload=" + url.QueryEscape(string(fake.ActionPayload(slacktest.Action{User: "U1", Channel: "C1", MessageTS: "1700000001.000100", Value: "approve:1:deny", ResponseURL: resp})))),
			channels.EventCallback, channels.Group, false, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _ := post(t, hook, tt.ctype, testSecret, now, tt.body)
			if code != http.StatusOK {
				t.Fatalf("status %d, want 200", code)
			}
			got := sink.Stored()
			if len(got) != i+1 {
				t.Fatalf("stored %d events, want %d", len(got), i+1)
			}
			in := got[i]
			if in.Kind != tt.kind || in.Chat.Kind != tt.chat || in.Mentioned != tt.mentioned || in.Text != tt.text {
				t.Errorf("got %+v", in)
			}
		})
	}
	if got := sink.Stored(); len(got) == 4 && got[3].CallbackData != "approve:1:deny" {
		t.Errorf("button data %q", got[3].CallbackData)
	}
}

func TestWebhookURLVerification(t *testing.T) {
	fake := newFake(t)
	_, hook := hookServer(t, fake, &recSink{})
	body := []byte(`{"token":"x","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`)
	code, got := post(t, hook, jsonType, testSecret, time.Now(), body)
	if code != http.StatusOK || got != "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" {
		t.Errorf("challenge answer %d %q", code, got)
	}
	// Unsigned, the challenge is not answered.
	if code, got := post(t, hook, jsonType, "", time.Now(), body); code != http.StatusUnauthorized || strings.Contains(got, "3eZ") {
		t.Errorf("unsigned challenge answered %d %q", code, got)
	}
}

// TestWebhookRefuses: every request that is not signed right is answered
// 401 before its body is parsed (the bodies here would be 400 if parsed).
func TestWebhookRefuses(t *testing.T) {
	fake := newFake(t)
	sink := &recSink{}
	_, hook := hookServer(t, fake, sink)
	valid := fake.MessagePayload(&slacktest.Msg{Channel: "D1", User: "U1", Text: "hi"})
	garbage := []byte(`{not json`)
	now := time.Now()
	tests := []struct {
		name   string
		secret string
		at     time.Time
		body   []byte
		header func(h http.Header)
		want   int
	}{
		{"wrong secret", "other-secret", now, valid, nil, http.StatusUnauthorized},
		{"wrong secret garbage body", "other-secret", now, garbage, nil, http.StatusUnauthorized},
		{"unsigned", "", now, garbage, nil, http.StatusUnauthorized},
		{"stale", testSecret, now.Add(-6 * time.Minute), valid, nil, http.StatusUnauthorized},
		{"future", testSecret, now.Add(6 * time.Minute), valid, nil, http.StatusUnauthorized},
		{"tampered", testSecret, now, valid, func(h http.Header) {
			h.Set("X-Slack-Signature", strings.Replace(h.Get("X-Slack-Signature"), "v0=", "v0=00", 1))
		}, http.StatusUnauthorized},
		{"v1 scheme", testSecret, now, valid, func(h http.Header) {
			h.Set("X-Slack-Signature", strings.Replace(h.Get("X-Slack-Signature"), "v0=", "v1=", 1))
		}, http.StatusUnauthorized},
		{"signed garbage", testSecret, now, garbage, nil, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, hook, bytes.NewReader(tt.body))
			req.Header.Set("Content-Type", jsonType)
			if tt.secret != "" {
				ts, sig := slacktest.Sign(tt.secret, tt.at, tt.body)
				req.Header.Set("X-Slack-Request-Timestamp", ts)
				req.Header.Set("X-Slack-Signature", sig)
			}
			if tt.header != nil {
				tt.header(req.Header)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != tt.want {
				t.Errorf("status %d, want %d", res.StatusCode, tt.want)
			}
		})
	}
	if n := len(sink.Attempts()); n != 0 {
		t.Errorf("%d events reached the sink from refused requests", n)
	}
	if code, _ := post(t, hook, jsonType, testSecret, now, bytes.Repeat([]byte("x"), maxWebhookBody+1)); code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: %d", code)
	}
	req, _ := http.NewRequest(http.MethodGet, hook, nil)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %v %v", res, err)
	} else {
		res.Body.Close()
	}
}

// TestWebhookPersistBeforeAck: a request whose event is not stored gets
// 500 (Slack retries); the retry is stored and gets 200.
func TestWebhookPersistBeforeAck(t *testing.T) {
	fake := newFake(t)
	sink := channelstest.FailingSink(1)
	_, hook := hookServer(t, fake, sink)
	body := fake.MessagePayload(&slacktest.Msg{Channel: "D1", User: "U1", Text: "keep"})
	if code, _ := post(t, hook, jsonType, testSecret, time.Now(), body); code != http.StatusInternalServerError {
		t.Errorf("first delivery %d, want 500", code)
	}
	if code, _ := post(t, hook, jsonType, testSecret, time.Now(), body); code != http.StatusOK {
		t.Errorf("retry %d, want 200", code)
	}
	if got := sink.Stored(); len(got) != 1 || got[0].Text != "keep" {
		t.Errorf("stored %+v", got)
	}
}

func TestWebhookNotReady(t *testing.T) {
	fake := newFake(t)
	a := newAdapter(t, fake, httpMode)
	body := fake.MessagePayload(&slacktest.Msg{Channel: "D1", User: "U1", Text: "early"})
	ts, sig := slacktest.Sign(testSecret, time.Now(), body)
	req := httptest.NewRequest(http.MethodPost, a.WebhookPath(), bytes.NewReader(body))
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", sig)
	rec := httptest.NewRecorder()
	a.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("before Start: %d, want 503", rec.Code)
	}
	// In socket mode there is nothing to mount.
	s := newAdapter(t, fake, nil)
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if s.WebhookPath() != "" || rec.Code != http.StatusNotFound {
		t.Errorf("socket mode: path %q, status %d", s.WebhookPath(), rec.Code)
	}
}

func TestWebhookEmptySecretRefusesToStart(t *testing.T) {
	fake := newFake(t)
	a := newAdapter(t, fake, func(o *Options) { o.AppToken = ""; o.Mode = ModeHTTP })
	err := a.Start(context.Background(), &recSink{})
	if err == nil || !strings.Contains(err.Error(), "signingSecret") {
		t.Fatalf("Start = %v, want a signingSecret error", err)
	}
	if n := len(fake.Calls("")); n != 0 {
		t.Errorf("%d API calls by an adapter that refused to start", n)
	}
}

func TestVerifySignature(t *testing.T) {
	now := time.Unix(1700000000, 0)
	body := []byte(`{"a":1}`)
	ts, sig := slacktest.Sign("s3cret", now, body)
	tests := []struct {
		name            string
		secret, ts, sig string
		body            []byte
		want            error
	}{
		{"good", "s3cret", ts, sig, body, nil},
		{"empty secret", "", ts, sig, body, errNoSignature},
		{"no timestamp", "s3cret", "", sig, body, errNoSignature},
		{"no signature", "s3cret", ts, "", body, errNoSignature},
		{"timestamp not a number", "s3cret", "12a", sig, body, errBadTimestamp},
		{"stale", "s3cret", "1699999000", sig, body, errStale},
		{"other body", "s3cret", ts, sig, []byte(`{"a":2}`), errBadSignature},
		{"not hex", "s3cret", ts, "v0=zz", body, errBadSignature},
		{"no scheme", "s3cret", ts, strings.TrimPrefix(sig, "v0="), body, errBadSignature},
		{"upper-case hex", "s3cret", ts, "v0=" + strings.ToUpper(strings.TrimPrefix(sig, "v0=")), body, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := verifySignature(tt.secret, tt.ts, tt.sig, tt.body, now); got != tt.want {
				t.Errorf("verifySignature = %v, want %v", got, tt.want)
			}
		})
	}
}

// FuzzVerifySignature: whatever arrives in the headers and body, the
// verifier never panics and never accepts a signature it did not compute.
func FuzzVerifySignature(f *testing.F) {
	now := time.Unix(1700000000, 0)
	ts, sig := slacktest.Sign("s3cret", now, []byte(`{"a":1}`))
	f.Add(ts, sig, []byte(`{"a":1}`))
	f.Add("", "", []byte{})
	f.Add("-99999999999999999999", "v0=", []byte("x"))
	f.Add(ts, "v0="+strings.Repeat("0", 64), []byte("x"))
	f.Fuzz(func(t *testing.T, ts, sig string, body []byte) {
		if verifySignature("s3cret", ts, sig, body, now) != nil {
			return
		}
		if want := "v0=" + hex.EncodeToString(sign("s3cret", ts, body)); !strings.EqualFold(sig, want) {
			t.Fatalf("accepted ts=%q sig=%q for a body whose signature is %q", ts, sig, want)
		}
	})
}

// TestWebhookThrottled: someone who found the Request URL forges
// signatures. Each bad one is counted; once the throttle locks the client
// out, even a rightly signed request is answered 429 with Retry-After
// before its body is read.
func TestWebhookThrottled(t *testing.T) {
	fake := newFake(t)
	throttle := &channelstest.Throttle{Max: 3}
	a := newAdapter(t, fake, func(o *Options) { httpMode(o); o.Throttle = throttle })
	sink := &recSink{}
	start(t, a, sink)
	eventually(t, "connected", func() bool { return sink.HasState(channels.StateConnected) })
	body := fake.MessagePayload(&slacktest.Msg{Channel: "D1", User: "U1", Text: "hi"})
	hit := func(secret string, b io.Reader) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, a.WebhookPath(), b)
		req.Header.Set("Content-Type", jsonType)
		ts, sig := slacktest.Sign(secret, time.Now(), body)
		req.Header.Set("X-Slack-Request-Timestamp", ts)
		req.Header.Set("X-Slack-Signature", sig)
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, req)
		return rec
	}
	for i := 0; i < 3; i++ {
		if rec := hit("guess", bytes.NewReader(body)); rec.Code != http.StatusUnauthorized {
			t.Fatalf("forgery %d: %d", i, rec.Code)
		}
	}
	rec := hit(testSecret, trapBody{t})
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("signed request while locked out: %d %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	if n := len(sink.Attempts()); n != 0 {
		t.Errorf("%d events reached the sink", n)
	}
}

// trapBody fails the test when read: a locked-out request's body must
// not be read.
type trapBody struct{ t *testing.T }

func (b trapBody) Read([]byte) (int, error) {
	b.t.Error("body read while the client was locked out")
	return 0, io.EOF
}
