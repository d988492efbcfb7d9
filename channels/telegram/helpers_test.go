package telegram

import (
	"net/http"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/channelstest"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
)

const (
	testToken = "123456:SECRET-token_value"
	waitFor   = 10 * time.Second
)

var ada = telegramtest.User{ID: 42, Username: "ada", FirstName: "Ada"}

// recSink records what the adapter hands it; see channelstest.Sink.
type recSink = channelstest.Sink

// eventually polls cond until it holds, failing the test after waitFor.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	channelstest.Eventually(t, waitFor, what, cond)
}

// newAdapter returns an adapter on fake with fast polls and backoff.
func newAdapter(t *testing.T, fake *telegramtest.Server, edit func(*Options)) *Adapter {
	t.Helper()
	o := Options{
		AccountID:   "work",
		Token:       testToken,
		APIRoot:     fake.URL(),
		PollTimeout: time.Second,
		CallTimeout: 5 * time.Second,
		BackoffMin:  time.Millisecond,
		BackoffMax:  5 * time.Millisecond,
		HTTPClient:  &http.Client{},
	}
	if edit != nil {
		edit(&o)
	}
	return New(o)
}

// start starts a on sink and stops it when the test ends.
func start(t testing.TB, a *Adapter, sink channels.Sink) {
	t.Helper()
	channelstest.Start(t, a, sink, waitFor)
}
