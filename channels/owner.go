package channels

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrNoOwnerRoute says no owner's direct chat could be found: nothing in
// commands.ownerAllowFrom or the accounts' allowFrom names one person on
// a running account.
var ErrNoOwnerRoute = errors.New("no owner to deliver to")

// OwnerRoute finds the owner's direct chat, as OpenClaw's heartbeat
// target "owner" does: the first concrete entry of owners
// (commands.ownerAllowFrom, "<channel>:<id>", or a bare id when one
// network runs), else the first concrete allowFrom entry of a running
// account, networks in their order and default accounts first. A "*"
// names nobody, nor does an access group; a route found this way is
// always a DM, never a group (a negative Telegram id is a group, so it
// is skipped). Discord and Slack open the DM with the user.
func (m *Manager) OwnerRoute(ctx context.Context, owners []string) (Route, error) {
	m.mu.Lock()
	var accts []*account
	for _, a := range m.accounts {
		accts = append(accts, a)
	}
	order := map[string]int{}
	for i, n := range m.opts.Networks {
		order[n.Name] = i
	}
	m.mu.Unlock()
	sort.Slice(accts, func(i, j int) bool {
		a, b := accts[i], accts[j]
		if order[a.network.Name] != order[b.network.Name] {
			return order[a.network.Name] < order[b.network.Name]
		}
		if da, db := a.specNow().Default, b.specNow().Default; da != db {
			return da
		}
		return a.id < b.id
	})
	networks := map[string]bool{}
	for _, a := range accts {
		networks[a.network.Name] = true
	}
	// pick is the account and user an entry names, within only when set.
	pick := func(entry string, only *account) (*account, string) {
		entry = strings.TrimSpace(entry)
		if strings.HasPrefix(strings.ToLower(entry), accessGroupPrefix) {
			return nil, ""
		}
		head, id, hasHead := strings.Cut(strings.TrimPrefix(entry, "user:"), ":")
		if !hasHead {
			head, id = "", head
		}
		id = strings.TrimSpace(strings.TrimPrefix(id, "user:"))
		if id == "" || id == "*" {
			return nil, ""
		}
		for _, a := range accts {
			switch {
			case only != nil && a != only:
				continue
			case head != "" && !a.network.names(head):
				continue
			case head == "" && only == nil && len(networks) != 1:
				continue // a bare id could be anyone's on several networks
			}
			if a.network.Name == "telegram" && strings.HasPrefix(id, "-") {
				return nil, "" // a group, never the owner's DM
			}
			return a, id
		}
		return nil, ""
	}
	var a *account
	var user string
	for _, e := range owners {
		if a, user = pick(e, nil); a != nil {
			break
		}
	}
	for _, acct := range accts {
		if a != nil {
			break
		}
		for _, e := range acct.specNow().Policy.AllowFrom {
			if a, user = pick(e, acct); a != nil {
				break
			}
		}
	}
	if a == nil {
		return Route{}, fmt.Errorf("%w: set commands.ownerAllowFrom to [\"<channel>:<your id>\"] (a \"*\" allowlist names nobody)", ErrNoOwnerRoute)
	}
	chat := user
	if o, ok := a.adapterNow().(DirectOpener); ok {
		var err error
		if chat, err = o.OpenDirect(ctx, user); err != nil {
			return Route{}, fmt.Errorf("open the owner's %s DM: %w", a.network.Label, err)
		}
	}
	return Route{Channel: a.network.Name, AccountID: a.id, ChatID: chat, ChatKind: Direct}, nil
}
