package channels

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/store/storetest"
)

// ledgerRow is one row the sweep tests seed: age is how long ago it last
// changed.
type ledgerRow struct {
	table  string // "in" or "out"
	id     int64
	status string
	age    time.Duration
	awaits int64 // out: the inbound row this reply is for
}

func seedLedger(t *testing.T, rows []ledgerRow, now time.Time) db {
	t.Helper()
	st, err := openTestStore(t, storetest.Place(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, r := range rows {
		at := now.Add(-r.age).UnixMilli()
		var err error
		if r.table == "in" {
			_, err = st.DB.Exec(`INSERT INTO channel_inbound (id, channel, account_id, event_id, chat_id, payload, status, created_at, updated_at)
				VALUES (?, 'telegram', 'default', ?, 'c', '{}', ?, ?, ?)`, r.id, fmt.Sprint("ev", r.id), r.status, at, at)
		} else {
			var inbound any
			if r.awaits != 0 {
				inbound = r.awaits
			}
			_, err = st.DB.Exec(`INSERT INTO channel_outbound (id, idem_key, channel, account_id, payload, status, inbound_id, created_at, updated_at)
				VALUES (?, ?, 'telegram', 'default', '{}', ?, ?, ?, ?)`, r.id, fmt.Sprint("k", r.id), r.status, inbound, at, at)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return newDB(st.DB)
}

func ledgerIDs(t *testing.T, d db, table string) []int64 {
	t.Helper()
	rows, err := d.sql.Query(`SELECT id FROM ` + table + ` ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

func TestSweepLedger(t *testing.T) {
	day := 24 * time.Hour
	year := 365 * day
	tests := []struct {
		name            string
		rows            []ledgerRow
		keep            LedgerRetention
		limit           int
		wantDeleted     int
		wantIn, wantOut []int64
	}{
		{
			name: "old finished rows go, young and unfinished stay",
			rows: []ledgerRow{
				{"in", 1, "answered", 8 * day, 0}, {"in", 2, "dropped", 8 * day, 0}, {"in", 3, "failed", 8 * day, 0},
				{"in", 4, "pending", year, 0}, {"in", 5, "answered", time.Hour, 0},
				{"out", 1, "sent", 8 * day, 1}, {"out", 2, "failed", 8 * day, 2}, {"out", 3, "pending", year, 0},
				{"out", 4, "sent", time.Hour, 5},
			},
			keep: LedgerRetention{MaxAge: 7 * day}, limit: 100, wantDeleted: 5,
			wantIn: []int64{4, 5}, wantOut: []int64{3, 4},
		},
		{
			name: "an answered row a pending reply is for stays",
			rows: []ledgerRow{
				{"in", 1, "answered", year, 0}, {"in", 2, "answered", year, 0},
				{"out", 1, "pending", year, 1}, {"out", 2, "sent", year, 2},
			},
			keep: LedgerRetention{MaxAge: day}, limit: 100, wantDeleted: 2,
			wantIn: []int64{1}, wantOut: []int64{1},
		},
		{
			name: "stops at the batch size, oldest id first",
			rows: []ledgerRow{
				{"in", 1, "answered", 9 * day, 0}, {"in", 2, "answered", 9 * day, 0}, {"in", 3, "answered", 9 * day, 0},
				{"out", 1, "sent", 9 * day, 0},
			},
			keep: LedgerRetention{MaxAge: day}, limit: 2, wantDeleted: 2,
			wantIn: []int64{3}, wantOut: []int64{1},
		},
		{
			name: "the cap keeps the newest finished rows and never counts pending",
			rows: []ledgerRow{
				{"in", 1, "answered", 5 * day, 0}, {"in", 2, "answered", 4 * day, 0}, {"in", 3, "pending", 4 * day, 0},
				{"in", 4, "answered", 3 * day, 0}, {"in", 5, "answered", 3 * day, 0},
				{"out", 1, "sent", 5 * day, 0}, {"out", 2, "sent", 4 * day, 0}, {"out", 3, "pending", 4 * day, 0},
			},
			keep: LedgerRetention{MaxAge: 30 * day, MaxRows: 2}, limit: 100, wantDeleted: 2,
			wantIn: []int64{3, 4, 5}, wantOut: []int64{1, 2, 3},
		},
		{
			name: "the cap never takes a row inside the redelivery window",
			rows: []ledgerRow{
				{"in", 1, "answered", 3 * day, 0}, {"in", 2, "answered", time.Hour, 0}, {"in", 3, "answered", time.Minute, 0},
			},
			keep: LedgerRetention{MaxAge: 30 * day, MaxRows: 1}, limit: 100, wantDeleted: 1,
			wantIn: []int64{2, 3},
		},
		{
			name: "a retention shorter than the window lowers it",
			rows: []ledgerRow{
				{"in", 1, "answered", 2 * time.Minute, 0}, {"in", 2, "answered", time.Minute / 2, 0},
			},
			keep: LedgerRetention{MaxAge: time.Minute}, limit: 100, wantDeleted: 1,
			wantIn: []int64{2},
		},
		{
			name: "no age and no cap keep everything",
			rows: []ledgerRow{{"in", 1, "answered", year, 0}, {"out", 1, "sent", year, 0}},
			keep: LedgerRetention{}, limit: 100, wantDeleted: 0,
			wantIn: []int64{1}, wantOut: []int64{1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Now()
			d := seedLedger(t, tt.rows, now)
			n, err := d.sweepLedger(context.Background(), now, tt.keep, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if n != tt.wantDeleted {
				t.Errorf("deleted %d, want %d", n, tt.wantDeleted)
			}
			if got := ledgerIDs(t, d, "channel_inbound"); !slices.Equal(got, tt.wantIn) {
				t.Errorf("inbound left %v, want %v", got, tt.wantIn)
			}
			if got := ledgerIDs(t, d, "channel_outbound"); !slices.Equal(got, tt.wantOut) {
				t.Errorf("outbound left %v, want %v", got, tt.wantOut)
			}
		})
	}
}

// TestSweepLedgerCapHolds: many finished rows, swept batch by batch until
// the sweep says it is done, end at the cap.
func TestSweepLedgerCapHolds(t *testing.T) {
	now := time.Now()
	var rows []ledgerRow
	for i := int64(1); i <= 250; i++ {
		rows = append(rows, ledgerRow{"in", i, "answered", 10 * 24 * time.Hour, 0}, ledgerRow{"out", i, "sent", 10 * 24 * time.Hour, 0})
	}
	d := seedLedger(t, rows, now)
	keep := LedgerRetention{MaxRows: 40}
	for range 100 {
		n, err := d.sweepLedger(context.Background(), now, keep, 32)
		if err != nil {
			t.Fatal(err)
		}
		if n > 32 {
			t.Fatalf("a batch deleted %d rows, more than 32", n)
		}
		if n < 32 {
			break
		}
	}
	for _, table := range []string{"channel_inbound", "channel_outbound"} {
		ids := ledgerIDs(t, d, table)
		if len(ids) != 40 || ids[0] != 211 {
			t.Errorf("%s kept %d rows from id %v, want the newest 40", table, len(ids), ids[:min(1, len(ids))])
		}
	}
}
