package migrate

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/agents/sessions"
	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/telegram"
	"github.com/openclaw-go/openclaw/gateway/cron"
	"github.com/openclaw-go/openclaw/gateway/devices"
	"github.com/openclaw-go/openclaw/gateway/store"
	"github.com/openclaw-go/openclaw/nodes"
	"github.com/openclaw-go/openclaw/tools/execapprovals"
)

// Source paths inside an OpenClaw state directory.
const (
	sourceConfig    = "openclaw.json"
	sourceDB        = "state/openclaw.sqlite"
	approvalsFile   = "exec-approvals.json"
	whatsappCreds   = "credentials/whatsapp"
	agentsDir       = "agents"
	approvalsRowKey = "current"
)

// Action is what an import does with one item.
type Action string

const (
	// ActionImport: the item is imported.
	ActionImport Action = "import"
	// ActionSkip: nothing to do (already there, or ours is kept).
	ActionSkip Action = "skip"
	// ActionCannot: this cut cannot import it; Note says what to do.
	ActionCannot Action = "cannot"
)

// Item is one line of a plan.
type Item struct {
	Name   string `json:"item"`
	Count  int    `json:"count"`
	Action Action `json:"action"`
	// Note says why an item is skipped, or, for ActionCannot, why and the
	// step the user must take.
	Note string `json:"note,omitempty"`

	apply func(ctx context.Context, db *sql.DB) error
}

// Paths are where the import reads from and writes to.
type Paths struct {
	From       string // the OpenClaw state directory
	StateDir   string // ours
	ConfigPath string // ours
}

// Plan is what an import would do.
type Plan struct {
	Paths Paths
	Items []Item
}

// Pending reports whether applying the plan would change anything.
func (p *Plan) Pending() bool {
	return slices.ContainsFunc(p.Items, func(it Item) bool { return it.Action == ActionImport })
}

// Installed reports whether dir holds an OpenClaw install: its state
// database (state/openclaw.sqlite). The gateway uses it to point a new
// user at `openclaw migrate`.
func Installed(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, sourceDB))
	return err == nil && st.Mode().IsRegular()
}

// MakePlan reads the source and our state and returns the plan. It writes
// nothing, to either.
func MakePlan(ctx context.Context, p Paths) (*Plan, error) {
	if st, err := os.Stat(p.From); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("migrate: %s is not an OpenClaw state directory", p.From)
	}
	hasConfig := fileExists(filepath.Join(p.From, sourceConfig))
	if !hasConfig && !Installed(p.From) {
		return nil, fmt.Errorf("migrate: %s has neither %s nor %s: not an OpenClaw state directory", p.From, sourceConfig, sourceDB)
	}
	plan := &Plan{Paths: p}
	plan.Items = append(plan.Items, planConfig(p))

	src, closeSource, err := openSource(ctx, filepath.Join(p.From, sourceDB))
	if err != nil {
		return nil, err
	}
	defer closeSource()
	ours, err := openOursReadOnly(ctx, filepath.Join(p.StateDir, store.FileName))
	if err != nil {
		return nil, err
	}
	if ours != nil {
		defer ours.Close()
	}
	devs, nds, err := readPaired(ctx, src)
	if err != nil {
		return nil, err
	}
	items, err := planDevices(ctx, ours, devs)
	if err != nil {
		return nil, err
	}
	plan.Items = append(plan.Items, items...)
	items, err = planNodes(ctx, ours, nds)
	if err != nil {
		return nil, err
	}
	plan.Items = append(plan.Items, items...)
	item, err := planApprovals(ctx, p, src)
	if err != nil {
		return nil, err
	}
	plan.Items = append(plan.Items, item)
	plan.Items = append(plan.Items, planWorkspaces(p)...)
	plan.Items = append(plan.Items, planMemory(p)...)
	now := time.Now()
	pairing, err := readPairing(ctx, src, now)
	if err != nil {
		return nil, err
	}
	if items, err = planPairing(ctx, ours, pairing); err != nil {
		return nil, err
	}
	plan.Items = append(plan.Items, items...)
	offs, noBot, err := readTelegramOffsets(ctx, src)
	if err != nil {
		return nil, err
	}
	if items, err = planTelegramOffsets(ctx, ours, offs, noBot); err != nil {
		return nil, err
	}
	plan.Items = append(plan.Items, items...)
	jobs, err := readCron(ctx, src, now)
	if err != nil {
		return nil, err
	}
	if items, err = planCron(ctx, ours, jobs, now); err != nil {
		return nil, err
	}
	plan.Items = append(plan.Items, items...)
	sess, err := readSessions(ctx, p.From)
	if err != nil {
		return nil, err
	}
	if items, err = planSessions(ctx, p, ours, sess); err != nil {
		return nil, err
	}
	plan.Items = append(plan.Items, items...)
	plan.Items = append(plan.Items, planLater(p)...)
	return plan, nil
}

