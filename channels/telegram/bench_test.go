package telegram_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/telegram"
	"github.com/openclaw-go/openclaw/channels/telegram/telegramtest"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store"
)

// instantAgent answers at once: the benchmark measures the channel
// pipeline (store, gate, routing, chunking, delivery, the Bot API client),
// not a model.
type instantAgent struct{}

func (instantAgent) Dispatch(ctx context.Context, d channels.Dispatch) (channels.Reply, error) {
	return channels.Reply{Text: "echo " + d.Text}, nil
}

// sendObserver records, for every sendMessage whose text carries a send
// time in nanoseconds, how long the message took from the fake's update
// queue to the bot's answer.
type sendObserver struct {
	next http.RoundTripper
	mu   sync.Mutex
	lat  []time.Duration
}

var stampRE = regexp.MustCompile(`\d{18,}`)

func (o *sendObserver) RoundTrip(r *http.Request) (*http.Response, error) {
	var stamp int64
	if r.Body != nil && bytes.HasSuffix([]byte(r.URL.Path), []byte("/sendMessage")) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if v, err := url.ParseQuery(string(body)); err == nil {
			stamp, _ = strconv.ParseInt(stampRE.FindString(v.Get("text")), 10, 64)
		}
	}
	res, err := o.next.RoundTrip(r)
	if stamp > 0 && err == nil {
		o.mu.Lock()
		o.lat = append(o.lat, time.Since(time.Unix(0, stamp)))
		o.mu.Unlock()
	}
	return res, err
}

// benchPipeline starts the pipeline over the fake Bot API.
func benchPipeline(b *testing.B) (*telegramtest.Server, *sendObserver) {
	const token = "42:bench"
	tg := telegramtest.New(b, token)
	st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "bench.sqlite"), channels.Migrations())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	obs := &sendObserver{next: http.DefaultTransport}
	ad := telegram.New(telegram.Options{AccountID: "default", Token: token, APIRoot: tg.URL(), HTTPClient: &http.Client{Transport: obs}, PollTimeout: time.Second})
	net := channels.Network{Name: "telegram", Label: "Telegram", Accounts: func(*config.Config) []channels.AccountSpec {
		return []channels.AccountSpec{{AccountID: "default", Default: true, Enabled: true, Fingerprint: "b",
			Policy: channels.AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}, TextLimit: 4000, ReplyToMode: "off"},
			New:    func() (channels.Adapter, error) { return ad, nil }}}
	}}
	m := channels.New(&config.Config{}, channels.Options{Store: st, Dispatcher: instantAgent{}, Networks: []channels.Network{net},
		DefaultAgent: func(*config.Config) string { return "main" }, TypingInterval: time.Hour})
	m.Start(context.Background())
	b.Cleanup(func() { m.Close(context.Background()) })
	tg.WaitCalls("getUpdates", 1, 30*time.Second)
	return tg, obs
}

func (o *sendObserver) report(b *testing.B) {
	o.mu.Lock()
	lat := slices.Clone(o.lat)
	o.mu.Unlock()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	}
}

// BenchmarkInboundToOutbound pushes b.N DMs from 50 people at once through
// the fake Bot API, the real client library, the pipeline and back out,
// and reports messages per second (the latencies include the queue).
func BenchmarkInboundToOutbound(b *testing.B) {
	tg, obs := benchPipeline(b)
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		tg.AddPrivateText(telegramtest.User{ID: int64(1000 + i%50), FirstName: "P"}, strconv.FormatInt(time.Now().UnixNano(), 10))
	}
	tg.WaitSent(b.N, 5*time.Minute)
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
	obs.report(b)
}

// BenchmarkMessageLatency sends one message at a time and reports the
// latency the gateway adds from the update being available to the reply
// reaching the Bot API (long-poll wake-up included).
func BenchmarkMessageLatency(b *testing.B) {
	tg, obs := benchPipeline(b)
	b.ResetTimer()
	for i := range b.N {
		tg.AddPrivateText(telegramtest.User{ID: 1000, FirstName: "P"}, strconv.FormatInt(time.Now().UnixNano(), 10))
		tg.WaitSent(i+1, time.Minute)
	}
	b.StopTimer()
	obs.report(b)
}
