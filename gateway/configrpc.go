package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/gateway/protocol"
	"github.com/openclaw-go/openclaw/gateway/rpc"
)

func (s *System) registerConfigMethods() {
	s.srv.HandleFunc("config.get", s.handleConfigGet)
	s.srv.HandleFunc("config.schema", func(ctx context.Context, req *rpc.Request) (any, error) {
		return map[string]any{
			"schema": json.RawMessage(config.Schema()), "uiHints": map[string]any{},
			"version": s.version, "generatedAt": s.started.UTC().Format(time.RFC3339),
		}, nil
	})
	s.srv.HandleFunc("config.set", s.handleConfigWrite)
	s.srv.HandleFunc("config.apply", s.handleConfigWrite)
	s.srv.HandleFunc("config.patch", s.handleConfigPatch)
}

// handleConfigGet returns the running config with secrets redacted. The
// raw text is only for admins, and with secret values replaced too.
func (s *System) handleConfigGet(ctx context.Context, req *rpc.Request) (any, error) {
	l := s.current()
	snap := l.snap
	fresh, err := config.Load(snap.Path, s.loadOptions())
	valid := err == nil
	out := map[string]any{
		"path":              snap.Path,
		"exists":            snap.Exists,
		"valid":             valid,
		"hash":              snap.Hash,
		"appliedConfigHash": snap.Hash,
		"config":            config.Redact(snap.Tree),
		"warnings":          issueList(snap.Warnings),
	}
	if fresh != nil {
		out["configRevisionHash"] = fresh.Hash
	}
	var le *config.LoadError
	if errors.As(err, &le) {
		out["issues"] = issueList(le.Issues)
	}
	if req.Conn.Has(protocol.ScopeAdmin) && snap.Raw != nil {
		raw, rerr := redactRaw(snap.Raw, snap.Tree)
		if rerr == nil {
			out["raw"] = string(raw)
		}
	}
	return out, nil
}

func issueList(in []config.Issue) []map[string]any {
	out := []map[string]any{}
	for _, i := range in {
		out = append(out, map[string]any{"path": i.Path, "message": i.Message, "line": i.Line, "column": i.Column, "file": i.File, "text": i.String()})
	}
	return out
}

type configWriteParams struct {
	Raw            string   `json:"raw"`
	BaseHash       string   `json:"baseHash"`
	RestartDelayMs *int64   `json:"restartDelayMs"`
	Note           string   `json:"note"`
	SessionKey     string   `json:"sessionKey"`
	ReplacePaths   []string `json:"replacePaths"`
	// DryRun validates the text as the write would (base hash, syntax,
	// keys, types, whether the gateway could start with it) and answers
	// with the issues, without writing or applying anything. It is this
	// gateway's addition: OpenClaw's schema has no such field, and its
	// clients never send it.
	DryRun bool `json:"dryRun"`
}

// handleConfigWrite serves config.set (replace the file) and config.apply
// (replace and, when a changed field needs it, restart).
func (s *System) handleConfigWrite(ctx context.Context, req *rpc.Request) (any, error) {
	var p configWriteParams
	if err := req.Decode(&p); err != nil {
		return nil, err
	}
	if p.Raw == "" {
		return nil, protocol.InvalidParams(req.Method, errors.New("raw is required"))
	}
	return s.writeOrCheckConfig(req.Method, []byte(p.Raw), p.BaseHash, req.Method == "config.apply", p.DryRun)
}

// handleConfigPatch merges a JSON5 merge patch into the file, keeping the
// user's comments and formatting around the keys it touches.
func (s *System) handleConfigPatch(ctx context.Context, req *rpc.Request) (any, error) {
	var p configWriteParams
	if err := req.Decode(&p); err != nil {
		return nil, err
	}
	obj, err := config.ParseObject([]byte(p.Raw))
	if err != nil {
		return nil, protocol.InvalidParams(req.Method, fmt.Errorf("raw: %w", err))
	}
	cur, err := os.ReadFile(s.current().snap.Path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read config: %w", err)
	}
	if len(cur) == 0 {
		cur = []byte("{}\n")
	}
	next, err := config.MergePatch(cur, obj)
	if err != nil {
		return nil, protocol.InvalidParams(req.Method, err)
	}
	return s.writeOrCheckConfig(req.Method, next, p.BaseHash, true, p.DryRun)
}

// writeConfig validates raw, writes it and (with apply) applies it. An
// invalid text is refused with INVALID_CONFIG and its issues (line,
// column, key path) in the error's details, and the file is left as it
// was.
func (s *System) writeConfig(method string, raw []byte, baseHash string, apply bool) (any, error) {
	return s.writeOrCheckConfig(method, raw, baseHash, apply, false)
}

