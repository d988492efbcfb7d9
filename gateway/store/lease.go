package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// The lease: on a PostgreSQL store several gateways may run, and exactly
// one of them is active (polls the channels, runs cron, serves turns).
// The active one holds a session-level advisory lock on a connection it
// keeps open, so a gateway that dies (kill -9, a lost machine whose TCP
// connection the server sees close) frees it at once. Holding the lock
// is not enough to write: each acquisition bumps store_lease.epoch, and
// every write transaction of the holder's store checks the epoch it was
// given (fenceCheck), so a gateway that lost the lock while it still
// thinks itself active commits nothing its successor may also do. A
// holder that stalls without dying (its connection open, its renewals
// stopped) is ended by a standby after the lease timeout with
// pg_terminate_backend.

// leaseLock is the advisory lock key the active gateway holds, paired
// with a hash of the schema (leaseKeys): deployments in two schemas of
// one database each have their own active gateway.
const leaseLock = 7366031

// leaseKeys are the lock's two keys in SQL, leaseLock the placeholder's.
const leaseKeys = `?, hashtext(current_schema())`

// heldLease selects the lock rows of this schema's lease in pg_locks,
// where a two-key advisory lock shows as classid, objid and objsubid 2.
const heldLease = `locktype = 'advisory' AND classid = ?::oid AND objid = hashtext(current_schema())::oid AND objsubid = 2 AND granted
		AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`

var errBadConn = driver.ErrBadConn

// migrateLock serialises migrations of gateways that start together.
const migrateLock = 7366030

// leaseTable is created with schema_versions on PostgreSQL.
const leaseTable = `CREATE TABLE IF NOT EXISTS store_lease (
	id BIGINT PRIMARY KEY, holder TEXT NOT NULL, address TEXT NOT NULL DEFAULT '',
	epoch BIGINT NOT NULL, renewed_at BIGINT NOT NULL)`

// dbMillis is the database server's clock in Unix milliseconds: every
// gateway compares lease times on one clock, whatever its own says.
const dbMillis = `(extract(epoch from clock_timestamp()) * 1000)::bigint`

// LeaseOptions configure a Lease.
type LeaseOptions struct {
	// Holder names this gateway in store_lease and in logs (host and pid).
	Holder string
	// Interval is how often the lease is tried and renewed. Default 1 s.
	Interval time.Duration
	// Timeout is how long a lease lasts without a renewal. Default 10 s.
	Timeout time.Duration
	Logger  *slog.Logger
}

// Lease is one gateway's claim to be the active one.
type Lease struct {
	st   *Store
	opts LeaseOptions
	log  *slog.Logger

	mu       sync.Mutex
	conn     *sql.Conn // holds the advisory lock once acquired
	epoch    int64
	lost     chan struct{}
	lostOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// LeaseInfo is what store_lease says about the active gateway.
type LeaseInfo struct {
	Holder  string
	Address string
	Epoch   int64
	// Age is how long ago the holder last renewed.
	Age time.Duration
}

// NewLease prepares a lease on s, which must be a PostgreSQL store: a
// SQLite file has one gateway, which is always active.
func (s *Store) NewLease(opts LeaseOptions) (*Lease, error) {
	if !s.Postgres() {
		return nil, errors.New("store: a lease needs a PostgreSQL store")
	}
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Lease{st: s, opts: opts, log: opts.Logger, lost: make(chan struct{})}, nil
}

// TryAcquire makes one attempt to become the active gateway. When the
// lease is held by a gateway that stopped renewing it, it ends that
// gateway's database session, so the next attempt can succeed.
func (l *Lease) TryAcquire(ctx context.Context) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.epoch != 0 {
		return true, nil
	}
	conn, err := l.st.DB.Conn(ctx)
	if err != nil {
		return false, fmt.Errorf("lease: %w", err)
	}
	var got bool
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock(`+leaseKeys+`)`, leaseLock).Scan(&got); err != nil {
		conn.Close()
		return false, fmt.Errorf("lease: try the lock: %w", err)
	}
	if !got {
		err := l.endStalledHolder(ctx, conn)
		conn.Close()
		return false, err
	}
	var epoch int64
	err = func() error {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if err := tx.QueryRowContext(ctx, `INSERT INTO store_lease (id, holder, address, epoch, renewed_at) VALUES (1, ?, '', 1, `+dbMillis+`)
			ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, address = '', epoch = store_lease.epoch + 1, renewed_at = excluded.renewed_at
			RETURNING epoch`, l.opts.Holder).Scan(&epoch); err != nil {
			return err
		}
		return tx.Commit()
	}()
	if err != nil {
		// Closing the connection frees the lock for another try.
		conn.Raw(func(any) error { return errBadConn })
		conn.Close()
		return false, fmt.Errorf("lease: take the epoch: %w", err)
	}
	l.conn, l.epoch = conn, epoch
	l.st.fence.Store(epoch)
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	go l.renew(l.stop, l.done)
	l.log.Info("this gateway is the active one", "epoch", epoch, "holder", l.opts.Holder)
	return true, nil
}

// endStalledHolder terminates the session holding the lock when its
// renewals are older than the timeout.
func (l *Lease) endStalledHolder(ctx context.Context, conn *sql.Conn) error {
	var holder string
	var age int64
	err := conn.QueryRowContext(ctx, `SELECT holder, `+dbMillis+` - renewed_at FROM store_lease WHERE id = 1`).Scan(&holder, &age)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // the holder is between its lock and its epoch
	}
	if err != nil {
		return fmt.Errorf("lease: read the holder: %w", err)
	}
	if time.Duration(age)*time.Millisecond <= l.opts.Timeout {
		return nil
	}
	var ended int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_locks WHERE `+heldLease+`) t`, leaseLock).Scan(&ended); err != nil {
		return fmt.Errorf("lease: end the stalled holder %q: %w", holder, err)
	}
	l.log.Warn("the active gateway stopped renewing its lease; ended its database session", "holder", holder, "since", time.Duration(age)*time.Millisecond, "sessions", ended)
	return nil
}

