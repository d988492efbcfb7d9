package config

import (
	"encoding/json"
	"log/slog"
	"regexp"
	"slices"
)

// SecretRef points at a secret kept outside the config file, in OpenClaw's
// {source, provider, id} form, e.g. {source: "env", provider: "default",
// id: "OPENCLAW_GATEWAY_TOKEN"}.
type SecretRef struct {
	// Source is where the secret lives: "env", "file", "exec" or "store".
	// Only "env" is resolved by this package so far.
	Source string `json:"source"`
	// Provider names the configured secret provider, usually "default".
	Provider string `json:"provider"`
	// ID is the secret's name at the source (for env, the variable name).
	ID string `json:"id"`
}

// SecretInput is a credential written either inline as a string or as a
// SecretRef object. Load resolves env refs into Value; other sources leave
// Value empty with a warning. Printing or logging it never shows the secret.
type SecretInput struct {
	// Value is the secret itself: the inline string, or what an env
	// SecretRef resolved to. Empty when unset or unresolved.
	Value string
	// Ref is the reference the file used, or nil for an inline string.
	Ref *SecretRef
	// Unresolved names the environment variables the secret needs that
	// are not set ("${VAR}" in the string, or an env SecretRef's id);
	// Value is then empty, never the text as written.
	Unresolved []string
}

var (
	secretSources    = []string{"env", "file", "exec", "store"}
	secretProviderRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)
	secretEnvIDRE    = regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,127}$`)
)

// IsSet reports whether a secret value is available.
func (s SecretInput) IsSet() bool { return s.Value != "" }

// Equal reports whether two inputs hold the same value and reference.
func (s SecretInput) Equal(o SecretInput) bool {
	if s.Value != o.Value || (s.Ref == nil) != (o.Ref == nil) || !slices.Equal(s.Unresolved, o.Unresolved) {
		return false
	}
	return s.Ref == nil || *s.Ref == *o.Ref
}

// String describes the input without revealing it.
func (s SecretInput) String() string {
	switch {
	case s.Ref != nil:
		return "secretref:" + s.Ref.Source + ":" + s.Ref.ID
	case s.Value != "":
		return RedactedSentinel
	}
	return ""
}

// LogValue keeps secrets out of logs.
func (s SecretInput) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON writes the reference object when there is one, else the
// inline string. It does reveal inline secrets: use Redact for display.
func (s SecretInput) MarshalJSON() ([]byte, error) {
	if s.Ref != nil {
		return json.Marshal(s.Ref)
	}
	return json.Marshal(s.Value)
}

// decodeNode reads a string or a SecretRef object and resolves env refs.
func (s *SecretInput) decodeNode(d *decoder, n *node, path string) {
	switch n.kind {
	case kindString:
		n.secretUse = true
		if len(n.missingEnv) > 0 {
			*s = SecretInput{Unresolved: n.missingEnv}
			d.unresolvedSecret(n, path, n.missingEnv)
			return
		}
		*s = SecretInput{Value: n.str}
		return
	case kindObject:
	default:
		d.issues.errorAt(n, false, path, "expected a string or a SecretRef object {source, provider, id}, got %s", n.kindName())
		return
	}
	var ref SecretRef
	ok := true
	fields := map[string]*string{"source": &ref.Source, "provider": &ref.Provider, "id": &ref.ID}
	for _, m := range n.members {
		dst, known := fields[m.key]
		childPath := JoinPath(path, m.key)
		switch {
		case !known:
			d.issues.errorAt(m.val, true, childPath, "unknown key in a SecretRef; want source, provider and id")
			ok = false
		case m.val.kind != kindString:
			d.issues.errorAt(m.val, false, childPath, "expected a string, got %s", m.val.kindName())
			ok = false
		default:
			*dst = m.val.str
		}
	}
	for _, k := range []string{"source", "provider", "id"} {
		if n.get(k) == nil {
			d.issues.errorAt(n, false, path, "SecretRef is missing %q", k)
			ok = false
		}
	}
	if !ok {
		return
	}
	switch {
	case !slices.Contains(secretSources, ref.Source):
		d.issues.errorAt(n.get("source"), false, JoinPath(path, "source"), "%q is not a secret source; want one of %s", ref.Source, quoteList(secretSources))
		return
	case !secretProviderRE.MatchString(ref.Provider):
		d.issues.errorAt(n.get("provider"), false, JoinPath(path, "provider"), "provider %q must be lower case letters, digits, _ or -", ref.Provider)
		return
	case (ref.Source == "env" || ref.Source == "store") && !secretEnvIDRE.MatchString(ref.ID):
		d.issues.errorAt(n.get("id"), false, JoinPath(path, "id"), "id %q must be upper case letters, digits or _", ref.ID)
		return
	}
	*s = SecretInput{Ref: &ref}
	if ref.Source != "env" {
		d.issues.warnAt(n, false, path, "secret source %q is not implemented yet; the value is left empty", ref.Source)
		return
	}
	if s.Value = d.getenv(ref.ID); s.Value == "" {
		s.Unresolved = []string{ref.ID}
		d.unresolvedSecret(n, path, s.Unresolved)
	}
}

// jsonSchema describes a SecretInput.
func (SecretInput) jsonSchema() map[string]any {
	return map[string]any{
		"anyOf": []any{
			map[string]any{"type": "string"},
			map[string]any{
				"type": "object",
				"properties": map[string]any{
					"source":   map[string]any{"type": "string", "enum": secretSources},
					"provider": map[string]any{"type": "string", "pattern": secretProviderRE.String()},
					"id":       map[string]any{"type": "string"},
				},
				"required":             []string{"source", "provider", "id"},
				"additionalProperties": false,
			},
		},
	}
}
