package config

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
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
// SecretRef object. Load resolves env refs into Value; file and exec refs
// are resolved by the gateway when it starts or reloads (they read files
// and run programs, which loading a config to check or show it must not),
// and store refs are not resolved here. Printing or logging it never shows
// the secret.
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
	// Problem says why a SecretRef has no value (its provider is not
	// configured, refused it, or failed); it never holds the secret.
	Problem string
}

var (
	secretSources    = []string{"env", "file", "exec", "store"}
	secretProviderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`) })
	secretEnvIDRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,127}$`) })
	secretExecIDRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/#-]{0,255}$`) })
)

// secretIDProblem checks a ref's id against its source's grammar, as
// OpenClaw does; "" when it fits.
func secretIDProblem(source, id string) string {
	switch source {
	case "env", "store":
		if !secretEnvIDRE().MatchString(id) {
			return fmt.Sprintf("id %q must be upper case letters, digits or _", id)
		}
	case "file":
		if id != "value" && !validJSONPointer(id) {
			return fmt.Sprintf("id %q must be an absolute JSON pointer (\"/providers/openai/apiKey\") or \"value\" for a singleValue provider", id)
		}
	case "exec":
		if !secretExecIDRE().MatchString(id) {
			return fmt.Sprintf("id %q must start with a letter or digit and hold only letters, digits and . _ : / # -, at most 256", id)
		}
		for seg := range strings.SplitSeq(id, "/") {
			if seg == "." || seg == ".." {
				return fmt.Sprintf("id %q must not have \".\" or \"..\" path segments", id)
			}
		}
	}
	return ""
}

// validJSONPointer accepts an RFC 6901 pointer: "/" segments where "~" is
// only "~0" or "~1".
func validJSONPointer(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 == len(p) || (p[i+1] != '0' && p[i+1] != '1')) {
			return false
		}
	}
	return true
}

// IsSet reports whether a secret value is available.
func (s SecretInput) IsSet() bool { return s.Value != "" }

// Equal reports whether two inputs hold the same value and reference.
func (s SecretInput) Equal(o SecretInput) bool {
	if s.Value != o.Value || s.Problem != o.Problem || (s.Ref == nil) != (o.Ref == nil) || !slices.Equal(s.Unresolved, o.Unresolved) {
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
	case !secretProviderRE().MatchString(ref.Provider):
		d.issues.errorAt(n.get("provider"), false, JoinPath(path, "provider"), "provider %q must be lower case letters, digits, _ or -", ref.Provider)
		return
	}
	if msg := secretIDProblem(ref.Source, ref.ID); msg != "" {
		d.issues.errorAt(n.get("id"), false, JoinPath(path, "id"), "%s", msg)
		return
	}
	*s = SecretInput{Ref: &ref}
	switch ref.Source {
	case "store":
		d.issues.warnAt(n, false, path, "secret source \"store\" is not in effect here: the shared secret store is not implemented; the value is left empty")
		return
	case "file", "exec":
		return // checked against secrets.providers by checkSecretRefs, resolved by the gateway
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
					"provider": map[string]any{"type": "string", "pattern": secretProviderRE().String()},
					"id":       map[string]any{"type": "string"},
				},
				"required":             []string{"source", "provider", "id"},
				"additionalProperties": false,
			},
		},
	}
}
