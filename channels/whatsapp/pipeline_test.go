package whatsapp

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/whatsapp/whatsapptest"
	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

type echoAgent struct{}

func (echoAgent) Dispatch(ctx context.Context, d channels.Dispatch) (channels.Reply, error) {
	return channels.Reply{Text: "echo: " + d.Text}, nil
}

// TestPipelineDMAndGroup carries a DM and a group conversation through
// the channel pipeline (SQLite, gate, routing, delivery) and the adapter
// on the fake client: the allowed DM is answered, the group answers only
// when the bot is mentioned, and a stranger gets a pairing code.
func TestPipelineDMAndGroup(t *testing.T) {
	st := storetest.Open(t, channels.Migrations())
	fake := whatsapptest.New(ownJID)
	fake.SetLID(ownLID)
	a := newAdapter(t, fake, func(o *Options) { o.DB = st.DB })
	net := channels.Network{Name: "whatsapp", Label: "WhatsApp", Accounts: func(*config.Config) []channels.AccountSpec {
		return []channels.AccountSpec{{AccountID: "main", Default: true, Enabled: true, Fingerprint: "p",
			Policy: channels.AccountPolicy{AllowFrom: []string{"+4917600000001"}, GroupPolicy: "allowlist",
				Groups: map[string]channels.GroupPolicy{"*": {Enabled: true, RequireMention: true}}},
			New: func() (channels.Adapter, error) { return a, nil }}}
	}}
	m := channels.New(&config.Config{}, channels.Options{Store: st, Dispatcher: echoAgent{}, Networks: []channels.Network{net},
		DefaultAgent: func(*config.Config) string { return "main" }, TypingInterval: time.Hour})
	m.Start(context.Background())
	defer m.Close(context.Background())
	eventually(t, "connected", func() bool { return fake.IsConnected() })

	ada := whatsapptest.Phone("4917600000001")
	group := whatsapptest.Group("120363000000000001")
	fake.Emit(whatsapptest.DM(ada, "M1", "hello *there*"))
	fake.Emit(whatsapptest.GroupText(group, ada, "M2", "just chatting"))
	fake.Emit(whatsapptest.GroupText(group, ada, "M3", "@bot are you there", ownJID.ToNonAD()))
	fake.Emit(whatsapptest.DM(whatsapptest.Phone("4917699999999"), "M4", "who are you"))

	sentTo := func(chat, has string) bool {
		for _, s := range fake.Sent() {
			if s.To.String() == chat && strings.Contains(s.Text(), has) {
				return true
			}
		}
		return false
	}
	eventually(t, "the DM answered", func() bool { return sentTo(ada.String(), "echo: hello") })
	eventually(t, "the mention answered", func() bool { return sentTo(group.String(), "are you there") })
	eventually(t, "a pairing code for the stranger", func() bool { return sentTo("4917699999999@s.whatsapp.net", "pairing code") })
	for _, s := range fake.Sent() {
		if strings.Contains(s.Text(), "just chatting") {
			t.Errorf("answered an unmentioned group message: %q", s.Text())
		}
	}
}

// BenchmarkInboundToOutbound pushes b.N DMs from 50 people through the
// fake client, the adapter, the pipeline and back out.
func BenchmarkInboundToOutbound(b *testing.B) {
	st := storetest.Open(b, channels.Migrations())
	fake := whatsapptest.New(ownJID)
	fake.SetLID(ownLID)
	a := newAdapter(b, fake, func(o *Options) { o.DB = st.DB })
	net := channels.Network{Name: "whatsapp", Label: "WhatsApp", Accounts: func(*config.Config) []channels.AccountSpec {
		return []channels.AccountSpec{{AccountID: "main", Default: true, Enabled: true, Fingerprint: "b",
			Policy: channels.AccountPolicy{DMPolicy: "open", AllowFrom: []string{"*"}, ReplyToMode: "off"},
			New:    func() (channels.Adapter, error) { return a, nil }}}
	}}
	m := channels.New(&config.Config{}, channels.Options{Store: st, Dispatcher: echoAgent{}, Networks: []channels.Network{net},
		DefaultAgent: func(*config.Config) string { return "main" }, TypingInterval: time.Hour})
	m.Start(context.Background())
	defer m.Close(context.Background())
	eventually(b, "connected", func() bool { return fake.IsConnected() })
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		fake.Emit(whatsapptest.DM(whatsapptest.Phone(strconv.Itoa(4917600000000+i%50)), "B"+strconv.Itoa(i), "hi "+strconv.Itoa(i)))
	}
	eventually(b, "every reply", func() bool { return len(fake.Sent()) >= b.N })
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}
