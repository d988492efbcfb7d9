package migrate

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/openclaw-go/openclaw/channels"
	"github.com/openclaw-go/openclaw/channels/telegram"
)

// The channel state a switching user would otherwise lose: the senders an
// operator approved for DMs and the requests still waiting (rows of
// channel_pairing_allow_entries and channel_pairing_requests, keyed by
// channel and account), and Telegram's long-poll cursor (plugin_state_entries,
// namespace telegram.update-offsets, one entry per account).

// pairingNetworks are the networks whose pairing state we carry over:
// ours. Their sender ids are the ones our adapters put on a message
// (Telegram and Discord user ids, Slack user ids, WhatsApp E.164 numbers).
var pairingNetworks = map[string]bool{"telegram": true, "discord": true, "slack": true, "whatsapp": true}

// senderPrefixes are the prefixes an entry may carry before the id.
var senderPrefixes = []string{"telegram:", "tg:", "discord:", "slack:", "whatsapp:", "wa:", "user:"}

// maxIDLen bounds ids read from the source: a real id is far shorter,
// and anything longer is not one.
const maxIDLen = 256

// cleanID returns a source id fit to store, or "" when it is not one:
// empty, too long, or holding control characters.
func cleanID(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxIDLen || strings.ContainsFunc(s, unicode.IsControl) {
		return ""
	}
	return s
}

// senderID strips the prefixes OpenClaw allows before a sender id.
func senderID(entry string) string {
	s := strings.TrimSpace(entry)
	for again := true; again; {
		again = false
		for _, p := range senderPrefixes {
			if len(s) > len(p) && strings.EqualFold(s[:len(p)], p) {
				s, again = s[len(p):], true
			}
		}
	}
	return cleanID(s)
}

type pairingState struct {
	allows   []channels.ImportedAllow
	requests []channels.ImportedPairingRequest
	other    map[string]int // entries of networks we do not run, by network
	bad      int            // entries that are not ids
	expired  int            // requests past their hour
}

// readPairing reads the source's DM pairing state.
func readPairing(ctx context.Context, src *sql.DB, now time.Time) (pairingState, error) {
	st := pairingState{other: map[string]int{}}
	if src == nil {
		return st, nil
	}
	if ok, err := tableExists(ctx, src, "channel_pairing_allow_entries"); err != nil {
		return st, fmt.Errorf("migrate: %w", err)
	} else if ok {
		rows, err := src.QueryContext(ctx, `SELECT channel_key, account_id, entry, updated_at FROM channel_pairing_allow_entries
			ORDER BY channel_key, account_id, sort_order, entry`)
		if err != nil {
			return st, fmt.Errorf("migrate: read approved senders: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var ch, acct, entry string
			var at int64
			if err := rows.Scan(&ch, &acct, &entry, &at); err != nil {
				return st, fmt.Errorf("migrate: read approved senders: %w", err)
			}
			ch = strings.ToLower(strings.TrimSpace(ch))
			if !pairingNetworks[ch] {
				st.other[cleanName(ch)]++
				continue
			}
			a := channels.ImportedAllow{Channel: ch, AccountID: accountID(acct), SenderID: senderID(entry), ApprovedAtMs: at}
			if a.SenderID == "" || a.AccountID == "" {
				st.bad++
				continue
			}
			st.allows = append(st.allows, a)
		}
		if err := rows.Err(); err != nil {
			return st, fmt.Errorf("migrate: read approved senders: %w", err)
		}
	}
	if ok, err := tableExists(ctx, src, "channel_pairing_requests"); err != nil {
		return st, fmt.Errorf("migrate: %w", err)
	} else if ok {
		rows, err := src.QueryContext(ctx, `SELECT channel_key, account_id, request_id, code, created_at, last_seen_at,
			CASE WHEN length(CAST(meta_json AS BLOB)) <= 65536 THEN COALESCE(meta_json, '') ELSE '' END
			FROM channel_pairing_requests ORDER BY channel_key, account_id, created_at, request_id`)
		if err != nil {
			return st, fmt.Errorf("migrate: read pairing requests: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var ch, acct, id, code, created, seen, meta string
			if err := rows.Scan(&ch, &acct, &id, &code, &created, &seen, &meta); err != nil {
				return st, fmt.Errorf("migrate: read pairing requests: %w", err)
			}
			ch = strings.ToLower(strings.TrimSpace(ch))
			if !pairingNetworks[ch] {
				st.other[cleanName(ch)]++
				continue
			}
			createdAt, err1 := time.Parse(time.RFC3339Nano, created)
			seenAt, err2 := time.Parse(time.RFC3339Nano, seen)
			r := channels.ImportedPairingRequest{Channel: ch, AccountID: accountID(acct), SenderID: senderID(id),
				Code: strings.ToUpper(cleanID(code))}
			if err1 != nil || r.SenderID == "" || r.AccountID == "" || r.Code == "" || len(r.Code) > 32 {
				st.bad++
				continue
			}
			if err2 != nil {
				seenAt = createdAt
			}
			expires := createdAt.Add(channels.PairingTTL)
			if !expires.After(now) {
				st.expired++
				continue
			}
			r.CreatedAtMs, r.LastSeenAtMs, r.ExpiresAtMs = createdAt.UnixMilli(), seenAt.UnixMilli(), expires.UnixMilli()
			r.SenderLabel = pairingLabel(meta, r.SenderID)
			r.ChatID = r.SenderID // a DM's chat is the sender's own
			st.requests = append(st.requests, r)
		}
		if err := rows.Err(); err != nil {
			return st, fmt.Errorf("migrate: read pairing requests: %w", err)
		}
	}
	return st, nil
}

// accountID is an account id as both installs key it ("default" when
// none), or "" when it is not one: config keys are short names of
// letters, digits, '-' and '_'.
func accountID(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "default"
	}
	if len(s) > 64 || strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) {
		return ""
	}
	return s
}