// writeOrCheckConfig is writeConfig, or with dryRun only its checks: it
// then answers {ok, valid, dryRun, issues, warnings, restartRequired}
// whether the text is valid or not, and never writes. A base hash that
// no longer matches the file is an error either way.
func (s *System) writeOrCheckConfig(method string, raw []byte, baseHash string, apply, dryRun bool) (any, error) {
	s.configMu.Lock()
	defer s.configMu.Unlock()
	cur := s.current().snap
	path := cur.Path
	if baseHash != "" {
		disk, _ := config.Load(path, s.loadOptions())
		if disk == nil || disk.Hash != baseHash {
			return nil, protocol.Errorf(protocol.CodeInvalidRequest, "config changed since it was read (baseHash mismatch); call config.get and retry").
				WithDetails(map[string]any{"code": "CONFIG_BASE_HASH_MISMATCH"})
		}
	}
	raw, unrestored := restoreRedacted(raw, cur.Raw, cur.Tree)
	issues := config.Issues{}
	for _, p := range unrestored {
		issues = append(issues, config.Issue{File: path, Path: p, Message: "holds the redaction placeholder " + config.RedactedSentinel + " and there is no value to restore; write the secret itself"})
	}
	snap, err := config.Parse(path, raw, s.loadOptions())
	if err != nil {
		var le *config.LoadError
		if !errors.As(err, &le) {
			return nil, protocol.InvalidParams(method, err)
		}
		issues = append(le.Issues, issues...)
	} else if err := s.checkStartable(snap); err != nil {
		issues = append(issues, config.Issue{Message: err.Error()}) // err names the file
	}
	if dryRun {
		out := map[string]any{"ok": len(issues) == 0, "valid": len(issues) == 0, "dryRun": true, "path": path,
			"issues": issueList(issues), "warnings": issueList(snap.Warnings), "restartRequired": []string{}}
		if len(issues) == 0 {
			out["restartRequired"] = nonNilStrings(config.Diff(cur.Config, snap.Config))
		}
		return out, nil
	}
	if len(issues) > 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "invalid config: %s", issues.String()).
			WithDetails(map[string]any{"code": "INVALID_CONFIG", "issues": issueList(issues)})
	}
	if err := config.WriteFile(path, raw); err != nil {
		return nil, err
	}
	restart := config.Diff(s.current().snap.Config, snap.Config)
	if apply {
		if err := s.applyConfig(snap); err != nil {
			return nil, err
		}
	}
	out := map[string]any{"ok": true, "path": path, "hash": snap.Hash, "restartRequired": nonNilStrings(restart), "warnings": issueList(snap.Warnings)}
	if method == "config.apply" && len(restart) > 0 {
		out["restartScheduled"] = true
		s.requestRestart()
	}
	return out, nil
}

// restoreRedacted puts back the secrets config.get replaced with
// RedactedSentinel in the raw text (see redactRaw), so a client can send
// the text it was shown, edited elsewhere, without wiping its secrets. A
// placeholder is restored from the running config only where that value
// was written in the running file's text, as redactRaw hid it; the paths
// of placeholders it could not restore are returned.
func restoreRedacted(raw, curRaw []byte, curTree map[string]any) ([]byte, []string) {
	if !bytes.Contains(raw, []byte(config.RedactedSentinel)) {
		return raw, nil
	}
	tree, err := config.ParseObject(raw)
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
			p := config.JoinPath(path, k)
			if s, ok := x.(string); ok && s == config.RedactedSentinel && config.IsSecretAt(path, k) {
				old, _ := cm[k].(string)
				if old == "" || old == config.RedactedSentinel || !bytes.Contains(curRaw, []byte(old)) {
					unrestored = append(unrestored, p)
					continue
				}
				next, err := config.Set(raw, p, old)
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

// redactRaw replaces every secret value in the config text, keeping the
// rest as the user wrote it. Secrets that came from an $include or an
// environment variable are not in the text and need no change. It fails,
// rather than show a secret, if any secret value is still in the result.
func redactRaw(raw []byte, tree map[string]any) ([]byte, error) {
	type secret struct{ path, value string }
	var secrets []secret
	var walk func(v any, path string)
	walk = func(v any, path string) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, x := range m {
			p := config.JoinPath(path, k)
			if s, ok := x.(string); ok && config.IsSecretAt(path, k) && s != "" {
				secrets = append(secrets, secret{p, s})
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
		if next, err := config.Set(out, sc.path, config.RedactedSentinel); err == nil {
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
