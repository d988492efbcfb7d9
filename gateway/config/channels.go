package config

import (
	"maps"
	"os"
	"reflect"
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
func (t *DiscordChannel) markPresent()  { t.present = true }
func (t *SlackChannel) markPresent()    { t.present = true }
func (t *WhatsappChannel) markPresent() { t.present = true }

// Configured reports whether the channel's block appears in the file.
func (t TelegramChannel) Configured() bool { return t.present }
func (t DiscordChannel) Configured() bool  { return t.present }
func (t SlackChannel) Configured() bool    { return t.present }
func (t WhatsappChannel) Configured() bool { return t.present }

// DefaultAccountID is the account used when none is named.
func (t TelegramChannel) DefaultAccountID() string { return defaultAccount(t.DefaultAccount) }
func (t DiscordChannel) DefaultAccountID() string  { return defaultAccount(t.DefaultAccount) }
func (t SlackChannel) DefaultAccountID() string    { return defaultAccount(t.DefaultAccount) }
func (t WhatsappChannel) DefaultAccountID() string { return defaultAccount(t.DefaultAccount) }

// AccountIDs lists the configured accounts: the default account, then
// the named ones in sorted order.
func (t TelegramChannel) AccountIDs() []string { return accountIDs(t.DefaultAccountID(), t.Accounts) }
func (t DiscordChannel) AccountIDs() []string  { return accountIDs(t.DefaultAccountID(), t.Accounts) }
func (t SlackChannel) AccountIDs() []string    { return accountIDs(t.DefaultAccountID(), t.Accounts) }
func (t WhatsappChannel) AccountIDs() []string { return accountIDs(t.DefaultAccountID(), t.Accounts) }

func defaultAccount(id string) string {
	if id != "" {
		return id
	}
	return "default"
}

func accountIDs[T any](def string, accounts map[string]T) []string {
	ids := []string{def}
	for _, id := range slices.Sorted(maps.Keys(accounts)) {
		if id != def {
			ids = append(ids, id)
		}
	}
	return ids
}

// Account resolves one account's settings: keys the account sets
// override the channel's. A named account never inherits the default
// account's credentials: two accounts on one token would steal each
// other's events.
func (t TelegramChannel) Account(id string) (TelegramAccount, bool) {
	return account(t.TelegramAccount, t.Accounts, id, t.DefaultAccountID(), func(a *TelegramAccount) {
		a.BotToken, a.TokenFile = SecretInput{}, ""
	})
}

func (t DiscordChannel) Account(id string) (DiscordAccount, bool) {
	return account(t.DiscordAccount, t.Accounts, id, t.DefaultAccountID(), func(a *DiscordAccount) { a.Token = SecretInput{} })
}

func (t SlackChannel) Account(id string) (SlackAccount, bool) {
	return account(t.SlackAccount, t.Accounts, id, t.DefaultAccountID(), func(a *SlackAccount) {
		a.BotToken, a.AppToken, a.SigningSecret = SecretInput{}, SecretInput{}, SecretInput{}
	})
}

func (t WhatsappChannel) Account(id string) (WhatsappAccount, bool) {
	return account(t.WhatsappAccount, t.Accounts, id, t.DefaultAccountID(), nil)
}

func account[T any](base T, accounts map[string]T, id, def string, dropCredentials func(*T)) (T, bool) {
	a, named := accounts[id]
	if !named {
		return base, id == def
	}
	if dropCredentials != nil {
		dropCredentials(&base)
	}
	return overlay(base, a), true
}

// overlay returns base with every key over sets (a non-zero value;
// an empty list counts as set) put on top.
func overlay[T any](base, over T) T {
	b, o := reflect.ValueOf(&base).Elem(), reflect.ValueOf(over)
	for _, f := range fieldsOf(b.Type()) {
		if v := o.FieldByIndex(f.index); !v.IsZero() {
			b.FieldByIndex(f.index).Set(v)
		}
	}
	return base
}

// IsEnabled reports whether the channel or account runs.
func (c ChannelCommon) IsEnabled() bool { return boolOr(c.Enabled, true) }

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