// cleanName is a name from the source fit for the plan's table.
func cleanName(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return s
}

// pairingLabel names the sender as our requests do, from the request's
// meta (username, name).
func pairingLabel(meta, fallback string) string {
	var m map[string]string
	_ = json.Unmarshal([]byte(meta), &m)
	name := strings.TrimSpace(strings.TrimSpace(m["firstName"] + " " + m["lastName"]))
	if name == "" {
		name = strings.TrimSpace(m["name"])
	}
	user := strings.TrimPrefix(strings.TrimSpace(m["username"]), "@")
	var label string
	switch {
	case name != "" && user != "":
		label = name + " (@" + user + ")"
	case user != "":
		label = "@" + user
	case name != "":
		label = name
	default:
		label = fallback
	}
	return cleanName(label)
}

func planPairing(ctx context.Context, ours *sql.DB, st pairingState) ([]Item, error) {
	oursHas, err := oursHasTable(ctx, ours, "channel_pairing_allow_entries")
	if err != nil {
		return nil, err
	}
	var allows []channels.ImportedAllow
	for _, a := range st.allows {
		if oursHas {
			ok, err := channels.AllowKnown(ctx, ours, a)
			if err != nil {
				return nil, fmt.Errorf("migrate: %w", err)
			}
			if ok {
				continue
			}
		}
		allows = append(allows, a)
	}
	var reqs []channels.ImportedPairingRequest
	for _, r := range st.requests {
		if oursHas {
			ok, err := channels.PairingRequestKnown(ctx, ours, r)
			if err != nil {
				return nil, fmt.Errorf("migrate: %w", err)
			}
			if ok {
				continue
			}
		}
		reqs = append(reqs, r)
	}
	out := splitItems("DM pairing: approved senders", len(st.allows), len(allows),
		"their DMs stay allowed (Telegram, Discord, Slack, WhatsApp)",
		func(ctx context.Context, db *sql.DB) error {
			for _, a := range allows {
				if _, err := channels.ImportAllow(ctx, db, a); err != nil {
					return err
				}
			}
			return nil
		})
	out = append(out, splitItems("DM pairing: pending requests", len(st.requests), len(reqs),
		"approve them with `openclaw pairing approve <channel> <code>`; the codes stay the ones the senders have",
		func(ctx context.Context, db *sql.DB) error {
			for _, r := range reqs {
				if _, err := channels.ImportPairingRequest(ctx, db, r); err != nil {
					return err
				}
			}
			return nil
		})...)
	if st.expired > 0 {
		out = append(out, Item{Name: "DM pairing: pending requests", Count: st.expired, Action: ActionSkip,
			Note: "expired (a request lives an hour); the sender gets a new code at their next DM"})
	}
	if st.bad > 0 {
		out = append(out, Item{Name: "DM pairing entries", Count: st.bad, Action: ActionSkip,
			Note: "not a sender id or account id; approve those senders again when they write"})
	}
	for _, name := range sortedKeys(st.other) {
		out = append(out, Item{Name: "DM pairing (" + name + ")", Count: st.other[name], Action: ActionCannot,
			Note: "this gateway has no such channel"})
	}
	return out, nil
}

