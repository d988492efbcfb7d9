package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
)

// maxConfigBytes bounds the main config file, like each included file.
const maxConfigBytes = maxIncludeBytes

// LoadOptions adjusts Load and Parse.
type LoadOptions struct {
	// Getenv looks up ${VAR} substitutions and env SecretRefs. Nil means
	// os.Getenv; tests pass a map lookup.
	Getenv func(string) string
	// IncludeRoots are extra directories $include may read from, besides
	// the config file's own (OPENCLAW_INCLUDE_ROOTS; see Paths).
	IncludeRoots []string
}

// Snapshot is one read of the config file.
type Snapshot struct {
	// Path is the config file that was read.
	Path string
	// Exists is false when there was no file; Config then holds the defaults.
	Exists bool
	// Raw is the file's text exactly as read (nil when it does not exist).
	Raw []byte
	// Hash is the hex SHA-256 of Raw, for detecting concurrent edits; empty
	// when the file does not exist.
	Hash string
	// Config is the decoded config with defaults applied; nil when the file
	// has errors (Load then also returns a *LoadError).
	Config *Config
	// Tree is the whole resolved config ($include applied, ${VAR}
	// substituted) as generic JSON values, including keys this gateway does
	// not implement. It holds secrets: pass it through Redact for display.
	Tree map[string]any
	// Includes lists the files $include read, outermost first.
	Includes []string
	// Warnings are the problems that did not stop loading.
	Warnings []Issue
	// UnresolvedSecrets are the secrets (SecretInput fields) that name an
	// environment variable that is not set, as "${VAR}" or an env
	// SecretRef: their value is unavailable. Each is also in Warnings; a
	// gateway that needs the secret refuses to start (see
	// UnresolvedSecret).
	UnresolvedSecrets []Issue
}

// Load reads and decodes the config file at path. A missing file is not an
// error: the Snapshot has Exists false and the defaults. When the file has
// errors, Load returns a *LoadError listing all of them, together with a
// Snapshot whose Config is nil (Raw, Hash and Tree are filled when they
// could be); other failures (unreadable file) return a nil Snapshot.
func Load(path string, opts LoadOptions) (*Snapshot, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("load config %s: %w", path, err)
	}
	f, err := os.Open(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return &Snapshot{Path: abs, Config: Defaults(), Tree: map[string]any{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	if st.Size() > maxConfigBytes {
		return nil, fmt.Errorf("load config %s: file is larger than %d bytes", abs, maxConfigBytes)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("load config %s: is a directory", abs)
	}
	src, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	if len(src) > maxConfigBytes {
		return nil, fmt.Errorf("load config %s: file is larger than %d bytes", abs, maxConfigBytes)
	}
	return Parse(abs, src, opts)
}

// Parse decodes config text as if it were the file name, which is used in
// issues and as the base for $include paths. It does what Load does after
// reading the file and returns the same way.
func Parse(name string, src []byte, opts LoadOptions) (*Snapshot, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if abs, err := filepath.Abs(name); err == nil {
		name = abs
	}
	sum := sha256.Sum256(src)
	snap := &Snapshot{Path: name, Exists: true, Raw: src, Hash: hex.EncodeToString(sum[:])}
	issues := &issueList{file: name}
	// Keys older OpenClaw versions wrote are read where they live now;
	// positions in later issues are then those of the migrated text.
	migrated, rewrites, err := MigrateLegacy(src)
	if err != nil {
		issues.warnf(nil, -1, "", "%v; the legacy keys are read as written", err)
		migrated = src
	}
	for _, r := range rewrites {
		issues.warnf(nil, -1, r.Path, "%s is from an older OpenClaw; %s; run `openclaw migrate` or rewrite the key", r.Path, r.Rewrite)
	}
	file := &srcFile{name: name, src: migrated}

	p, syntaxIssue := parseJSON5(file)
	if syntaxIssue != nil {
		return snap, &LoadError{Path: name, Issues: Issues{*syntaxIssue}}
	}
	root := p.nodes(issues)
	in := &includer{roots: append([]string{filepath.Dir(name)}, cleanRoots(opts.IncludeRoots)...), issues: issues}
	root = in.resolve(root, "", []string{name})
	snap.Includes = in.files
	getenv = withConfigEnv(root, getenv)
	substituteEnv(root, getenv)
	if tree, ok := root.toAny().(map[string]any); ok {
		snap.Tree = tree
	}

	cfg := Defaults()
	if root.kind != kindObject {
		issues.errorAt(root, false, "", "the config must be an object, got %s", root.kindName())
	} else {
		d := &decoder{issues: issues, getenv: getenv, at: map[string]*node{}}
		known, _ := loadKnownKeys()
		d.decodeStruct(root, reflect.ValueOf(cfg).Elem(), known, nil)
		d.validate(cfg)
		d.checkSecretRefs(cfg)
		snap.UnresolvedSecrets = d.unresolved
	}
	reportMissingEnv(root, "", issues)

	errs, warns := issues.split()
	snap.Warnings = warns
	if len(errs) > 0 {
		return snap, &LoadError{Path: name, Issues: errs}
	}
	snap.Config = cfg
	return snap, nil
}

func cleanRoots(roots []string) []string {
	var out []string
	for _, r := range roots {
		if abs, err := filepath.Abs(r); err == nil {
			out = append(out, abs)
		}
	}
	return out
}
