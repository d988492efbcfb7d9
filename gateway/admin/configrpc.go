package admin

import (
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

func (w *Wing) registerConfig(srv *rpc.Server) {
	srv.HandleFunc("config.get", w.handleConfigGet)
	srv.HandleFunc("config.schema", func(ctx context.Context, req *rpc.Request) (any, error) {
		return configSchema{
			Schema: json.RawMessage(config.Schema()), UIHints: map[string]any{},
			Version: w.opts.Version, GeneratedAt: w.opts.Started.UTC().Format(time.RFC3339),
		}, nil
	})
	srv.HandleFunc("config.set", rpc.Typed(w.handleConfigWrite))
	srv.HandleFunc("config.apply", rpc.Typed(w.handleConfigWrite))
	srv.HandleFunc("config.patch", rpc.Typed(w.handleConfigPatch))
}

// configSchema is config.schema's answer.
type configSchema struct {
	Schema      json.RawMessage `json:"schema"`
	UIHints     map[string]any  `json:"uiHints"`
	Version     string          `json:"version"`
	GeneratedAt string          `json:"generatedAt"`
}

// handleConfigGet returns the running config with secrets redacted. The
// raw text is only for admins, and with secret values replaced too.
func (w *Wing) handleConfigGet(ctx context.Context, req *rpc.Request) (any, error) {
	snap := w.opts.Config()
	fresh, err := config.Load(snap.Path, w.opts.LoadOptions)
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
		raw, rerr := config.RedactRaw(snap.Raw, snap.Tree)
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
func (w *Wing) handleConfigWrite(ctx context.Context, req *rpc.Request, p configWriteParams) (any, error) {
	if p.Raw == "" {
		return nil, protocol.InvalidParams(req.Method, errors.New("raw is required"))
	}
	return w.writeOrCheckConfig(req.Method, []byte(p.Raw), p.BaseHash, req.Method == "config.apply", p.DryRun)
}

// handleConfigPatch merges a JSON5 merge patch into the file, keeping the
// user's comments and formatting around the keys it touches.
func (w *Wing) handleConfigPatch(ctx context.Context, req *rpc.Request, p configWriteParams) (any, error) {
	obj, err := config.ParseObject([]byte(p.Raw))
	if err != nil {
		return nil, protocol.InvalidParams(req.Method, fmt.Errorf("raw: %w", err))
	}
	cur, err := os.ReadFile(w.opts.Config().Path)
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
	return w.writeOrCheckConfig(req.Method, next, p.BaseHash, true, p.DryRun)
}

// ConfigWriter writes the config file as config.set does; the root hands
// it to the other parts that change the config (the gateway tool, a
// pairing approval making its sender the owner).
type ConfigWriter interface {
	WriteConfig(method string, raw []byte, baseHash string, apply bool) (any, error)
}

var _ ConfigWriter = (*Wing)(nil)

// WriteConfig validates raw, writes it and (with apply) applies it; method
// names the caller in errors (config.set, config.apply, ...), and
// "config.apply" also restarts the gateway when a changed field needs it.
// A baseHash, when given, must be the hash of the file as it is now. An
// invalid text is refused with INVALID_CONFIG and its issues (line,
// column, key path) in the error's details, and the file is left as it
// was. Secrets config.get shows redacted are restored from the running
// config.
func (w *Wing) WriteConfig(method string, raw []byte, baseHash string, apply bool) (any, error) {
	return w.writeOrCheckConfig(method, raw, baseHash, apply, false)
}

// writeOrCheckConfig is writeConfig, or with dryRun only its checks: it
// then answers {ok, valid, dryRun, issues, warnings, restartRequired}
// whether the text is valid or not, and never writes. A base hash that
// no longer matches the file is an error either way.
func (w *Wing) writeOrCheckConfig(method string, raw []byte, baseHash string, apply, dryRun bool) (any, error) {
	w.configMu.Lock()
	defer w.configMu.Unlock()
	cur := w.opts.Config()
	path := cur.Path
	if baseHash != "" {
		disk, _ := config.Load(path, w.opts.LoadOptions)
		if disk == nil || disk.Hash != baseHash {
			return nil, protocol.Errorf(protocol.CodeInvalidRequest, "config changed since it was read (baseHash mismatch); call config.get and retry").
				WithDetails(map[string]any{"code": protocol.DetailConfigBaseHashMismatch})
		}
	}
	raw, unrestored := config.RestoreRedacted(raw, cur.Raw, cur.Tree)
	issues := config.Issues{}
	for _, p := range unrestored {
		issues = append(issues, config.Issue{File: path, Path: p, Message: "holds the redaction placeholder " + config.RedactedSentinel + " and there is no value to restore; write the secret itself"})
	}
	snap, err := config.Parse(path, raw, w.opts.LoadOptions)
	if err != nil {
		var le *config.LoadError
		if !errors.As(err, &le) {
			return nil, protocol.InvalidParams(method, err)
		}
		issues = append(le.Issues, issues...)
	} else if err := w.opts.CheckStartable(snap); err != nil {
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
			WithDetails(map[string]any{"code": protocol.DetailInvalidConfig, "issues": issueList(issues)})
	}
	if err := config.WriteFile(path, raw); err != nil {
		return nil, err
	}
	restart := config.Diff(w.opts.Config().Config, snap.Config)
	if apply {
		if err := w.opts.Apply(snap); err != nil {
			return nil, err
		}
	}
	out := map[string]any{"ok": true, "path": path, "hash": snap.Hash, "restartRequired": nonNilStrings(restart), "warnings": issueList(snap.Warnings)}
	if method == "config.apply" && len(restart) > 0 {
		out["restartScheduled"] = true
		w.opts.Restart()
	}
	return out, nil
}

// nonNilStrings is s, or an empty list: the answers carry [] rather than
// null.
func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