// oursHasTable reports whether our database exists and has the table.
func oursHasTable(ctx context.Context, ours *sql.DB, table string) (bool, error) {
	if ours == nil {
		return false, nil
	}
	ok, err := tableExists(ctx, ours, table)
	if err != nil {
		return false, fmt.Errorf("migrate: %w", err)
	}
	return ok, nil
}

// telegramOffset is one account's cursor in the source.
type telegramOffset struct {
	account string
	botID   int64
	last    int64
}

// readTelegramOffsets reads the source's Telegram long-poll cursors;
// noBot counts those of an older format that do not say which bot they
// belong to.
func readTelegramOffsets(ctx context.Context, src *sql.DB) (offs []telegramOffset, noBot int, err error) {
	if src == nil {
		return nil, 0, nil
	}
	if ok, err := tableExists(ctx, src, "plugin_state_entries"); err != nil || !ok {
		return nil, 0, err
	}
	rows, err := src.QueryContext(ctx, `SELECT entry_key, value_json FROM plugin_state_entries
		WHERE namespace = 'telegram.update-offsets' AND length(CAST(value_json AS BLOB)) <= 4096 ORDER BY entry_key`)
	if err != nil {
		return nil, 0, fmt.Errorf("migrate: read telegram offsets: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var key, raw string
		if err := rows.Scan(&key, &raw); err != nil {
			return nil, 0, fmt.Errorf("migrate: read telegram offsets: %w", err)
		}
		var v struct {
			LastUpdateID *int64 `json:"lastUpdateId"`
			BotID        string `json:"botId"`
		}
		if json.Unmarshal([]byte(raw), &v) != nil || v.LastUpdateID == nil || *v.LastUpdateID < 0 {
			continue
		}
		var bot int64
		if _, err := fmt.Sscan(v.BotID, &bot); err != nil || bot <= 0 || accountID(key) == "" {
			noBot++
			continue
		}
		offs = append(offs, telegramOffset{account: accountID(key), botID: bot, last: *v.LastUpdateID})
	}
	return offs, noBot, rows.Err()
}

func planTelegramOffsets(ctx context.Context, ours *sql.DB, offs []telegramOffset, noBot int) ([]Item, error) {
	oursHas, err := oursHasTable(ctx, ours, "telegram_update_offsets")
	if err != nil {
		return nil, err
	}
	var todo []telegramOffset
	for _, o := range offs {
		if oursHas {
			ok, err := telegram.OffsetKnown(ctx, ours, o.account, o.botID, o.last)
			if err != nil {
				return nil, fmt.Errorf("migrate: %w", err)
			}
			if ok {
				continue
			}
		}
		todo = append(todo, o)
	}
	out := splitItems("Telegram update offsets", len(offs), len(todo),
		"the first poll confirms what OpenClaw already handled, so no update is answered twice",
		func(ctx context.Context, db *sql.DB) error {
			for _, o := range todo {
				if _, err := telegram.ImportOffset(ctx, db, o.account, o.botID, o.last); err != nil {
					return err
				}
			}
			return nil
		})
	if noBot > 0 {
		out = append(out, Item{Name: "Telegram update offsets", Count: noBot, Action: ActionCannot,
			Note: "an older format that does not name its bot; start OpenClaw 2026.9 once so it rewrites them, or accept that updates Telegram still holds are answered again"})
	}
	return out, nil
}

// Discord's and Slack's cursors need no carrying over: Discord's
// session resume is tied to the connection that made it, and Slack's
// Socket Mode redelivers only what was never acknowledged. Both
// installs ack only what they stored.

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// workspaceDirs lists the source's default workspace directories
// (workspace, workspace-<agentId>) by name.
func workspaceDirs(from string) []string {
	entries, _ := os.ReadDir(from)
	var out []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() && (name == "workspace" || strings.HasPrefix(name, "workspace-")) {
			out = append(out, name)
		}
	}
	return out
}

