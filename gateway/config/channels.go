package config

import (
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// IDList is a list of chat or sender ids. Networks such as Telegram use
// numeric ids, which people write as numbers, so both numbers and strings
// are read; every entry is kept as a string.
type IDList []string

func (l *IDList) decodeNode(d *decoder, n *node, path string) {
	if n.kind != kindArray {
		d.typeError(n, path, "an array of ids (strings or numbers)")
		return
	}
	out := make(IDList, 0, len(n.elems))
	for i, e := range n.elems {
		p := indexPath(path, i)
		d.at[p] = e
		switch e.kind {
		case kindString:
			out = append(out, e.str)
		case kindNumber:
			if e.num != float64(int64(e.num)) {
				d.issues.errorAt(e, false, p, "expected a whole-number id, got %s", formatNumber(e.num))
				continue
			}
			out = append(out, strconv.FormatInt(int64(e.num), 10))
		default:
			d.typeError(e, p, "a string or a number")
		}
	}
	*l = out
}

func (IDList) jsonSchema() map[string]any {
	return map[string]any{"type": "array", "items": map[string]any{"type": []string{"string", "integer"}}}
}

// presenceMarker is implemented by sections whose mere presence in the
// file means something (a channel block starts the channel).
type presenceMarker interface{ markPresent() }

func (t *TelegramChannel) markPresent() { t.present = true }

// Configured reports whether channels.telegram appears in the file.
func (t TelegramChannel) Configured() bool { return t.present }

// DefaultAccountID is the account used when none is named.
func (t TelegramChannel) DefaultAccountID() string {
	if t.DefaultAccount != "" {
		return t.DefaultAccount
	}
	return "default"
}

// AccountIDs lists the configured accounts: the default account, then
// the named ones in sorted order.
func (t TelegramChannel) AccountIDs() []string {
	ids := []string{t.DefaultAccountID()}
	for _, id := range slices.Sorted(maps.Keys(t.Accounts)) {
		if id != ids[0] {
			ids = append(ids, id)
		}
	}
	return ids
}

// Account resolves one account's settings: keys the account sets
// override the channel's.
func (t TelegramChannel) Account(id string) (TelegramAccount, bool) {
	base := TelegramAccount{
		Name: t.Name, Enabled: t.Enabled, BotToken: t.BotToken, TokenFile: t.TokenFile,
		DmPolicy: t.DmPolicy, AllowFrom: t.AllowFrom, GroupPolicy: t.GroupPolicy,
		GroupAllowFrom: t.GroupAllowFrom, Groups: t.Groups, MentionPatterns: t.MentionPatterns,
		TextChunkLimit: t.TextChunkLimit, Streaming: t.Streaming, ReplyToMode: t.ReplyToMode,
		MediaMaxMb: t.MediaMaxMb, ResponsePrefix: t.ResponsePrefix, ApiRoot: t.ApiRoot,
		Proxy: t.Proxy, WebhookUrl: t.WebhookUrl, WebhookSecret: t.WebhookSecret, WebhookPath: t.WebhookPath,
	}
	a, named := t.Accounts[id]
	if !named {
		if id != t.DefaultAccountID() {
			return TelegramAccount{}, false
		}
		return base, true
	}
	// A named account never inherits the default bot's credentials: two
	// accounts polling one token would steal each other's updates.
	base.BotToken, base.TokenFile = SecretInput{}, ""
	str := func(dst *string, v string) { // a key the account sets wins
		if v != "" {
			*dst = v
		}
	}
	str(&base.Name, a.Name)
	str(&base.TokenFile, a.TokenFile)
	str(&base.DmPolicy, a.DmPolicy)
	str(&base.GroupPolicy, a.GroupPolicy)
	str(&base.ReplyToMode, a.ReplyToMode)
	str(&base.ResponsePrefix, a.ResponsePrefix)
	str(&base.ApiRoot, a.ApiRoot)
	str(&base.Proxy, a.Proxy)
	str(&base.WebhookUrl, a.WebhookUrl)
	str(&base.WebhookPath, a.WebhookPath)
	str(&base.Streaming.ChunkMode, a.Streaming.ChunkMode)
	if a.Enabled != nil {
		base.Enabled = a.Enabled
	}
	if a.BotToken.IsSet() {
		base.BotToken = a.BotToken
	}
	if a.WebhookSecret.IsSet() {
		base.WebhookSecret = a.WebhookSecret
	}
	if a.AllowFrom != nil {
		base.AllowFrom = a.AllowFrom
	}
	if a.GroupAllowFrom != nil {
		base.GroupAllowFrom = a.GroupAllowFrom
	}
	if a.Groups != nil {
		base.Groups = a.Groups
	}
	if a.MentionPatterns != nil {
		base.MentionPatterns = a.MentionPatterns
	}
	if a.TextChunkLimit != 0 {
		base.TextChunkLimit = a.TextChunkLimit
	}
	if a.MediaMaxMb != 0 {
		base.MediaMaxMb = a.MediaMaxMb
	}
	return base, true
}

// IsEnabled reports whether the account runs.
func (a TelegramAccount) IsEnabled() bool { return boolOr(a.Enabled, true) }

// Token finds the account's bot token: botToken, then tokenFile, then
// TELEGRAM_BOT_TOKEN for the default account. The error says which source
// failed, never the token.
func (a TelegramAccount) Token(isDefault bool) (string, error) {
	if v := a.BotToken.Value; v != "" {
		return v, nil
	}
	if a.TokenFile != "" {
		home, _ := os.UserHomeDir()
		b, err := os.ReadFile(expandHome(a.TokenFile, home))
		if err != nil {
			return "", err
		}
		return strings.TrimSpace(string(b)), nil
	}
	if isDefault {
		return os.Getenv("TELEGRAM_BOT_TOKEN"), nil
	}
	return "", nil
}
