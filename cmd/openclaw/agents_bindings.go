package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// bindingSpec is one --bind channel[:accountId]. An empty account is the
// channel's default account; "*" is every account.
type bindingSpec struct {
	Channel   string
	AccountID string
}

var channelIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`) })

func parseBindingSpec(s string) (bindingSpec, error) {
	raw := strings.TrimSpace(s)
	ch, acct, hasAcct := strings.Cut(raw, ":")
	b := bindingSpec{Channel: strings.ToLower(strings.TrimSpace(ch)), AccountID: strings.TrimSpace(acct)}
	switch {
	case !channelIDRE().MatchString(b.Channel):
		return b, usageErrorf("--bind %q: want channel[:accountId], e.g. telegram or telegram:ops (a channel id is letters, digits, _ and -)", s)
	case hasAcct && b.AccountID == "":
		return b, usageErrorf("--bind %q: the account after ':' is empty; leave out ':' for the default account, or use '*' for every account", s)
	case strings.ContainsFunc(b.AccountID, func(r rune) bool { return r < 0x20 || r == 0x7f || r == ' ' }):
		return b, usageErrorf("--bind %q: an account id has no spaces or control characters", s)
	}
	return b, nil
}

func parseBindingSpecs(specs []string) ([]bindingSpec, error) {
	var out []bindingSpec
	for _, s := range specs {
		b, err := parseBindingSpec(s)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out, nil
}

// rawBinding is one element of the file's bindings array, read from the
// raw tree so its index is the one to edit.
type rawBinding struct {
	index   int
	agentID string
	typ     string
	match   map[string]any
}

func (b rawBinding) channel() string {
	s, _ := b.match["channel"].(string)
	return strings.ToLower(strings.TrimSpace(s))
}

func (b rawBinding) account() string {
	s, _ := b.match["accountId"].(string)
	return strings.TrimSpace(s)
}

// plain reports whether the binding matches on channel and account only,
// the kind --bind makes; bindings by peer, guild, team or role are left
// to the config file.
func (b rawBinding) plain() bool {
	for k := range b.match {
		if k != "channel" && k != "accountId" {
			return false
		}
	}
	return true
}

func (b rawBinding) route() bool { return b.typ == "" || b.typ == "route" }

func (b rawBinding) is(s bindingSpec) bool {
	return b.route() && b.plain() && b.channel() == s.Channel && b.account() == s.AccountID
}

func rawBindings(tree map[string]any) []rawBinding {
	list, _ := tree["bindings"].([]any)
	var out []rawBinding
	for i, v := range list {
		m, _ := v.(map[string]any)
		b := rawBinding{index: i}
		b.agentID, _ = m["agentId"].(string)
		b.agentID = strings.ToLower(strings.TrimSpace(b.agentID))
		b.typ, _ = m["type"].(string)
		b.match, _ = m["match"].(map[string]any)
		out = append(out, b)
	}
	return out
}

// describeBindingMatch renders a match as OpenClaw's CLI does:
// "telegram accountId=ops peer=direct:123".
func describeBindingMatch(m map[string]any) string {
	str := func(k string) string { s, _ := m[k].(string); return s }
	parts := []string{str("channel")}
	if a := str("accountId"); a != "" {
		parts = append(parts, "accountId="+a)
	}
	if p, ok := m["peer"].(map[string]any); ok {
		k, _ := p["kind"].(string)
		id, _ := p["id"].(string)
		parts = append(parts, "peer="+k+":"+id)
	}
	if g := str("guildId"); g != "" {
		parts = append(parts, "guild="+g)
	}
	if t := str("teamId"); t != "" {
		parts = append(parts, "team="+t)
	}
	if roles, ok := m["roles"].([]any); ok && len(roles) > 0 {
		var rs []string
		for _, r := range roles {
			rs = append(rs, fmt.Sprint(r))
		}
		parts = append(parts, "roles="+strings.Join(rs, ","))
	}
	return sanitizeCell(strings.Join(parts, " "))
}

func (s bindingSpec) describe() string {
	m := map[string]any{"channel": s.Channel}
	if s.AccountID != "" {
		m["accountId"] = s.AccountID
	}
	return describeBindingMatch(m)
}

// bindResult is what bind did, in OpenClaw's --json shape.
type bindResult struct {
	AgentID   string   `json:"agentId"`
	Added     []string `json:"added"`
	Updated   []string `json:"updated"`
	Skipped   []string `json:"skipped"`
	Conflicts []string `json:"conflicts"`
}

// applyBindings adds specs for agent to src: a binding another agent
// holds is a conflict (left alone), one the agent holds is skipped, and a
// channel-only binding of the agent takes the account in place rather
// than gaining a twin.
func applyBindings(src []byte, tree map[string]any, agent string, specs []bindingSpec) ([]byte, bindResult, error) {
	res := bindResult{AgentID: agent, Added: []string{}, Updated: []string{}, Skipped: []string{}, Conflicts: []string{}}
	existing := rawBindings(tree)
	next := len(existing)
	var err error
	for _, s := range specs {
		if i := slices.IndexFunc(existing, func(b rawBinding) bool { return b.is(s) }); i >= 0 {
			if existing[i].agentID == agent {
				res.Skipped = append(res.Skipped, s.describe())
			} else {
				res.Conflicts = append(res.Conflicts, fmt.Sprintf("%s (agent=%s)", s.describe(), existing[i].agentID))
			}
			continue
		}
		if s.AccountID != "" {
			i := slices.IndexFunc(existing, func(b rawBinding) bool {
				return b.agentID == agent && b.is(bindingSpec{Channel: s.Channel})
			})
			if i >= 0 {
				if src, err = config.Set(src, "bindings["+strconv.Itoa(existing[i].index)+"].match.accountId", s.AccountID); err != nil {
					return nil, res, err
				}
				existing[i].match = map[string]any{"channel": s.Channel, "accountId": s.AccountID}
				res.Updated = append(res.Updated, s.describe())
				continue
			}
		}
		match := map[string]any{"channel": s.Channel}
		if s.AccountID != "" {
			match["accountId"] = s.AccountID
		}
		b := map[string]any{"agentId": agent, "match": match}
		if _, isList := tree["bindings"].([]any); isList || next > 0 {
			src, err = config.Set(src, "bindings["+strconv.Itoa(next)+"]", b)
		} else {
			src, err = config.Set(src, "bindings", []any{b})
		}
		if err != nil {
			return nil, res, err
		}
		existing = append(existing, rawBinding{index: next, agentID: agent, match: match})
		next++
		res.Added = append(res.Added, s.describe())
	}
	return src, res, nil
}

// unbindResult is what unbind did, in OpenClaw's --json shape.
type unbindResult struct {
	AgentID   string   `json:"agentId"`
	Removed   []string `json:"removed"`
	Missing   []string `json:"missing"`
	Conflicts []string `json:"conflicts"`
}

// removeBindings drops the bindings of agent that specs name (all of the
// agent's bindings when all is set), last index first so the earlier
// indexes stay right, and the bindings key when nothing is left.
func removeBindings(src []byte, tree map[string]any, agent string, specs []bindingSpec, all bool) ([]byte, unbindResult, error) {
	res := unbindResult{AgentID: agent, Removed: []string{}, Missing: []string{}, Conflicts: []string{}}
	existing := rawBindings(tree)
	drop := map[int]bool{}
	if all {
		for _, b := range existing {
			if b.agentID == agent {
				drop[b.index] = true
				res.Removed = append(res.Removed, describeBindingMatch(b.match))
			}
		}
	}
	for _, s := range specs {
		i := slices.IndexFunc(existing, func(b rawBinding) bool { return b.is(s) && b.agentID == agent })
		switch {
		case i >= 0:
			drop[existing[i].index] = true
			res.Removed = append(res.Removed, s.describe())
		case slices.ContainsFunc(existing, func(b rawBinding) bool { return b.is(s) }):
			j := slices.IndexFunc(existing, func(b rawBinding) bool { return b.is(s) })
			res.Conflicts = append(res.Conflicts, fmt.Sprintf("%s (agent=%s)", s.describe(), existing[j].agentID))
		default:
			res.Missing = append(res.Missing, s.describe())
		}
	}
	var err error
	for i := len(existing) - 1; i >= 0; i-- {
		if drop[i] {
			if src, err = config.Unset(src, "bindings["+strconv.Itoa(i)+"]"); err != nil {
				return nil, res, err
			}
		}
	}
	if len(drop) > 0 && len(drop) == len(existing) {
		if src, err = config.Unset(src, "bindings"); err != nil {
			return nil, res, err
		}
	}
	return src, res, nil
}
