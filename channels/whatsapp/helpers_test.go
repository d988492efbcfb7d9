package whatsapp

import (
	"database/sql"
	"testing"
	"time"

	wastore "go.mau.fi/whatsmeow/store"
	"go.mau.fi/whatsmeow/types"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/channelstest"
	"github.com/openclaw-go/openclaw/channels/whatsapp/whatsapptest"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

const waitFor = 10 * time.Second

var _ Client = (*whatsapptest.Fake)(nil)

var (
	ownJID = types.NewADJID("4915100000001", 0, 7) // our device
	ownPN  = whatsapptest.Phone("4915100000001")
	ownLID = types.NewJID("99887766554433", types.HiddenUserServer)
	ada    = whatsapptest.Phone("4915200000002")
	team   = whatsapptest.Group("120363000000000001")
)

// recSink records what the adapter hands it; see channelstest.Sink.
type recSink = channelstest.Sink

// eventually polls cond until it holds, failing the test after waitFor.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	channelstest.Eventually(t, waitFor, what, cond)
}

// openDB is a fresh gateway database in a temp dir.
func openDB(t testing.TB) *sql.DB {
	t.Helper()
	st := storetest.Open(t)
	return st.DB
}

// newAdapter is an adapter on fake with fast backoff.
func newAdapter(t testing.TB, fake *whatsapptest.Fake, edit func(*Options)) *Adapter {
	t.Helper()
	o := Options{
		AccountID:  "main",
		DB:         openDB(t),
		NewClient:  func(*wastore.Device) Client { return fake.Fresh() },
		BackoffMin: time.Millisecond,
		BackoffMax: 5 * time.Millisecond,
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

// connected starts a linked adapter on fake and waits for connected.
func connected(t testing.TB, edit func(*Options)) (*Adapter, *whatsapptest.Fake, *recSink) {
	t.Helper()
	fake := whatsapptest.New(ownJID)
	fake.SetLID(ownLID)
	a := newAdapter(t, fake, edit)
	sink := &recSink{}
	start(t, a, sink)
	eventually(t, "connected", func() bool { return sink.Last().State == channels.StateConnected })
	return a, fake, sink
}