// Wait tries to become the active gateway every interval until it is,
// or ctx ends. Errors (the database away for a while) are logged and
// tried again.
func (l *Lease) Wait(ctx context.Context) error {
	t := time.NewTicker(l.opts.Interval)
	defer t.Stop()
	for {
		ok, err := l.TryAcquire(ctx)
		if ok {
			return nil
		}
		if err != nil && ctx.Err() == nil {
			l.log.Warn("standby: could not try the lease", "err", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// renew keeps the lease fresh; a renewal that fails, or finds the epoch
// moved on, or does not succeed for the whole timeout, loses the lease.
func (l *Lease) renew(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(l.opts.Interval)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		// A renewal cut short by its deadline ends the driver's connection,
		// and with it the session that holds the lock: the deadline must
		// be far longer than a slow moment of the database, so a third of
		// the lease's timeout, not one interval.
		ctx, cancel := context.WithTimeout(context.Background(), max(l.opts.Interval, l.opts.Timeout/3))
		res, err := l.conn.ExecContext(ctx, `UPDATE store_lease SET renewed_at = `+dbMillis+` WHERE id = 1 AND epoch = ?`, l.epoch)
		cancel()
		var n int64
		if err == nil {
			n, err = res.RowsAffected()
		}
		switch {
		case err == nil && n == 1:
			last = time.Now()
			continue
		case err == nil:
			l.markLost("another gateway took the lease")
			return
		case time.Since(last) > l.opts.Timeout:
			l.markLost(fmt.Sprintf("renewals failed for %s: %v", time.Since(last).Round(time.Second), err))
			return
		default:
			if errors.Is(err, errBadConn) || l.conn.PingContext(context.Background()) != nil {
				// The session that held the lock is gone, and the lock with it.
				l.markLost(fmt.Sprintf("the lease's database session ended: %v", err))
				return
			}
			l.log.Warn("lease renewal failed; trying again", "err", err)
		}
	}
}

func (l *Lease) markLost(why string) {
	l.lostOnce.Do(func() {
		// No write of this store passes the fence from here on.
		l.st.fence.Store(-1)
		l.log.Error("this gateway lost its lease and is no longer the active one", "reason", why)
		close(l.lost)
	})
}

// Lost is closed when the lease is lost after being acquired.
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// Epoch is the fencing epoch of this gateway's tenure, 0 before it.
func (l *Lease) Epoch() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.epoch
}

// SetAddress records where clients reach the active gateway, for the
// standbys to point them there.
func (l *Lease) SetAddress(ctx context.Context, addr string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return errors.New("lease: not held")
	}
	_, err := l.conn.ExecContext(ctx, `UPDATE store_lease SET address = ? WHERE id = 1 AND epoch = ?`, addr, l.epoch)
	return err
}

// Release gives the lease up (a graceful stop): a standby takes over at
// its next try instead of after the holder's session ends.
func (l *Lease) Release(ctx context.Context) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return
	}
	close(l.stop)
	<-l.done
	l.st.fence.Store(-1)
	_, _ = l.conn.ExecContext(ctx, `SELECT pg_advisory_unlock(`+leaseKeys+`)`, leaseLock)
	l.conn.Close()
	l.conn = nil
}

// LeaseHolder reads who holds the lease; ok is false when no gateway has
// been active on this database yet.
func (s *Store) LeaseHolder(ctx context.Context) (info LeaseInfo, ok bool, err error) {
	if !s.Postgres() {
		return LeaseInfo{}, false, nil
	}
	var age int64
	err = s.DB.QueryRowContext(ctx, `SELECT holder, address, epoch, `+dbMillis+` - renewed_at FROM store_lease WHERE id = 1`).Scan(&info.Holder, &info.Address, &info.Epoch, &age)
	if errors.Is(err, sql.ErrNoRows) {
		return LeaseInfo{}, false, nil
	}
	if err != nil {
		return LeaseInfo{}, false, fmt.Errorf("read the lease: %w", err)
	}
	info.Age = time.Duration(age) * time.Millisecond
	return info, true, nil
}
