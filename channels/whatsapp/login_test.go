package whatsapp

import (
	"context"
	"strings"
	"sync"
	"testing"

	"go.mau.fi/whatsmeow/types"
	"go.mau.fi/whatsmeow/types/events"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/whatsapp/whatsapptest"
)

// steps records what a login shows.
type steps struct {
	mu  sync.Mutex
	got []channels.LoginStep
}

func (s *steps) show(st channels.LoginStep) {
	s.mu.Lock()
	s.got = append(s.got, st)
	s.mu.Unlock()
}

func (s *steps) all() []channels.LoginStep {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]channels.LoginStep(nil), s.got...)
}

func TestLoginQRThenConnect(t *testing.T) {
	fake := whatsapptest.New(types.EmptyJID)
	fake.ScriptLogin(ownJID, "2@code-one", "2@code-two")
	a := newAdapter(t, fake, nil)
	sink := &recSink{}
	start(t, a, sink)
	eventually(t, "logged-out", func() bool { return sink.Last().State == channels.StateLoggedOut })

	var s steps
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := a.Login(ctx, s.show); err != nil {
		t.Fatal(err)
	}
	got := s.all()
	if len(got) != 3 || got[0].QR != "2@code-one" || got[1].QR != "2@code-two" || !got[2].Done {
		t.Fatalf("login showed %+v, want two QR codes then Done", got)
	}
	if !strings.Contains(got[2].Detail, "+4915100000001") {
		t.Errorf("Done detail %q does not name the account", got[2].Detail)
	}
	eventually(t, "connected after login", func() bool { return sink.Last().State == channels.StateConnected })
	var jid string
	if err := a.opts.DB.QueryRow(`SELECT jid FROM whatsapp_accounts WHERE account_id='main'`).Scan(&jid); err != nil || jid != ownJID.String() {
		t.Errorf("account row %q (err %v), want %s", jid, err, ownJID)
	}
	if err := a.Login(ctx, s.show); err == nil {
		t.Error("a second login of a linked account succeeded")
	}
}

func TestLoginTimeout(t *testing.T) {
	fake := whatsapptest.New(types.EmptyJID)
	fake.ScriptLogin(types.EmptyJID, "2@only")
	a := newAdapter(t, fake, nil)
	var s steps
	err := a.Login(context.Background(), s.show)
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if got := s.all(); len(got) != 1 || got[0].Done {
		t.Errorf("showed %+v", got)
	}
}

func TestLoginWithPhone(t *testing.T) {
	fake := whatsapptest.New(types.EmptyJID)
	fake.ScriptLogin(ownJID, "2@qr-ignored", "2@qr-ignored-too")
	a := newAdapter(t, fake, nil)
	var s steps
	if err := a.LoginWithPhone(context.Background(), "+49 151 00000001", s.show); err != nil {
		t.Fatal(err)
	}
	got := s.all()
	if len(got) != 2 || got[0].PairingCode != "ABCD-EFGH" || got[0].QR != "" || !got[1].Done {
		t.Fatalf("showed %+v, want the pairing code then Done", got)
	}
	if p := fake.PairedPhone(); p != "4915100000001" {
		t.Errorf("paired %q", p)
	}
	if err := a.LoginWithPhone(context.Background(), "0151 123", s.show); err == nil {
		t.Error("a national number was accepted")
	}
}

func TestLogout(t *testing.T) {
	a, fake, sink := connected(t, nil)
	if err := rememberDevice(context.Background(), a.opts.DB, "main", ownJID); err != nil {
		t.Fatal(err)
	}
	if err := a.Logout(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fake.Logouts() != 1 {
		t.Errorf("%d logouts", fake.Logouts())
	}
	eventually(t, "logged-out", func() bool { return sink.Last().State == channels.StateLoggedOut })
	// The run loop has let go of the client: it now waits for a login.
	eventually(t, "client released", func() bool { return a.currentClient() == nil })
	n := fake.Connects()
	var rows int
	a.opts.DB.QueryRow(`SELECT count(*) FROM whatsapp_accounts`).Scan(&rows)
	if rows != 0 {
		t.Errorf("%d account rows after logout", rows)
	}
	fake.Emit(&events.Disconnected{}) // a late event must not restart it
	if fake.Connects() != n || sink.Last().State != channels.StateLoggedOut {
		t.Error("reconnected after logout")
	}
	// Logging out again: nothing linked, nothing to do.
	if err := a.Logout(context.Background()); err != nil {
		t.Errorf("second logout: %v", err)
	}
}

func TestRenderQR(t *testing.T) {
	out := RenderQR("2@AbCdEf0123456789,XYZ+/abc=,def+/ghi=,jkl+/mno=")
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 10 || !strings.ContainsAny(out, "█▀▄") {
		t.Fatalf("RenderQR gave %d lines:\n%s", len(lines), out)
	}
	for _, l := range lines[1:] {
		if len([]rune(l)) != len([]rune(lines[0])) {
			t.Fatalf("ragged QR block:\n%s", out)
		}
	}
	if RenderQR(strings.Repeat("x", 5000)) != "" {
		t.Error("an oversized payload rendered")
	}
}

func TestLogoutNotRunning(t *testing.T) {
	fake := whatsapptest.New(ownJID)
	a := newAdapter(t, fake, nil)
	if err := a.Logout(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fake.Logouts() != 1 || fake.IsConnected() {
		t.Errorf("logouts %d, still connected %v", fake.Logouts(), fake.IsConnected())
	}
}
