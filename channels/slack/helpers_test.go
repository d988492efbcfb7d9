package slack

import (
	"net/http"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/channelstest"
	"github.com/openclaw-go/openclaw/channels/slack/slacktest"
)

const (
	testBotToken = "xoxb-1111-SECRETBOT"
	testAppToken = "xapp-1-SECRETAPP"
	testSecret   = "signing-SECRET-value"
	waitFor      = 10 * time.Second
)

// recSink records what the adapter hands it; see channelstest.Sink.
type recSink = channelstest.Sink

// eventually polls cond until it holds, failing the test after waitFor.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	channelstest.Eventually(t, waitFor, what, cond)
}

// newFake starts a fake Slack for the test tokens.
func newFake(t testing.TB) *slacktest.Server {
	return slacktest.New(t, testBotToken, testAppToken)
}

// newAdapter returns a socket-mode adapter on fake with a short ping
// timeout and fast backoff; edit may change the options.
func newAdapter(t testing.TB, fake *slacktest.Server, edit func(*Options)) *Adapter {
	t.Helper()
	o := Options{
		AccountID:   "work",
		BotToken:    testBotToken,
		AppToken:    testAppToken,
		APIURL:      fake.APIURL(),
		PingTimeout: 300 * time.Millisecond,
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

// httpMode switches options to HTTP Events mode.
func httpMode(o *Options) {
	o.AppToken = ""
	o.SigningSecret = testSecret
}

// start starts a on sink and stops it when the test ends.
func start(t testing.TB, a *Adapter, sink channels.Sink) {
	t.Helper()
	channelstest.Start(t, a, sink, waitFor)
}

// loopEnded reports whether a's goroutine finished.
func loopEnded(a *Adapter) bool {
	done := a.life.Done()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}
