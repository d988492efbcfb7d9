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
	return s.writeConfig(req.Method, []byte(p.Raw), p.BaseHash, req.Method == "config.apply")
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
	return s.writeConfig(req.Method, next, p.BaseHash, true)
}

func (s *System) writeConfig(method string, raw []byte, baseHash string, apply bool) (any, error) {
	s.configMu.Lock()
	defer s.configMu.Unlock()
	path := s.current().snap.Path
	if baseHash != "" {
		cur, _ := config.Load(path, s.loadOptions())
		if cur == nil || cur.Hash != baseHash {
			return nil, protocol.Errorf(protocol.CodeInvalidRequest, "config changed since it was read (baseHash mismatch); call config.get and retry").
				WithDetails(map[string]any{"code": "CONFIG_BASE_HASH_MISMATCH"})
		}
	}
	snap, err := config.Parse(path, raw, s.loadOptions())
	if err != nil {
		var le *config.LoadError
		if errors.As(err, &le) {
			return nil, protocol.Errorf(protocol.CodeInvalidRequest, "invalid config: %s", le.Issues.String()).
				WithDetails(map[string]any{"code": "INVALID_CONFIG", "issues": issueList(le.Issues)})
		}
		return nil, protocol.InvalidParams(method, err)
	}
	if err := s.checkStartable(snap); err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest, "%v", err)
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
			p := k
			if path != "" {
				p = path + "." + k
			}
			if s, ok := x.(string); ok && config.IsSecretKey(k) && s != "" {
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
