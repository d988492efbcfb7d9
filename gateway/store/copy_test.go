package store_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/gateway/cron"
	"github.com/openclaw-go/openclaw/gateway/devices"
	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
	"github.com/openclaw-go/openclaw/tools/memory"
	"github.com/openclaw-go/openclaw/tools/wiki"
)

func copyMigrations() []store.Migrations {
	return []store.Migrations{devices.Migrations(), sessions.Migrations(), memory.Migrations(), wiki.Migrations(),
		channels.Migrations(), cron.Migrations()}
}

// populate fills a SQLite store the way a gateway would: sessions with a
// transcript (and a retired one, ordered by rowid), a paired device and
// its token, cron jobs and runs, channel queue rows, memory chunks and
// wiki pages (through the wiki's own store).
func populate(t *testing.T, st *store.Store) {
	t.Helper()
	ctx := context.Background()
	stmts := []string{
		`INSERT INTO sessions(key, session_id, agent_id, kind, created_at, started_at, updated_at, message_count) VALUES
			('agent:main:main', 's-1', 'main', 'direct', 1, 2, 3, 2), ('agent:main:other', 's-2', 'main', 'direct', 4, 5, 6, 0)`,
		`INSERT INTO transcript_messages(session_id, seq, role, content, created_at) VALUES
			('s-1', 1, 'user', '{"text":"hello"}', 10), ('s-1', 2, 'assistant', '{"text":"hi there"}', 11)`,
		`INSERT INTO retired_sessions(session_id, key, agent_id, started_at, retired_at, reason) VALUES
			('old-b', 'agent:main:main', 'main', 1, 2, 'reset'), ('old-a', 'agent:main:main', 'main', 1, 3, 'reset')`,
		`INSERT INTO devices(device_id, public_key, display_name, created_at, approved_at) VALUES ('dev-1', 'pk', 'Laptop', 1, 2)`,
		`INSERT INTO device_tokens(device_id, role, token_hash, issued_at) VALUES ('dev-1', 'operator', 'hash', 3)`,
		`INSERT INTO auth_failures(at, remote_ip, code) VALUES (5, '10.0.0.1', 'bad_token'), (6, '10.0.0.2', 'bad_token')`,
		`INSERT INTO cron_jobs(id, spec, next_run_at, created_at, updated_at) VALUES ('job-1', '{"name":"daily"}', 100, 1, 2), ('job-2', '{}', NULL, 1, 2)`,
		`INSERT INTO cron_runs(run_id, job_id, trigger, scheduled_at, started_at, ended_at, status) VALUES ('r1', 'job-1', 'schedule', 1, 2, 3, 'ok')`,
		`INSERT INTO channel_inbound(id, channel, account_id, event_id, chat_id, payload, created_at, updated_at) VALUES
			(7, 'telegram', 'default', 'e1', 'c1', '{}', 1, 1), (9, 'telegram', 'default', 'e2', 'c1', '{}', 2, 2)`,
		`INSERT INTO channel_outbound(idem_key, channel, account_id, payload, inbound_id, created_at, updated_at) VALUES ('k1', 'telegram', 'default', '{}', 7, 1, 1)`,
		`INSERT INTO channel_session_routes(session_key, channel, account_id, chat_id, chat_kind, updated_at) VALUES
			('agent:main:z', 'telegram', 'default', 'c1', 'direct', 1), ('agent:main:a', 'telegram', 'default', 'c2', 'direct', 2)`,
		`INSERT INTO memory_files(agent_id, path, size, mtime_ns) VALUES ('main', 'MEMORY.md', 10, 20)`,
		`INSERT INTO memory_chunks(id, agent_id, path, chunk, start_line, end_line, body) VALUES
			(3, 'main', 'MEMORY.md', 0, 1, 2, 'The gateway keeps a café journal'), (5, 'main', 'MEMORY.md', 1, 3, 4, 'Zebras migrate in summer')`,
		`INSERT INTO wiki_embeddings(agent_id, slug, model, hash, vec) VALUES ('main', 'zebras', 'm', 'h', X'00ff10')`,
	}
	for _, q := range stmts {
		if _, err := st.DB.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	w := wiki.NewStore(st.DB)
	for _, p := range []wiki.Page{
		{Slug: "zebras", Title: "Zebras", Body: "Striped animals that migrate; see [[savanna]]."},
		{Slug: "savanna", Title: "Savanna", Body: "Grassland where zebras live."},
	} {
		if _, err := w.Put(ctx, "main", p, []wiki.Source{{Ref: "https://example.org/" + p.Slug, Body: "source of " + p.Slug}}, false); err != nil {
			t.Fatal(err)
		}
	}
}

// dump is every table's rows as text, sorted, over the columns the
// SQLite schema names (PostgreSQL's extra rowid and tsvector columns are
// the engine's own).
func dump(t *testing.T, ref, st *store.Store) map[string][]string {
	t.Helper()
	ctx := context.Background()
	rows, err := ref.DB.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'
		AND name <> 'schema_versions' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE '%_fts_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	out := map[string][]string{}
	for _, table := range tables {
		var cols []string
		cr, err := ref.DB.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
		if err != nil {
			t.Fatal(err)
		}
		for cr.Next() {
			var c string
			cr.Scan(&c)
			cols = append(cols, `"`+c+`"`)
		}
		cr.Close()
		r, err := st.DB.QueryContext(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM `+table)
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		lines := []string{}
		for r.Next() {
			if err := r.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, v := range vals {
				if b, ok := v.([]byte); ok {
					v = fmt.Sprintf("%x", b)
				}
				parts = append(parts, fmt.Sprint(v))
			}
			lines = append(lines, strings.Join(parts, "|"))
		}
		r.Close()
		sort.Strings(lines)
		out[table] = lines
	}
	return out
}

// searches are what a user would search for: memory chunk ids and wiki
// slugs, on either engine.
func searches(t *testing.T, st *store.Store) map[string][]string {
	t.Helper()
	ctx := context.Background()
	out := map[string][]string{}
	memQ := `SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rowid`
	if st.Postgres() {
		memQ = `SELECT id FROM memory_chunks WHERE body_tsv @@ to_tsquery('simple', ?) ORDER BY id`
	}
	for _, term := range []string{"cafe", "zebras", "journal"} {
		r, err := st.DB.QueryContext(ctx, memQ, term)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for r.Next() {
			var id int64
			r.Scan(&id)
			ids = append(ids, fmt.Sprint(id))
		}
		r.Close()
		out["memory:"+term] = ids
	}
	w := wiki.NewStore(st.DB)
	for _, q := range []string{"zebras", "grassland", "striped animals"} {
		hits, err := w.SearchQuery(ctx, "main", q, false, 10)
		if err != nil {
			t.Fatal(err)
		}
		var slugs []string
		for _, h := range hits {
			slugs = append(slugs, h.Slug)
		}
		sort.Strings(slugs)
		out["wiki:"+q] = slugs
	}
	return out
}

func rowidOrder(t *testing.T, st *store.Store) []string {
	t.Helper()
	r, err := st.DB.QueryContext(context.Background(), `SELECT session_id FROM retired_sessions ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []string
	for r.Next() {
		var s string
		r.Scan(&s)
		out = append(out, s)
	}
	return out
}

func openSQLite(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), store.FileName), copyMigrations()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestCopyRoundTrip: SQLite to PostgreSQL and back to a new SQLite file;
// every row and every search answer is the same at each step, the
// PostgreSQL ids count on after the copied ones, and a second copy with
// Replace gives the same result.
func TestCopyRoundTrip(t *testing.T) {
	ctx := context.Background()
	opts := store.CopyOptions{Migrations: copyMigrations()}
	src := openSQLite(t)
	populate(t, src)
	want, wantSearch, wantOrder := dump(t, src, src), searches(t, src), rowidOrder(t, src)
	if len(wantSearch["memory:cafe"]) != 1 || len(wantSearch["wiki:zebras"]) != 2 {
		t.Fatalf("the fixture's searches find %v", wantSearch)
	}

	pg, err := store.OpenPostgres(ctx, pgtest.URL(t), copyMigrations()...)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	rep, err := store.Copy(ctx, src, pg, opts)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for _, tc := range rep.Tables {
		counts[tc.Table] = tc.Rows
	}
	if counts["transcript_messages"] != 2 || counts["wiki_pages"] != 2 || counts["device_tokens"] != 1 || counts["memory_chunks"] != 2 {
		t.Fatalf("report %+v", rep.Tables)
	}
	check := func(name string, st *store.Store) {
		t.Helper()
		if got := dump(t, src, st); !reflect.DeepEqual(got, want) {
			t.Errorf("%s rows differ:\ngot  %v\nwant %v", name, got, want)
		}
		if got := searches(t, st); !reflect.DeepEqual(got, wantSearch) {
			t.Errorf("%s searches: got %v, want %v", name, got, wantSearch)
		}
		if got := rowidOrder(t, st); !reflect.DeepEqual(got, wantOrder) {
			t.Errorf("%s rowid order %v, want %v", name, got, wantOrder)
		}
	}
	check("postgres", pg)

	// Again, with Replace: the same.
	if _, err := store.Copy(ctx, src, pg, store.CopyOptions{Migrations: copyMigrations(), Replace: true}); err != nil {
		t.Fatal(err)
	}
	check("postgres after --replace", pg)

	back := openSQLite(t)
	if _, err := store.Copy(ctx, pg, back, opts); err != nil {
		t.Fatal(err)
	}
	check("sqlite copy", back)
	if _, err := store.Copy(ctx, pg, back, store.CopyOptions{Migrations: copyMigrations(), Replace: true}); err != nil {
		t.Fatal(err)
	}
	check("sqlite copy after --replace", back)

	// The identity sequences follow the copied ids.
	var id int64
	if err := pg.DB.QueryRowContext(ctx, `INSERT INTO channel_inbound(channel, account_id, event_id, chat_id, payload, created_at, updated_at)
		VALUES ('telegram', 'default', 'e3', 'c1', '{}', 3, 3) RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if id != 10 {
		t.Fatalf("new id %d after the copied 7 and 9, want 10", id)
	}
}

// TestCopySQLiteToSQLite: a file to file copy, with a dry run first that
// leaves the target empty.
func TestCopySQLiteToSQLite(t *testing.T) {
	ctx := context.Background()
	src := openSQLite(t)
	populate(t, src)
	dst := openSQLite(t)
	rep, err := store.Copy(ctx, src, dst, store.CopyOptions{Migrations: copyMigrations(), DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows() == 0 || !rep.DryRun {
		t.Fatalf("dry run report %+v", rep)
	}
	var n int
	dst.DB.QueryRow(`SELECT COUNT(*) FROM sessions`).Scan(&n)
	if n != 0 {
		t.Fatalf("the dry run left %d sessions", n)
	}
	if _, err := store.Copy(ctx, src, dst, store.CopyOptions{Migrations: copyMigrations()}); err != nil {
		t.Fatal(err)
	}
	if got, want := dump(t, src, dst), dump(t, src, src); !reflect.DeepEqual(got, want) {
		t.Fatalf("rows differ:\ngot  %v\nwant %v", got, want)
	}
	if got, want := searches(t, dst), searches(t, src); !reflect.DeepEqual(got, want) {
		t.Fatalf("searches: got %v, want %v", got, want)
	}
}

// TestCopyRefusals: a target with rows (unless Replace), a source newer
// than this binary, and a store copied onto itself.
func TestCopyRefusals(t *testing.T) {
	ctx := context.Background()
	opts := store.CopyOptions{Migrations: copyMigrations()}
	src := openSQLite(t)
	populate(t, src)
	dst := openSQLite(t)
	if _, err := dst.DB.Exec(`INSERT INTO cron_jobs(id, spec, created_at, updated_at) VALUES ('mine', '{}', 1, 1)`); err != nil {
		t.Fatal(err)
	}
	_, err := store.Copy(ctx, src, dst, opts)
	if !errors.Is(err, store.ErrTargetNotEmpty) || !strings.Contains(err.Error(), "cron_jobs (1)") || !strings.Contains(err.Error(), "--replace") {
		t.Fatalf("non-empty target: %v", err)
	}
	var n int
	dst.DB.QueryRow(`SELECT COUNT(*) FROM cron_jobs WHERE id = 'mine'`).Scan(&n)
	if n != 1 {
		t.Fatal("the refused copy changed the target")
	}

	if _, err := store.Copy(ctx, src, src, opts); err == nil || !strings.Contains(err.Error(), "both the source and the target") {
		t.Fatalf("onto itself: %v", err)
	}

	newer := openSQLite(t)
	if _, err := newer.DB.Exec(`INSERT INTO schema_versions(component, version, name) VALUES ('cron', 99, '099_future.sql')`); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Copy(ctx, newer, openSQLite(t), opts); err == nil || !strings.Contains(err.Error(), "newer than this openclaw's") {
		t.Fatalf("newer source: %v", err)
	}
	if _, err := newer.DB.Exec(`DELETE FROM schema_versions WHERE version = 99; INSERT INTO schema_versions(component, version, name) VALUES ('future', 1, '001_x.sql')`); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Copy(ctx, newer, openSQLite(t), opts); err == nil || !strings.Contains(err.Error(), "does not know") {
		t.Fatalf("unknown component: %v", err)
	}
}

// TestSnapshotSQLite: the snapshot holds the rows and leaves the source
// as it was.
func TestSnapshotSQLite(t *testing.T) {
	ctx := context.Background()
	src := openSQLite(t)
	populate(t, src)
	dst := filepath.Join(t.TempDir(), "snap.sqlite")
	if err := store.SnapshotSQLite(ctx, src.Path, dst); err != nil {
		t.Fatal(err)
	}
	snap, err := store.Open(ctx, dst, copyMigrations()...)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if got, want := dump(t, src, snap), dump(t, src, src); !reflect.DeepEqual(got, want) {
		t.Fatalf("snapshot rows differ")
	}
	if err := store.SnapshotSQLite(ctx, filepath.Join(t.TempDir(), "none.sqlite"), filepath.Join(t.TempDir(), "x")); err == nil || !strings.Contains(err.Error(), "no database at") {
		t.Fatalf("missing source: %v", err)
	}
}

// TestCopyLeavesOtherTables: a table no component owns is reported as
// skipped on the source and never counted or emptied on the target.
func TestCopyLeavesOtherTables(t *testing.T) {
	ctx := context.Background()
	src := openSQLite(t)
	populate(t, src)
	dst := openSQLite(t)
	for _, st := range []*store.Store{src, dst} {
		if _, err := st.DB.Exec(`CREATE TABLE whatsmeow_device(jid TEXT PRIMARY KEY); INSERT INTO whatsmeow_device VALUES ('x')`); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := store.Copy(ctx, src, dst, store.CopyOptions{Migrations: copyMigrations(), Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.Skipped, []string{"whatsmeow_device"}) {
		t.Fatalf("skipped %v", rep.Skipped)
	}
	var n int
	dst.DB.QueryRow(`SELECT COUNT(*) FROM whatsmeow_device`).Scan(&n)
	if n != 1 {
		t.Fatalf("the target's own table has %d rows, want its 1", n)
	}
}

// TestOpenCopySource: a SQLite source is a snapshot under the file's
// name, migrated there, the file itself untouched; a file that is no
// gateway's database, or none, is refused.
func TestOpenCopySource(t *testing.T) {
	ctx := context.Background()
	old := filepath.Join(t.TempDir(), store.FileName)
	st, err := store.Open(ctx, old, devices.Migrations()) // an install that predates the other components
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	src, closeSrc, err := store.OpenCopySource(ctx, old, copyMigrations()...)
	if err != nil {
		t.Fatal(err)
	}
	if src.Path != old {
		t.Fatalf("path %q, want %q", src.Path, old)
	}
	if v, _ := src.Version(ctx, "cron"); v == 0 {
		t.Fatal("the snapshot was not migrated")
	}
	closeSrc()
	st, err = store.Open(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := st.Version(ctx, "cron"); v != 0 {
		t.Fatalf("the source itself was migrated to cron %d", v)
	}
	st.Close()

	other := filepath.Join(t.TempDir(), "other.sqlite")
	o, err := store.Open(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	o.DB.Exec(`DROP TABLE schema_versions`)
	o.Close()
	if _, _, err := store.OpenCopySource(ctx, other, copyMigrations()...); err == nil || !strings.Contains(err.Error(), "not an openclaw database") {
		t.Fatalf("foreign file: %v", err)
	}
	if _, _, err := store.OpenCopySource(ctx, filepath.Join(t.TempDir(), "none.sqlite"), copyMigrations()...); err == nil || !strings.Contains(err.Error(), "no database at") {
		t.Fatalf("missing file: %v", err)
	}
}
