package channels

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// TestLogoutUnlinksStoppedAccount: channels.logout unlinks a device-linked
// account whether it runs or was stopped (then through an adapter built
// only for that, never started), and leaves the account stopped; a
// token-based account is only stopped.
func TestLogoutUnlinksStoppedAccount(t *testing.T) {
	st, err := openTestStore(t, storetest.Place(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var mu sync.Mutex
	var built []*loginAdapter
	wa := Network{Name: "whatsapp", Label: "WhatsApp", Accounts: func(*config.Config) []AccountSpec {
		return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Fingerprint: "w", New: func() (Adapter, error) {
			mu.Lock()
			defer mu.Unlock()
			ad := &loginAdapter{memAdapter: newMem(), next: make(chan struct{})}
			built = append(built, ad)
			return ad, nil
		}}}
	}}
	tg := Network{Name: "telegram", Label: "Telegram", Accounts: func(*config.Config) []AccountSpec {
		return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Fingerprint: "t", New: func() (Adapter, error) { return newMem(), nil }}}
	}}
	m := New(&config.Config{}, Options{Store: st, Dispatcher: &echoAgent{}, Networks: []Network{wa, tg}})
	m.Start(context.Background())
	defer m.Close(context.Background())
	ctx := context.Background()

	account := func(channel string) *account {
		t.Helper()
		a, err := m.resolveAccount(channel, "")
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	loggedOut := func() []bool {
		mu.Lock()
		defer mu.Unlock()
		var out []bool
		for _, ad := range built {
			out = append(out, ad.loggedOut)
		}
		return out
	}

	// Running: the running adapter unlinks.
	a := account("whatsapp")
	if a.adapterNow() == nil {
		t.Fatal("the WhatsApp account is not running")
	}
	if unlinked, err := m.logout(ctx, a); err != nil || !unlinked {
		t.Fatalf("logout of the running account: unlinked %v, %v", unlinked, err)
	}
	if got := loggedOut(); len(got) != 1 || !got[0] {
		t.Fatalf("adapters logged out %v, want the running one", got)
	}
	if a.adapterNow() != nil || a.snapshot().State != StateStopped {
		t.Fatalf("after logout: adapter %v, state %s", a.adapterNow(), a.snapshot().State)
	}

	// Stopped: a fresh adapter unlinks; nothing starts.
	if unlinked, err := m.logout(ctx, a); err != nil || !unlinked {
		t.Fatalf("logout of the stopped account: unlinked %v, %v", unlinked, err)
	}
	if got := loggedOut(); len(got) != 2 || !got[1] {
		t.Fatalf("adapters logged out %v, want a second one built to unlink", got)
	}
	if a.adapterNow() != nil || a.snapshot().State != StateStopped {
		t.Fatalf("after logout of a stopped account: adapter %v, state %s", a.adapterNow(), a.snapshot().State)
	}

	// Token-based: stopped, nothing to unlink.
	b := account("telegram")
	if unlinked, err := m.logout(ctx, b); err != nil || unlinked {
		t.Fatalf("logout of Telegram: unlinked %v, %v", unlinked, err)
	}
	if b.adapterNow() != nil || b.snapshot().State != StateStopped {
		t.Fatalf("Telegram after logout: adapter %v, state %s", b.adapterNow(), b.snapshot().State)
	}
}

// TestLoginOnStoppedAccount: linking a stopped account says to start it,
// not that the network has no device login.
func TestLoginOnStoppedAccount(t *testing.T) {
	st, err := openTestStore(t, storetest.Place(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ad := &loginAdapter{memAdapter: newMem(), next: make(chan struct{})}
	wa := Network{Name: "whatsapp", Label: "WhatsApp", Accounts: func(*config.Config) []AccountSpec {
		return []AccountSpec{{AccountID: "default", Default: true, Enabled: true, Fingerprint: "w", New: func() (Adapter, error) { return ad, nil }}}
	}}
	m := New(&config.Config{}, Options{Store: st, Dispatcher: &echoAgent{}, Networks: []Network{wa}})
	m.Start(context.Background())
	defer m.Close(context.Background())
	a, err := m.resolveAccount("whatsapp", "")
	if err != nil {
		t.Fatal(err)
	}
	m.stopAccount(context.Background(), a)
	_, err = m.StartLogin("whatsapp", "", false)
	if err == nil || errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "start it first") {
		t.Fatalf("login on a stopped account: %v", err)
	}
	m.startAccount(a)
	if _, err := m.StartLogin("whatsapp", "", false); err != nil {
		t.Fatalf("login after a start: %v", err)
	}
}
