package whatsapp

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"go.mau.fi/whatsmeow/proto/waAdv"
	"go.mau.fi/whatsmeow/types"

	"github.com/openclaw-go/openclaw/channels"
	gwstore "github.com/openclaw-go/openclaw/gateway/store"
)

func TestDeviceStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	c, err := OpenDeviceStore(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	tables := `SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?`
	if gwstore.IsPostgres(db) {
		tables = `SELECT count(*) FROM information_schema.tables WHERE table_schema=current_schema() AND table_name=?`
	}
	for _, table := range []string{"whatsapp_accounts", "whatsmeow_device", "whatsmeow_identity_keys",
		"whatsmeow_pre_keys", "whatsmeow_sessions", "whatsmeow_version"} {
		var n int
		if err := db.QueryRowContext(ctx, tables, table).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s: found %d, err %v", table, n, err)
		}
	}

	dev, err := loadDevice(ctx, c, db, "main")
	if err != nil {
		t.Fatal(err)
	}
	if dev.ID != nil {
		t.Fatalf("a new account has device %v", dev.ID)
	}
	jid := types.NewADJID("4915100000001", 0, 7)
	dev.ID = &jid
	dev.PushName = "OpenClaw"
	dev.Platform = "chrome"
	dev.Account = &waAdv.ADVSignedDeviceIdentity{ // what pairing fills in
		Details: []byte("details"), AccountSignatureKey: bytes.Repeat([]byte{1}, 32),
		AccountSignature: bytes.Repeat([]byte{2}, 64), DeviceSignature: bytes.Repeat([]byte{3}, 64),
	}
	if err := dev.Save(ctx); err != nil {
		t.Fatalf("save device: %v", err)
	}
	if err := rememberDevice(ctx, db, "main", jid); err != nil {
		t.Fatal(err)
	}

	// A second open of the same database (a restart) finds it again.
	c2, err := OpenDeviceStore(ctx, db, nil)
	if err != nil {
		t.Fatalf("second open: %v", err)
	}
	got, err := loadDevice(ctx, c2, db, "main")
	if err != nil {
		t.Fatal(err)
	}
	if got.ID == nil || *got.ID != jid || got.PushName != "OpenClaw" {
		t.Fatalf("reloaded device %v %q, want %v", got.ID, got.PushName, jid)
	}
	if !bytes.Equal(got.NoiseKey.Priv[:], dev.NoiseKey.Priv[:]) || !bytes.Equal(got.IdentityKey.Pub[:], dev.IdentityKey.Pub[:]) ||
		!bytes.Equal(got.Account.GetDetails(), []byte("details")) {
		t.Error("reloaded device has other keys")
	}
	if other, err := loadDevice(ctx, c2, db, "other"); err != nil || other.ID != nil {
		t.Errorf("another account got device %v (err %v)", other.ID, err)
	}

	// whatsmeow deletes a device that was logged out from the phone; the
	// account then starts unlinked.
	if err := c2.DeleteDevice(ctx, got); err != nil {
		t.Fatal(err)
	}
	again, err := loadDevice(ctx, c2, db, "main")
	if err != nil || again.ID != nil {
		t.Fatalf("after delete: device %v, err %v", again.ID, err)
	}
	if err := forgetDevice(ctx, db, "main"); err != nil {
		t.Fatal(err)
	}
	var n int
	db.QueryRowContext(ctx, `SELECT count(*) FROM whatsapp_accounts`).Scan(&n)
	if n != 0 {
		t.Errorf("%d account rows left after forgetDevice", n)
	}
}

func TestDeviceStoreNeedsForeignKeys(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "x.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = OpenDeviceStore(context.Background(), db, nil)
	if err == nil || !strings.Contains(err.Error(), "foreign keys") {
		t.Fatalf("err = %v, want whatsmeow's foreign keys refusal", err)
	}
}

func TestWhatsmeowClientSettings(t *testing.T) {
	c, err := OpenDeviceStore(context.Background(), openDB(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	cl := NewWhatsmeowClient(c.NewDevice(), nil)
	if !cl.OwnID().IsEmpty() || !cl.OwnLID().IsEmpty() || cl.IsConnected() || cl.IsLoggedIn() {
		t.Error("a new device looks linked or connected")
	}
	wc := cl.(whatsmeowClient)
	if wc.EnableAutoReconnect || !wc.SynchronousAck || !wc.EnableDecryptedEventBuffer {
		t.Errorf("auto-reconnect %v, synchronous ack %v, decrypted event buffer %v; want false, true, true",
			wc.EnableAutoReconnect, wc.SynchronousAck, wc.EnableDecryptedEventBuffer)
	}
}

// TestStartUnlinkedRealClient runs the default (whatsmeow) client on an
// empty store: it must report logged-out without touching the network.
func TestStartUnlinkedRealClient(t *testing.T) {
	a := New(Options{AccountID: "main", DB: openDB(t)})
	sink := &recSink{}
	start(t, a, sink)
	eventually(t, "logged-out", func() bool { return sink.Last().State == channels.StateLoggedOut })
	if d := sink.Last().Detail; d != LinkHint {
		t.Errorf("Detail %q", d)
	}
}

// TestDeviceStoresApart: two gateways' databases (on PostgreSQL, two
// schemas of one database, where whatsmeow's upgrade looks for its
// tables in every schema) each get a device store of their own.
func TestDeviceStoresApart(t *testing.T) {
	ctx := context.Background()
	db1, db2 := openDB(t), openDB(t)
	c1, err := OpenDeviceStore(ctx, db1, nil)
	if err != nil {
		t.Fatal(err)
	}
	dev := c1.NewDevice()
	jid := types.NewADJID("4915100000002", 0, 3)
	dev.ID = &jid
	dev.Account = &waAdv.ADVSignedDeviceIdentity{Details: []byte("d"), AccountSignatureKey: bytes.Repeat([]byte{1}, 32),
		AccountSignature: bytes.Repeat([]byte{2}, 64), DeviceSignature: bytes.Repeat([]byte{3}, 64)}
	if err := dev.Save(ctx); err != nil {
		t.Fatal(err)
	}
	c2, err := OpenDeviceStore(ctx, db2, nil)
	if err != nil {
		t.Fatalf("the second database's device store: %v", err)
	}
	if got, err := c2.GetDevice(ctx, jid); err != nil || got != nil {
		t.Errorf("the second database has the first's device (%v, err %v)", got, err)
	}
	if got, err := c1.GetDevice(ctx, jid); err != nil || got == nil {
		t.Errorf("the first database lost its device (err %v)", err)
	}
}
