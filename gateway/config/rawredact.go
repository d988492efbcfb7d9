package config

import (
	"bytes"
	"fmt"
)

// The raw text config.get shows an admin keeps the user's comments and
// layout with every secret value replaced by RedactedSentinel; a write of
// that text puts the secrets back. Both live here, beside Redact, for
// every part that shows or writes the config text.

// RestoreRedacted puts back the secrets config.get replaced with
// RedactedSentinel in the raw text (see RedactRaw), so a client can send
// the text it was shown, edited elsewhere, without wiping its secrets. A
// placeholder is restored from the running config only where that value
// was written in the running file's text, as RedactRaw hid it; the paths
// of placeholders it could not restore are returned.
func RestoreRedacted(raw, curRaw []byte, curTree map[string]any) ([]byte, []string) {
	if !bytes.Contains(raw, []byte(RedactedSentinel)) {
		return raw, nil
	}
	tree, err := ParseObject(raw)
	if err != nil {
		return raw, nil // the syntax error is reported by the parse that follows
	}
	var unrestored []string
	var walk func(v, cur any, path string)
	walk = func(v, cur any, path string) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		cm, _ := cur.(map[string]any)
		for k, x := range m {
			p := JoinPath(path, k)
			if str, ok := x.(string); ok && str == RedactedSentinel && IsSecretAt(path, k) {
				old, _ := cm[k].(string)
				if old == "" || old == RedactedSentinel || !bytes.Contains(curRaw, []byte(old)) {
					unrestored = append(unrestored, p)
					continue
				}
				next, err := Set(raw, p, old)
				if err != nil {
					unrestored = append(unrestored, p)
					continue
				}
				raw = next
				continue
			}
			walk(x, cm[k], p)
		}
	}
	walk(tree, curTree, "")
	return raw, unrestored
}

// RedactRaw replaces every secret value in the config text, keeping the
// rest as the user wrote it. Secrets that came from an $include or an
// environment variable are not in the text and need no change. It fails,
// rather than show a secret, if any secret value is still in the result.
func RedactRaw(raw []byte, tree map[string]any) ([]byte, error) {
	type secret struct{ path, value string }
	var secrets []secret
	var walk func(v any, path string)
	walk = func(v any, path string) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, x := range m {
			p := JoinPath(path, k)
			if str, ok := x.(string); ok && IsSecretAt(path, k) && str != "" {
				secrets = append(secrets, secret{p, str})
				continue
			}
			walk(x, p)
		}
	}
	walk(tree, "")
	out := raw
	for _, sc := range secrets {
		if !bytes.Contains(out, []byte(sc.value)) {
			continue
		}
		if next, err := Set(out, sc.path, RedactedSentinel); err == nil {
			out = next
		}
	}
	for _, sc := range secrets {
		if bytes.Contains(out, []byte(sc.value)) {
			return nil, fmt.Errorf("redact %s: value still present", sc.path)
		}
	}
	return out, nil
}