// Apply does what the plan says. Our database is opened (and created)
// only when the plan imports into it.
func Apply(ctx context.Context, plan *Plan) error {
	var db *sql.DB
	for _, it := range plan.Items {
		if it.Action != ActionImport || it.apply == nil {
			continue
		}
		if db == nil {
			st, err := store.Open(ctx, filepath.Join(plan.Paths.StateDir, store.FileName), devices.Migrations(), nodes.Migrations(),
				channels.Migrations(), telegram.Migrations, sessions.Migrations(), cron.Migrations())
			if err != nil {
				return fmt.Errorf("migrate: open our state: %w", err)
			}
			defer st.Close()
			db = st.DB
		}
		if err := it.apply(ctx, db); err != nil {
			return fmt.Errorf("migrate: %s: %w", it.Name, err)
		}
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// sqliteReadOnly is the DSN of a database opened read-only: the source
// is never written, not even its WAL.
func sqliteReadOnly(path string) string {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Add("_pragma", "busy_timeout(5000)")
	return "file:" + path + "?" + q.Encode()
}

// openSource opens a snapshot of the source database; nil when it has
// none. SQLite updates a WAL database's -shm index even for a read-only
// reader, so the database and its -wal are copied to a temporary
// directory and the copy is opened read-only (mode=ro): the source's
// files are only ever read. close removes the snapshot.
func openSource(ctx context.Context, path string) (db *sql.DB, closeFn func(), err error) {
	if !fileExists(path) {
		return nil, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "openclaw-migrate-*")
	if err != nil {
		return nil, nil, fmt.Errorf("migrate: snapshot %s: %w", path, err)
	}
	cleanup := func() { os.RemoveAll(tmp) }
	snap := filepath.Join(tmp, filepath.Base(path))
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(path + suffix)
		if errors.Is(err, fs.ErrNotExist) && suffix != "" {
			continue
		}
		if err == nil {
			err = os.WriteFile(snap+suffix, data, 0o600)
		}
		if err != nil {
			cleanup()
			return nil, nil, fmt.Errorf("migrate: snapshot %s: %w", path+suffix, err)
		}
	}
	db, err = sql.Open("sqlite", sqliteReadOnly(snap))
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		cleanup()
		return nil, nil, fmt.Errorf("migrate: open %s: %w", path, err)
	}
	return db, func() { db.Close(); cleanup() }, nil
}

