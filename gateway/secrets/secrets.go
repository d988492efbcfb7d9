// Package secrets resolves the SecretRefs of a loaded config that read
// files or run programs: {source: "file"} through a file provider and
// {source: "exec"} through an exec provider of secrets.providers. Loading
// a config resolves env refs itself; these two it leaves to the gateway,
// which calls Resolve when it starts and when it reloads, because a config
// loaded only to be checked, shown or dry-run must not run anything.
//
// The rules are OpenClaw's: a secrets file must be a private regular file
// (no symlink, one link, owned by the gateway's user, no group or world
// access); an exec command is an absolute path run directly, never through
// a shell, that must not be a symlink, must be owned by the gateway's user
// and writable by it alone, optionally within trustedDirs; it gets only
// the environment passEnv and env give it, the request on stdin and
// answers on stdout. No value read ever appears in an error or a log line.
package secrets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// Limits and defaults, as OpenClaw's.
const (
	DefaultTimeoutMs      = 5000
	DefaultMaxBytes       = 1 << 20
	DefaultMaxOutputBytes = 1 << 20
	maxRefsPerProvider    = 512
)

// Options tell Resolve about the process it runs in.
type Options struct {
	// Getenv reads the gateway's environment for passEnv; nil is os.Getenv.
	Getenv func(string) string
	// Home expands "~" in paths; "" is the user's home directory.
	Home string
	// Log gets one line per provider that failed (never a value); nil
	// discards.
	Log *slog.Logger
}

func (o Options) getenv(name string) string {
	if o.Getenv == nil {
		return os.Getenv(name)
	}
	return o.Getenv(name)
}

func (o Options) expand(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return filepath.Clean(p)
	}
	home := o.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~"))
}

// refKey names one value a provider is asked for.
type refKey struct{ provider, source, id string }

// Resolve fills in the file and exec SecretRefs of snap.Config, each
// provider read or run once for all the ids asked of it. A ref that cannot
// be resolved is left without a value, its SecretInput.Problem set, and is
// added to snap.UnresolvedSecrets, so the gateway refuses to start with
// it as it does with an unset variable. Refs already resolved or refused
// are left alone, so calling it twice does nothing more.
func Resolve(ctx context.Context, snap *config.Snapshot, opts Options) {
	if snap == nil || snap.Config == nil {
		return
	}
	cfg := snap.Config
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	wanted := map[string][]string{} // provider -> ids
	cfg.EachSecret(func(_ string, s *config.SecretInput) {
		if pending(s) && !slices.Contains(wanted[s.Ref.Provider], s.Ref.ID) {
			wanted[s.Ref.Provider] = append(wanted[s.Ref.Provider], s.Ref.ID)
		}
	})
	if len(wanted) == 0 {
		return
	}
	values := map[refKey]string{}
	problems := map[refKey]string{}
	names := make([]string, 0, len(wanted))
	for name := range wanted {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := cfg.Secrets.Providers[name]
		ids := wanted[name]
		slices.Sort(ids)
		var got map[string]string
		var perID map[string]string
		var err error
		switch p.Source {
		case "file":
			got, perID, err = resolveFile(name, p, ids, opts)
		case "exec":
			got, perID, err = resolveExec(ctx, name, p, ids, opts)
		default:
			err = fmt.Errorf("secret provider %q has source %q", name, p.Source)
		}
		if err != nil {
			log.Warn("secret provider failed; its secrets are unavailable", "provider", name, "source", p.Source, "err", err)
		}
		for _, id := range ids {
			k := refKey{name, p.Source, id}
			switch v, ok := got[id]; {
			case err != nil:
				problems[k] = err.Error()
			case perID[id] != "":
				problems[k] = perID[id]
			case !ok || v == "":
				problems[k] = fmt.Sprintf("secret provider %q returned no value for id %q", name, id)
			default:
				values[k] = v
			}
		}
	}
	cfg.EachSecret(func(path string, s *config.SecretInput) {
		if !pending(s) {
			return
		}
		k := refKey{s.Ref.Provider, s.Ref.Source, s.Ref.ID}
		if v, ok := values[k]; ok {
			s.Value = v
			return
		}
		msg := problems[k]
		if msg == "" {
			msg = fmt.Sprintf("secret provider %q did not resolve id %q", k.provider, k.id)
		}
		s.Problem = msg
		snap.UnresolvedSecrets = append(snap.UnresolvedSecrets, config.Issue{
			File: snap.Path, Path: path, Message: msg + "; the secret is unavailable", Severity: config.SeverityWarning,
		})
	})
}

// pending reports whether s is a file or exec ref still to be resolved.
func pending(s *config.SecretInput) bool {
	return s.Ref != nil && (s.Ref.Source == "file" || s.Ref.Source == "exec") && s.Value == "" && s.Problem == ""
}

// resolveFile reads a file provider's file once and picks each id from it.
func resolveFile(name string, p config.SecretProvider, ids []string, opts Options) (map[string]string, map[string]string, error) {
	maxBytes := p.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	path := opts.expand(p.Path)
	raw, err := readPrivateFile(path, int64(maxBytes))
	if err != nil {
		return nil, nil, fmt.Errorf("secret provider %q: secrets.providers.%s.path: %w", name, name, err)
	}
	text := strings.TrimPrefix(string(raw), "\ufeff")
	out, perID := map[string]string{}, map[string]string{}
	if p.Mode == "singleValue" {
		text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
		for _, id := range ids {
			if id != "value" {
				perID[id] = fmt.Sprintf("secret provider %q is singleValue: its ref id must be \"value\"", name)
				continue
			}
			out[id] = text
		}
		return out, perID, nil
	}
	var doc any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		// The decoder's message may quote the file; say only where.
		return nil, nil, fmt.Errorf("secret provider %q: %s is not valid JSON", name, path)
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, nil, fmt.Errorf("secret provider %q: %s does not hold a JSON object", name, path)
	}
	for _, id := range ids {
		v, ok := jsonPointer(doc, id)
		switch s, isString := v.(string); {
		case !ok:
			perID[id] = fmt.Sprintf("secret provider %q: %s has nothing at %s", name, path, id)
		case !isString:
			perID[id] = fmt.Sprintf("secret provider %q: the value at %s is not a string", name, id)
		default:
			out[id] = s
		}
	}
	return out, perID, nil
}

// jsonPointer looks up an RFC 6901 pointer in a decoded JSON document.
func jsonPointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	cur := doc
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[seg]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			var i int
			if _, err := fmt.Sscanf(seg, "%d", &i); err != nil || fmt.Sprint(i) != seg || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// errInsecure marks a path refused by the permission rules.
var errInsecure = errors.New("insecure")
