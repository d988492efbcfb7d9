package policy

import (
	"slices"
	"strings"
)

// This file picks which scoped entry applies: the byProvider entry for the
// provider and model, the toolsBySender entry for the sender, and the
// channel group entry for the group.

// lookupProvider returns the byProvider entry for provider and model: the
// "provider/model" key wins over the "provider" key; the entries are not
// merged. Keys compare case-insensitively; when two keys normalize alike,
// the one already in canonical form (lower case, trimmed) wins.
func lookupProvider(m map[string]ProviderTools, provider, model string) (string, ProviderTools, bool) {
	provider = strings.ToLower(strings.TrimSpace(provider))
	if provider == "" || len(m) == 0 {
		return "", ProviderTools{}, false
	}
	model = strings.ToLower(strings.TrimSpace(model))
	candidates := []string{provider}
	if model != "" {
		candidates = []string{provider + "/" + model, provider}
	}
	for _, want := range candidates {
		best := ""
		for _, key := range sortedKeys(m) {
			norm := normalizeProviderKey(key)
			if norm != want {
				continue
			}
			if best == "" || (key == norm && best != norm) {
				best = key
			}
		}
		if best != "" {
			return best, m[best], true
		}
	}
	return "", ProviderTools{}, false
}

func normalizeProviderKey(key string) string {
	k := strings.ToLower(strings.TrimSpace(key))
	prov, mod, ok := strings.Cut(k, "/")
	if !ok || prov == "" {
		return k
	}
	if mod == "" {
		return strings.TrimSpace(prov)
	}
	return strings.TrimSpace(prov) + "/" + mod
}

// senderKey is a parsed toolsBySender key.
type senderKey struct {
	kind  string // channel, id, e164, username, name, or * for the wildcard
	value string // normalized
}

var senderKinds = []string{"channel", "id", "e164", "username", "name"}

// parseSenderKey parses a toolsBySender key. Keys without a known prefix
// are legacy keys, matched as ids (legacy reports that).
func parseSenderKey(raw string) (k senderKey, legacy bool) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return senderKey{}, false
	}
	if s == "*" {
		return senderKey{kind: "*"}, false
	}
	if prefix, rest, ok := strings.Cut(s, ":"); ok {
		kind := strings.ToLower(strings.TrimSpace(prefix))
		if slices.Contains(senderKinds, kind) {
			return senderKey{kind: kind, value: normalizeSenderValue(kind, rest)}, false
		}
	}
	return senderKey{kind: "id", value: normalizeSenderValue("legacy", s)}, true
}

func normalizeSenderValue(kind, v string) string {
	v = strings.TrimSpace(v)
	switch kind {
	case "channel":
		ch, id, ok := strings.Cut(v, ":")
		ch, id = strings.ToLower(strings.TrimSpace(ch)), normalizeSenderValue("id", id)
		if !ok || ch == "" || id == "" {
			return ""
		}
		return ch + ":" + id
	case "username", "legacy":
		v = strings.TrimPrefix(v, "@")
	}
	return strings.ToLower(strings.TrimSpace(v))
}

// matchSender finds the toolsBySender entry for s: channel:<ch>:<id>, then
// id, e164, username, name, then "*" (the only match for a nil s). It returns the key as written. Keys
// are tried in sorted order, so the first of two equivalent keys wins.
func (r *resolver) matchSender(m map[string]Rules, s *Sender, path string) (string, Rules, bool) {
	if len(m) == 0 {
		return "", Rules{}, false
	}
	buckets := map[senderKey]string{}
	wildcard := ""
	for _, raw := range sortedKeys(m) {
		k, legacy := parseSenderKey(raw)
		if legacy {
			r.warnf("%s key %q has no type prefix and is matched as an id only; write id:, e164:, username:, name: or channel:<channel>:", path, raw)
		}
		switch {
		case k.kind == "*":
			if wildcard == "" {
				wildcard = raw
			}
		case k.kind != "" && k.value != "":
			if _, dup := buckets[k]; !dup {
				buckets[k] = raw
			}
		}
	}
	if s == nil {
		s = &Sender{}
	}
	var ids []string
	for _, v := range []string{normalizeSenderValue("id", s.ID), normalizeSenderValue("legacy", s.ID)} {
		if v != "" && !slices.Contains(ids, v) {
			ids = append(ids, v)
		}
	}
	var tries []senderKey
	if ch := strings.ToLower(strings.TrimSpace(s.Channel)); ch != "" {
		for _, id := range ids {
			tries = append(tries, senderKey{"channel", ch + ":" + id})
		}
	}
	for _, id := range ids {
		tries = append(tries, senderKey{"id", id})
	}
	tries = append(tries,
		senderKey{"e164", normalizeSenderValue("e164", s.E164)},
		senderKey{"username", normalizeSenderValue("username", s.Username)},
		senderKey{"name", normalizeSenderValue("name", s.Name)})
	for _, k := range tries {
		if k.value == "" {
			continue
		}
		if raw, ok := buckets[k]; ok {
			return raw, m[raw], true
		}
	}
	if wildcard != "" {
		return wildcard, m[wildcard], true
	}
	return "", Rules{}, false
}

// resolveGroup picks the channel group policy: for each group id (most
// specific first, then "*"), a toolsBySender match beats the group's tools.
// It returns the key path of the rules it chose.
func (r *resolver) resolveGroup(g *GroupContext, s *Sender) (string, Rules, bool) {
	if g == nil || len(g.Groups) == 0 {
		return "", Rules{}, false
	}
	path := g.Path
	if path == "" {
		path = "channels." + strings.ToLower(strings.TrimSpace(g.Channel)) + ".groups"
	}
	ids := append(slices.Clone(g.IDs), "*")
	for _, id := range ids {
		key, gt, ok := findGroup(g.Groups, strings.TrimSpace(id))
		if !ok {
			continue
		}
		at := path + "." + key
		if k, rules, ok := r.matchSender(gt.ToolsBySender, s, at+".toolsBySender"); ok {
			return at + ".toolsBySender[" + k + "]", rules, true
		}
		if gt.Tools != nil {
			return at + ".tools", *gt.Tools, true
		}
	}
	return "", Rules{}, false
}

// findGroup looks a group id up exactly, then case-insensitively.
func findGroup(m map[string]GroupTools, id string) (string, GroupTools, bool) {
	if id == "" {
		return "", GroupTools{}, false
	}
	if gt, ok := m[id]; ok {
		return id, gt, true
	}
	for _, k := range sortedKeys(m) {
		if strings.EqualFold(k, id) {
			return k, m[k], true
		}
	}
	return "", GroupTools{}, false
}