// openOursReadOnly opens our database read-only for planning; nil when it
// does not exist yet (then everything is new).
func openOursReadOnly(ctx context.Context, path string) (*sql.DB, error) {
	if !fileExists(path) {
		return nil, nil
	}
	db, err := sql.Open("sqlite", sqliteReadOnly(path))
	if err != nil {
		return nil, fmt.Errorf("migrate: open our state %s: %w", path, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate: open our state %s: %w", path, err)
	}
	return db, nil
}

// tableExists reports whether db has the table: the source's schema
// differs between versions, and our database may predate a component.
func tableExists(ctx context.Context, db *sql.DB, name string) (bool, error) {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?`, name).Scan(&n); err != nil {
		return false, fmt.Errorf("read schema: %w", err)
	}
	return n > 0, nil
}

// planConfig: the source's config becomes ours when we have none.
func planConfig(p Paths) Item {
	src := filepath.Join(p.From, sourceConfig)
	it := Item{Name: "config file"}
	if !fileExists(src) {
		it.Action, it.Note = ActionSkip, "the install has no "+sourceConfig
		return it
	}
	it.Count = 1
	if same, _ := samePath(src, p.ConfigPath); same {
		it.Action, it.Note = ActionSkip, "already there (the same file: "+p.ConfigPath+")"
		return it
	}
	if fileExists(p.ConfigPath) {
		a, errA := os.ReadFile(src)
		b, errB := os.ReadFile(p.ConfigPath)
		if errA == nil && errB == nil && bytes.Equal(a, b) {
			it.Action, it.Note = ActionSkip, "already there"
			return it
		}
		it.Action, it.Note = ActionSkip, "ours exists at "+p.ConfigPath+" and is kept; merge keys from "+src+" by hand if you want them"
		return it
	}
	it.Action, it.Note = ActionImport, "copied to "+p.ConfigPath
	it.apply = func(context.Context, *sql.DB) error {
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		return writeNew(p.ConfigPath, data)
	}
	return it
}

// samePath reports whether two paths name one file.
func samePath(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}

// writeNew writes a file that must not exist yet (mode 0600), through a
// temporary file so a crash leaves no half file.
func writeNew(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".migrate-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// Link, not rename: it fails if the file appeared meanwhile, so
	// nothing of ours is overwritten.
	return os.Link(tmp.Name(), path)
}

// pairedRow is one row of the source's device_pairing_paired.
type pairedRow struct {
	device  devices.ImportedDevice
	surface *nodeSurface
}

// nodeSurface is the source's node_surface_json.
type nodeSurface struct {
	DisplayName  string   `json:"displayName"`
	Version      string   `json:"version"`
	Caps         []string `json:"caps"`
	Commands     []string `json:"commands"`
	CreatedAtMs  int64    `json:"createdAtMs"`
	ApprovedAtMs int64    `json:"approvedAtMs"`
}

// sourceToken is one entry of the source's tokens_json.
type sourceToken struct {
	Token       string   `json:"token"`
	Role        string   `json:"role"`
	Scopes      []string `json:"scopes"`
	CreatedAtMs int64    `json:"createdAtMs"`
	RevokedAtMs int64    `json:"revokedAtMs"`
}

// readPaired reads the source's paired devices and their node pairings.
func readPaired(ctx context.Context, src *sql.DB) ([]pairedRow, []nodes.ImportedNode, error) {
	if src == nil {
		return nil, nil, nil
	}
	if ok, err := tableExists(ctx, src, "device_pairing_paired"); err != nil || !ok {
		return nil, nil, err
	}
	rows, err := src.QueryContext(ctx, `SELECT device_id, public_key, COALESCE(display_name,''), COALESCE(operator_label,''),
		COALESCE(platform,''), COALESCE(device_family,''), COALESCE(client_id,''), COALESCE(client_mode,''),
		COALESCE(role,''), COALESCE(roles_json,''), COALESCE(approved_scopes_json,''), COALESCE(scopes_json,''),
		COALESCE(remote_ip,''), COALESCE(tokens_json,''), COALESCE(node_surface_json,''),
		created_at_ms, approved_at_ms, COALESCE(last_seen_at_ms,0)
		FROM device_pairing_paired ORDER BY device_id`)
	if err != nil {
		return nil, nil, fmt.Errorf("migrate: read paired devices: %w", err)
	}
	defer rows.Close()
	var devs []pairedRow
	var nds []nodes.ImportedNode
	for rows.Next() {
		var d devices.ImportedDevice
		var role, rolesJSON, approvedScopes, scopes, tokensJSON, surfaceJSON string
		if err := rows.Scan(&d.DeviceID, &d.PublicKey, &d.DisplayName, &d.OperatorLabel, &d.Platform, &d.DeviceFamily,
			&d.ClientID, &d.ClientMode, &role, &rolesJSON, &approvedScopes, &scopes, &d.RemoteIP, &tokensJSON, &surfaceJSON,
			&d.CreatedAtMs, &d.ApprovedAtMs, &d.LastSeenAtMs); err != nil {
			return nil, nil, fmt.Errorf("migrate: read paired devices: %w", err)
		}
		d.Roles = jsonStrings(rolesJSON)
		if len(d.Roles) == 0 && role != "" {
			d.Roles = []string{role}
		}
		// What an operator approved; older rows have only what was asked.
		if approvedScopes != "" {
			d.Scopes = jsonStrings(approvedScopes)
		} else {
			d.Scopes = jsonStrings(scopes)
		}
		var toks map[string]sourceToken
		if tokensJSON != "" {
			if err := json.Unmarshal([]byte(tokensJSON), &toks); err != nil {
				return nil, nil, fmt.Errorf("migrate: device %s: tokens_json: %w", d.DeviceID, err)
			}
		}
		for key, t := range toks {
			if t.Role == "" {
				t.Role = key
			}
			d.Tokens = append(d.Tokens, devices.ImportedToken{Role: t.Role, Token: t.Token, Scopes: t.Scopes,
				CreatedAtMs: t.CreatedAtMs, RevokedAtMs: t.RevokedAtMs})
		}
		slices.SortFunc(d.Tokens, func(a, b devices.ImportedToken) int { return strings.Compare(a.Role, b.Role) })
		row := pairedRow{device: d}
		if surfaceJSON != "" {
			var s nodeSurface
			if err := json.Unmarshal([]byte(surfaceJSON), &s); err != nil {
				return nil, nil, fmt.Errorf("migrate: device %s: node_surface_json: %w", d.DeviceID, err)
			}
			row.surface = &s
			approved := s.ApprovedAtMs
			if approved == 0 {
				approved = d.ApprovedAtMs
			}
			name := s.DisplayName
			if name == "" {
				name = d.DisplayName
			}
			nds = append(nds, nodes.ImportedNode{NodeID: d.DeviceID, DisplayName: name, Platform: d.Platform,
				Version: s.Version, ClientID: d.ClientID, ClientMode: d.ClientMode, DeviceFamily: d.DeviceFamily,
				HasDevice: true, Caps: s.Caps, Commands: s.Commands, CreatedAtMs: d.CreatedAtMs, ApprovedAtMs: approved})
		}
		devs = append(devs, row)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("migrate: read paired devices: %w", err)
	}
	return devs, nds, nil
}

// jsonStrings decodes a JSON list of strings; anything else is empty.
func jsonStrings(s string) []string {
	var out []string
	if json.Unmarshal([]byte(s), &out) != nil {
		return nil
	}
	return out
}

// present counts the ids our database already has, through has; a nil
// database (none yet) or a missing table has none.
func present(ctx context.Context, ours *sql.DB, table string, ids []string, has func(context.Context, *sql.DB, string) (bool, error)) (map[string]bool, error) {
	out := map[string]bool{}
	if ours == nil {
		return out, nil
	}
	if ok, err := tableExists(ctx, ours, table); err != nil || !ok {
		return out, err
	}
	for _, id := range ids {
		ok, err := has(ctx, ours, id)
		if err != nil {
			return nil, err
		}
		out[id] = ok
	}
	return out, nil
}

func planDevices(ctx context.Context, ours *sql.DB, rows []pairedRow) ([]Item, error) {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.device.DeviceID
	}
	have, err := present(ctx, ours, "devices", ids, devices.Paired)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	var todo []devices.ImportedDevice
	for _, r := range rows {
		if !have[r.device.DeviceID] {
			todo = append(todo, r.device)
		}
	}
	const name = "paired devices (with their tokens)"
	return splitItems(name, len(rows), len(todo), "the devices reconnect without pairing again",
		func(ctx context.Context, db *sql.DB) error {
			for _, d := range todo {
				if _, err := devices.Import(ctx, db, d); err != nil {
					return err
				}
			}
			return nil
		}), nil
}

func planNodes(ctx context.Context, ours *sql.DB, nds []nodes.ImportedNode) ([]Item, error) {
	ids := make([]string, len(nds))
	for i, n := range nds {
		ids[i] = n.NodeID
	}
	have, err := present(ctx, ours, "nodes", ids, nodes.Known)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	var todo []nodes.ImportedNode
	for _, n := range nds {
		if !have[n.NodeID] {
			todo = append(todo, n)
		}
	}
	return splitItems("node pairings (approved commands)", len(nds), len(todo), "the nodes' approved commands stay approved",
		func(ctx context.Context, db *sql.DB) error {
			for _, n := range todo {
				if _, err := nodes.Import(ctx, db, n); err != nil {
					return err
				}
			}
			return nil
		}), nil
}

// splitItems is the lines of a counted item: the part to import and the
// part already there.
func splitItems(name string, total, todo int, importNote string, apply func(context.Context, *sql.DB) error) []Item {
	var out []Item
	if todo > 0 {
		out = append(out, Item{Name: name, Count: todo, Action: ActionImport, Note: importNote, apply: apply})
	}
	switch {
	case total-todo > 0:
		out = append(out, Item{Name: name, Count: total - todo, Action: ActionSkip, Note: "already there"})
	case total == 0:
		out = append(out, Item{Name: name, Action: ActionSkip, Note: "none in the install"})
	}
	return out
}

// planApprovals: the source's exec approvals document becomes our
// exec-approvals.json when we have none.
func planApprovals(ctx context.Context, p Paths, src *sql.DB) (Item, error) {
	it := Item{Name: "exec approvals"}
	raw, from, err := readApprovals(ctx, p.From, src)
	if err != nil {
		return it, err
	}
	if raw == nil {
		it.Action, it.Note = ActionSkip, "none in the install"
		return it, nil
	}
	it.Count = 1
	var f execapprovals.File
	if err := json.Unmarshal(raw, &f); err != nil {
		it.Action, it.Note = ActionCannot, fmt.Sprintf("%s does not parse (%v); set exec approvals again with `openclaw gateway call exec.approvals.set`", from, err)
		return it, nil
	}
	dst := filepath.Join(p.StateDir, approvalsFile)
	if same, _ := samePath(filepath.Join(p.From, approvalsFile), dst); same && from == filepath.Join(p.From, approvalsFile) {
		it.Action, it.Note = ActionSkip, "already there (the same file)"
		return it, nil
	}
	if cur, err := os.ReadFile(dst); err == nil {
		if jsonEqual(cur, raw) {
			it.Action, it.Note = ActionSkip, "already there"
		} else {
			it.Action, it.Note = ActionSkip, "ours exists at "+dst+" and is kept"
		}
		return it, nil
	}
	it.Action, it.Note = ActionImport, "written to "+dst
	it.apply = func(context.Context, *sql.DB) error { return writeNew(dst, raw) }
	return it, nil
}

// readApprovals returns the source's exec approvals document: the
// database row, else the older file; nil when there is none.
func readApprovals(ctx context.Context, dir string, src *sql.DB) ([]byte, string, error) {
	if src != nil {
		ok, err := tableExists(ctx, src, "exec_approvals_config")
		if err != nil {
			return nil, "", fmt.Errorf("migrate: %w", err)
		}
		if ok {
			var raw string
			err := src.QueryRowContext(ctx, `SELECT raw_json FROM exec_approvals_config WHERE config_key=?`, approvalsRowKey).Scan(&raw)
			switch {
			case err == nil:
				return []byte(raw), sourceDB + " (exec_approvals_config)", nil
			case !errors.Is(err, sql.ErrNoRows):
				return nil, "", fmt.Errorf("migrate: read exec approvals: %w", err)
			}
		}
	}
	path := filepath.Join(dir, approvalsFile)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		return data, path, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, "", nil
	}
	return nil, "", fmt.Errorf("migrate: read %s: %w", path, err)
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// planWorkspaces: the default workspace directories (workspace,
// workspace-<agentId>) are copied to ours when we have none of that name.
// Workspaces the config names by path stay where they are: the imported
// config points at them.
func planWorkspaces(p Paths) []Item {
	entries, _ := os.ReadDir(p.From)
	var todo, have []string
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || (name != "workspace" && !strings.HasPrefix(name, "workspace-")) {
			continue
		}
		if fileExists(filepath.Join(p.StateDir, name)) {
			have = append(have, name)
			continue
		}
		todo = append(todo, name)
	}
	return splitItems("agent workspaces (copied)", len(todo)+len(have), len(todo), strings.Join(todo, ", "),
		func(context.Context, *sql.DB) error {
			for _, name := range todo {
				if err := copyTree(filepath.Join(p.From, name), filepath.Join(p.StateDir, name)); err != nil {
					return err
				}
			}
			return nil
		})
}

// copyTree copies the directory src to dst, which must not exist:
// regular files with their modes, directories, and symbolic links as
// links. It copies into a temporary sibling first and renames it, so a
// failed copy never looks like a finished one.
func copyTree(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".migrate-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(tmp, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if rel == "." {
				return os.Chmod(tmp, info.Mode().Perm()|0o700)
			}
			return os.Mkdir(to, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, to)
		case d.Type().IsRegular():
			return copyFile(path, to, info.Mode().Perm())
		}
		return nil // sockets, devices, pipes: not workspace content
	})
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if fileExists(dst) {
		return fmt.Errorf("copy %s: %s appeared meanwhile; left as is", src, dst)
	}
	return os.Rename(tmp, dst)
}

func copyFile(src, dst string, perm fs.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, perm)
}

// planLater lists what cannot be carried over, with what to do.
func planLater(p Paths) []Item {
	var out []Item
	if accounts, _ := os.ReadDir(filepath.Join(p.From, whatsappCreds)); len(accounts) > 0 {
		n := 0
		for _, a := range accounts {
			if a.IsDir() {
				n++
			}
		}
		if n > 0 {
			out = append(out, Item{Name: "WhatsApp links", Count: n, Action: ActionCannot,
				Note: "the Baileys session cannot be carried over; link again with `openclaw channels login --channel whatsapp`"})
		}
	}
	agents, _ := os.ReadDir(filepath.Join(p.From, agentsDir))
	n := 0
	for _, a := range agents {
		if fileExists(filepath.Join(p.From, agentsDir, a.Name(), agentDBPath)) {
			n++
		}
	}
	if n > 0 {
		out = append(out, Item{Name: "model auth profiles", Count: n, Action: ActionCannot,
			Note: "kept per agent in OpenClaw's agent database; give model credentials in the config or the environment"})
	}
	return out
}