// memoryFiles lists a workspace's memory notes, relative to it: MEMORY.md
// (or memory.md) and the Markdown files under memory/, which are what
// OpenClaw's memory and ours read. Symbolic links and hidden entries are
// left out, as our index leaves them out.
func memoryFiles(ws string) []string {
	var out []string
	for _, top := range []string{"MEMORY.md", "memory.md"} {
		if st, err := os.Lstat(filepath.Join(ws, top)); err == nil && st.Mode().IsRegular() {
			out = append(out, top)
		}
	}
	root := filepath.Join(ws, "memory")
	if st, err := os.Lstat(root); err != nil || !st.IsDir() {
		return out
	}
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") && path != root {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(strings.ToLower(d.Name()), ".md") {
			if rel, err := filepath.Rel(ws, path); err == nil {
				out = append(out, rel)
			}
		}
		return nil
	})
	return out
}

// planMemory: OpenClaw's memory is Markdown in each workspace (its
// search index in the agent database is rebuilt from those files, and so
// is ours, at the first memory_search). A workspace copied whole brings
// its notes; into a workspace of ours that is kept, the notes it lacks
// are copied, and its own are never overwritten.
func planMemory(p Paths) []Item {
	type copyOne struct{ src, dst string }
	var todo []copyOne
	var total, withCopy, have int
	for _, name := range workspaceDirs(p.From) {
		src := filepath.Join(p.From, name)
		files := memoryFiles(src)
		total += len(files)
		dst := filepath.Join(p.StateDir, name)
		if same, _ := samePath(src, dst); same {
			have += len(files)
			continue
		}
		if !fileExists(dst) {
			withCopy += len(files)
			continue
		}
		for _, rel := range files {
			if _, err := os.Lstat(filepath.Join(dst, rel)); err == nil {
				have++
				continue
			}
			todo = append(todo, copyOne{filepath.Join(src, rel), filepath.Join(dst, rel)})
		}
	}
	const name = "memory notes (MEMORY.md, memory/*.md)"
	if total == 0 {
		return []Item{{Name: name, Action: ActionSkip, Note: "none in the install's workspaces"}}
	}
	var out []Item
	if withCopy > 0 {
		out = append(out, Item{Name: name, Count: withCopy, Action: ActionImport,
			Note: "copied with their workspace; memory_search indexes them at its first use"})
	}
	if len(todo) > 0 {
		out = append(out, Item{Name: name, Count: len(todo), Action: ActionImport,
			Note: "copied into our existing workspace (our own notes are kept); memory_search indexes them at its first use",
			apply: func(context.Context, *sql.DB) error {
				for _, c := range todo {
					if err := copyNew(c.src, c.dst); err != nil {
						return err
					}
				}
				return nil
			}})
	}
	if have > 0 {
		out = append(out, Item{Name: name, Count: have, Action: ActionSkip, Note: "already there"})
	}
	return out
}

// copyNew copies a regular file to dst, which must not exist; the source
// must not be a symbolic link (it could lead out of the workspace).
func copyNew(src, dst string) error {
	st, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return writeNew(dst, data)
}
