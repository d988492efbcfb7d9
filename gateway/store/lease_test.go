package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/fstest"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
)

// Two gateways on one database: each opens its own Store (its own pool),
// as two processes would, on one schema; the lease is per schema.
func twoGateways(t *testing.T) (a, b *Store) {
	t.Helper()
	url := pgtest.URL(t)
	ctx := context.Background()
	a, err := OpenPostgres(ctx, url, testMigrations())
	if err != nil {
		t.Fatal(err)
	}
	b, err = OpenPostgres(ctx, url, testMigrations())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

func testMigrations() Migrations {
	return Migrations{Component: "leasetest", FS: fstest.MapFS{
		"001_work.sql": {Data: []byte(`CREATE TABLE work (id INTEGER PRIMARY KEY, done_by TEXT NOT NULL);`)},
	}}
}

func lease(t *testing.T, s *Store, holder string, timeout time.Duration) *Lease {
	t.Helper()
	l, err := s.NewLease(LeaseOptions{Holder: holder, Interval: 20 * time.Millisecond, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Release(context.Background()) })
	return l
}

// kill drops l's lease connection as a process's death would: the
// renewals stop and the socket closes, with no unlock sent.
func kill(l *Lease) {
	close(l.stop)
	<-l.done
	l.conn.Raw(func(any) error { return errBadConn })
	l.conn.Close()
	l.conn = nil
}

func writeWork(s *Store, by string) error {
	return Immediate(context.Background(), s.DB, func(c Conn) error {
		_, err := c.ExecContext(context.Background(), `INSERT INTO work (done_by) VALUES (?)`, by)
		return err
	})
}

func TestLeaseOneActiveAndTakeoverWhenItsSessionEnds(t *testing.T) {
	a, b := twoGateways(t)
	ctx := context.Background()
	la, lb := lease(t, a, "gw-a", time.Hour), lease(t, b, "gw-b", time.Hour)
	if ok, err := la.TryAcquire(ctx); !ok || err != nil {
		t.Fatalf("a: acquire = %v, %v", ok, err)
	}
	if ok, err := lb.TryAcquire(ctx); ok || err != nil {
		t.Fatalf("b acquired a held lease: %v, %v", ok, err)
	}
	info, ok, err := b.LeaseHolder(ctx)
	if err != nil || !ok || info.Holder != "gw-a" || info.Epoch != 1 {
		t.Fatalf("holder = %+v %v %v, want gw-a at epoch 1", info, ok, err)
	}
	if err := writeWork(a, "a"); err != nil {
		t.Fatalf("the active gateway cannot write: %v", err)
	}
	// A killed gateway: its connections close, and the lock goes with them.
	kill(la)
	a.DB.Close()
	if err := lb.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if got := lb.Epoch(); got != 2 {
		t.Errorf("b's epoch = %d, want 2", got)
	}
	if err := writeWork(b, "b"); err != nil {
		t.Fatalf("the new active gateway cannot write: %v", err)
	}
}

// The attack a split brain makes: a gateway whose lock went away (its
// session ended; it has not noticed yet) keeps working. Once the standby
// has taken the lease, every write transaction of the old one fails.
func TestLeaseFencesTheGatewayThatLostIt(t *testing.T) {
	a, b := twoGateways(t)
	ctx := context.Background()
	la, lb := lease(t, a, "gw-a", time.Hour), lease(t, b, "gw-b", time.Hour)
	if ok, _ := la.TryAcquire(ctx); !ok {
		t.Fatal("a did not acquire")
	}
	// End a's lease session behind its back, as a network cut would.
	if _, err := b.DB.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE `+heldLease, leaseLock); err != nil {
		t.Fatal(err)
	}
	if err := lb.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	err := writeWork(a, "a-late")
	if !errors.Is(err, ErrFenced) {
		t.Fatalf("the deposed gateway's write: err = %v, want ErrFenced", err)
	}
	tx, err := a.DB.BeginTx(ctx, nil)
	if err == nil {
		tx.Rollback()
		t.Fatal("the deposed gateway began a write transaction")
	}
	var n int
	if err := b.DB.QueryRowContext(ctx, `SELECT count(*) FROM work WHERE done_by = 'a-late'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the deposed gateway's rows = %d (%v), want 0", n, err)
	}
	select {
	case <-la.Lost():
	case <-time.After(time.Minute):
		t.Fatal("a never noticed it lost the lease")
	}
	if err := writeWork(b, "b"); err != nil {
		t.Fatalf("the active gateway cannot write: %v", err)
	}
}

// A holder that stalls (its session open, its renewals stopped) is ended
// by a standby once the lease timeout has passed.
func TestLeaseStalledHolderIsEnded(t *testing.T) {
	a, b := twoGateways(t)
	ctx := context.Background()
	la := lease(t, a, "gw-a", time.Hour)
	if ok, _ := la.TryAcquire(ctx); !ok {
		t.Fatal("a did not acquire")
	}
	close(la.stop) // a hangs: no more renewals
	<-la.done
	la.stop, la.done = make(chan struct{}), make(chan struct{})
	close(la.done)
	lb := lease(t, b, "gw-b", 100*time.Millisecond)
	if err := lb.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if info, _, _ := b.LeaseHolder(ctx); info.Holder != "gw-b" || info.Epoch != 2 {
		t.Fatalf("holder = %+v, want gw-b at epoch 2", info)
	}
	if err := writeWork(a, "a"); !errors.Is(err, ErrFenced) && err == nil {
		t.Fatal("the stalled gateway could still write")
	}
}

// A graceful stop hands over at the standby's next try, and the one that
// released writes no more.
func TestLeaseRelease(t *testing.T) {
	a, b := twoGateways(t)
	ctx := context.Background()
	la, lb := lease(t, a, "gw-a", time.Hour), lease(t, b, "gw-b", time.Hour)
	if ok, _ := la.TryAcquire(ctx); !ok {
		t.Fatal("a did not acquire")
	}
	if err := la.SetAddress(ctx, "ws://10.0.0.1:18789"); err != nil {
		t.Fatal(err)
	}
	if info, _, _ := b.LeaseHolder(ctx); info.Address != "ws://10.0.0.1:18789" {
		t.Errorf("address = %q", info.Address)
	}
	la.Release(ctx)
	if ok, err := lb.TryAcquire(ctx); !ok || err != nil {
		t.Fatalf("b after release: %v, %v", ok, err)
	}
	if err := writeWork(a, "a"); !errors.Is(err, ErrFenced) {
		t.Fatalf("released gateway's write: %v, want ErrFenced", err)
	}
}

func TestLeaseNeedsPostgres(t *testing.T) {
	s, err := Open(context.Background(), t.TempDir()+"/x.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.NewLease(LeaseOptions{}); err == nil {
		t.Fatal("a lease on SQLite")
	}
}

// Two deployments in two schemas of one database: each has its own
// active gateway.
func TestLeasePerSchema(t *testing.T) {
	ctx := context.Background()
	var leases []*Lease
	for i := range 2 {
		s, err := OpenPostgres(ctx, pgtest.URL(t), testMigrations())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		l := lease(t, s, fmt.Sprintf("gw-%d", i), time.Hour)
		if ok, err := l.TryAcquire(ctx); !ok || err != nil {
			t.Fatalf("deployment %d: acquire = %v, %v", i, ok, err)
		}
		leases = append(leases, l)
	}
}
