package gateway

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
	"github.com/openclaw-go/openclaw/gateway/store"
)

// Roles a gateway plays on its store. On SQLite there is one gateway,
// always active; on PostgreSQL several may share the database and the
// lease picks the one that polls channels, runs cron and serves turns.
const (
	roleActive  = "active"
	roleStandby = "standby"
)

// openStore opens the state the config names: the SQLite file in the
// state directory, or the PostgreSQL database of store.url.
func (s *System) openStore(ctx context.Context, cfg *config.Config) (*store.Store, error) {
	if s.opts.storeURL != "" {
		return store.OpenPostgres(ctx, s.opts.storeURL, Migrations()...)
	}
	if !cfg.Store.Postgres() {
		return store.Open(ctx, filepath.Join(s.opts.StateDir, store.FileName), Migrations()...)
	}
	// OpenPostgres's errors name the key (store.driver, store.url) or the
	// database, its password taken out.
	return store.OpenPostgres(ctx, cfg.Store.URL, Migrations()...)
}

// takeLease makes one attempt at the lease on a PostgreSQL store and
// records the role; on SQLite the gateway is active with no lease.
func (s *System) takeLease(ctx context.Context, cfg *config.Config) error {
	s.role.Store(roleActive)
	if !s.store.Postgres() {
		return nil
	}
	interval, timeout := cfg.Store.Lease()
	host, _ := os.Hostname()
	l, err := s.store.NewLease(store.LeaseOptions{
		Holder:   fmt.Sprintf("%s pid %d", host, os.Getpid()),
		Interval: interval, Timeout: timeout,
		Logger: s.log.With("component", "lease"),
	})
	if err != nil {
		return err
	}
	s.lease = l
	ok, err := l.TryAcquire(ctx)
	if err != nil {
		return err
	}
	if !ok {
		s.role.Store(roleStandby)
		s.log.Info("another gateway is active on this database; this one stands by and serves read methods")
	}
	return nil
}

// active says this gateway does the work: channels, cron, turns.
func (s *System) active() bool { return s.role.Load() != roleStandby }

// watchLease runs while the gateway serves. A standby waits for the
// lease and then restarts to take over: the restart builds every part
// afresh from what the last active gateway left in the database, where
// promoting in place would run on what was read at start. The active
// one restarts as a standby when it loses the lease (its writes are
// already fenced off).
func (s *System) watchLease(ctx context.Context) {
	l := s.lease
	if l == nil {
		return
	}
	if s.active() {
		if err := l.SetAddress(ctx, "ws://"+s.addr.String()); err != nil {
			s.log.Warn("lease: could not record this gateway's address", "err", err)
		}
		go func() {
			select {
			case <-ctx.Done():
			case <-l.Lost():
				s.requestRestart()
			}
		}()
		return
	}
	go func() {
		if err := l.Wait(ctx); err != nil {
			return
		}
		// Let the lock go for the restarted gateway to take: if another
		// standby is quicker, this one stands by again.
		l.Release(context.WithoutCancel(ctx))
		s.log.Info("the active gateway is gone; restarting to take over")
		s.requestRestart()
	}()
}

// standbyGate refuses, on a standby, every method that is not a read: it
// would change state the active gateway owns, or start work (a turn, a
// send) that only the active one does.
func (s *System) standbyGate(method string, rt rpc.Route) *protocol.Error {
	if s.active() || rt.Scope == protocol.ScopeRead || rt.Scope == protocol.ScopeNone {
		return nil
	}
	where := "another gateway"
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if info, ok, err := s.store.LeaseHolder(ctx); err == nil && ok {
		where = "the active gateway (" + info.Holder
		if info.Address != "" {
			where += ", " + info.Address
		}
		where += ")"
	}
	e := protocol.Errorf(protocol.CodeUnavailable, "%s: this gateway is a standby and serves read methods only; %s serves it, and this one takes over if it stops", method, where)
	retry := true
	e.Retryable = &retry
	return e
}

// storeStatus is the store part of the status answer.
func (s *System) storeStatus(ctx context.Context) map[string]any {
	out := map[string]any{"driver": store.DriverSQLite, "role": s.role.Load()}
	if s.store == nil || !s.store.Postgres() {
		return out
	}
	out["driver"] = store.DriverPostgres
	if info, ok, err := s.store.LeaseHolder(ctx); err == nil && ok {
		out["active"] = map[string]any{"holder": info.Holder, "address": info.Address, "epoch": info.Epoch, "renewedAgoMs": info.Age.Milliseconds()}
	}
	if s.lease != nil {
		out["epoch"] = s.lease.Epoch()
	}
	return out
}
