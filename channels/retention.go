package channels

import (
	"context"
	"fmt"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store"
)

// redeliveryWindow is how long a finished inbound row is kept whatever the
// row cap says, because its unique event id is what turns a redelivery
// into a no-op. Telegram keeps an update it thinks undelivered for 24
// hours (our offset acknowledgement can be lost with the process), Slack
// retries an Events API delivery within minutes, Discord replays on resume
// within its session; twice the longest of these leaves room for a
// gateway that was down when the redelivery came.
const redeliveryWindow = 48 * time.Hour

// LedgerRetention says how long finished rows of the message ledger
// (channel_inbound, channel_outbound) stay. Unfinished rows (an inbound
// event not yet answered, a reply not yet sent) always stay: nothing
// accepted is lost.
type LedgerRetention struct {
	MaxAge  time.Duration // finished rows older than this go; 0 keeps them
	MaxRows int           // finished rows per table past this go, oldest first; 0 is no cap
}

// finished statuses, as the tables write them.
const (
	inboundFinished  = `status IN ('answered', 'dropped', 'failed')`
	outboundFinished = `status IN ('sent', 'failed', 'unknown')`
	// An inbound row a pending reply points at stays with it.
	inboundNotAwaited = `id NOT IN (SELECT inbound_id FROM channel_outbound WHERE status IN ('pending', 'sending') AND inbound_id IS NOT NULL)`
)

// SweepLedger deletes at most limit finished ledger rows that r lets go,
// the oldest first, in one short transaction, and says how many it
// deleted; a caller that got limit back calls again until it gets less.
func (m *Manager) SweepLedger(ctx context.Context, now time.Time, r LedgerRetention, limit int) (int, error) {
	n, err := m.db.sweepLedger(ctx, now, r, limit)
	if err != nil {
		return n, fmt.Errorf("sweep channel ledger: %w", err)
	}
	return n, nil
}

func (d db) sweepLedger(ctx context.Context, now time.Time, r LedgerRetention, limit int) (int, error) {
	deleted := 0
	err := d.tx(ctx, func(c store.Conn) error {
		// The cap never takes a row a redelivery may still need, unless
		// the operator chose an age shorter than that.
		floor := redeliveryWindow
		if r.MaxAge > 0 && r.MaxAge < floor {
			floor = r.MaxAge
		}
		steps := []struct {
			table, finished string
		}{
			{"channel_inbound", inboundFinished + " AND " + inboundNotAwaited},
			{"channel_outbound", outboundFinished},
		}
		for _, st := range steps {
			if r.MaxAge > 0 && deleted < limit {
				n, err := deleteOldest(ctx, c, st.table, st.finished, now.Add(-r.MaxAge).UnixMilli(), limit-deleted)
				if err != nil {
					return err
				}
				deleted += n
			}
			if r.MaxRows > 0 && deleted < limit {
				var count int
				if err := c.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+st.table+` WHERE `+st.finished).Scan(&count); err != nil {
					return fmt.Errorf("count %s: %w", st.table, err)
				}
				if excess := count - r.MaxRows; excess > 0 {
					n, err := deleteOldest(ctx, c, st.table, st.finished, now.Add(-floor).UnixMilli(), min(excess, limit-deleted))
					if err != nil {
						return err
					}
					deleted += n
				}
			}
		}
		return nil
	})
	return deleted, err
}

// deleteOldest deletes up to n rows of table matching where and last
// changed before cutoff (unix ms), lowest id first.
func deleteOldest(ctx context.Context, c store.Conn, table, where string, cutoff int64, n int) (int, error) {
	res, err := c.ExecContext(ctx, `DELETE FROM `+table+` WHERE id IN (SELECT id FROM `+table+` WHERE `+where+
		` AND updated_at < ? ORDER BY id LIMIT ?)`, cutoff, n)
	if err != nil {
		return 0, fmt.Errorf("delete from %s: %w", table, err)
	}
	k, _ := res.RowsAffected()
	return int(k), nil
}
