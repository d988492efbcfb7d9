package secrets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
	"github.com/openclaw-go/openclaw/plugins/procgroup"
)

// execRequest is what an exec provider reads on stdin.
type execRequest struct {
	ProtocolVersion int      `json:"protocolVersion"`
	Provider        string   `json:"provider"`
	IDs             []string `json:"ids"`
}

// execResponse is what it answers on stdout.
type execResponse struct {
	ProtocolVersion *int                       `json:"protocolVersion"`
	Values          map[string]json.RawMessage `json:"values"`
	Errors          map[string]json.RawMessage `json:"errors"`
}

// safeExecCodes are the error codes shown to the user; anything else a
// resolver says (a message, other codes) may carry credential material.
var safeExecCodes = map[string]bool{"NOT_FOUND": true, "AMBIGUOUS_DUPLICATE_KEY": true}

// resolveExec runs an exec provider once for all ids.
func resolveExec(ctx context.Context, name string, p config.SecretProvider, ids []string, opts Options) (map[string]string, map[string]string, error) {
	if len(ids) > maxRefsPerProvider {
		return nil, nil, fmt.Errorf("secret provider %q: more than %d ids", name, maxRefsPerProvider)
	}
	label := "secrets.providers." + name + ".command"
	path, err := checkCommand(label, p.Command, p.TrustedDirs, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("secret provider %q: %w", name, err)
	}
	req, _ := json.Marshal(execRequest{ProtocolVersion: 1, Provider: name, IDs: ids})
	env := make([]string, 0, len(p.PassEnv)+len(p.Env)) // never nil: nil would inherit the gateway's
	for _, k := range p.PassEnv {
		if v := opts.getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range p.Env {
		env = append(env, k+"="+v)
	}
	timeout := ms(p.TimeoutMs, DefaultTimeoutMs)
	quiet := ms(p.NoOutputTimeoutMs, p.TimeoutMs)
	if p.NoOutputTimeoutMs <= 0 {
		quiet = timeout
	}
	maxOut := p.MaxOutputBytes
	if maxOut <= 0 {
		maxOut = DefaultMaxOutputBytes
	}
	stdout, err := run(ctx, path, p.Args, env, req, timeout, quiet, maxOut)
	if err != nil {
		return nil, nil, fmt.Errorf("secret provider %q: %w", name, err)
	}
	jsonOnly := p.JSONOnly == nil || *p.JSONOnly
	return parseExecOutput(name, ids, stdout, jsonOnly)
}

func ms(v, def int) time.Duration {
	if v <= 0 {
		v = def
	}
	return time.Duration(v) * time.Millisecond
}

var (
	errTimeout  = errors.New("timed out")
	errQuiet    = errors.New("produced no output in time")
	errTooLarge = errors.New("output exceeded maxOutputBytes")
)

// run starts the program directly (argv, no shell, cwd its own folder, in
// a process group of its own) and collects stdout; stderr is dropped, as
// it may hold what the program read. The whole group is stopped on a
// timeout, on silence, or when it writes too much.
func run(ctx context.Context, path string, args, env []string, stdin []byte, timeout, quiet time.Duration, maxOut int) ([]byte, error) {
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Dir = filepath.Dir(path)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stderr = io.Discard
	procgroup.Own(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	// The reader owns buf until it closes reads; the loop only counts.
	var buf bytes.Buffer
	reads := make(chan int)
	go func() {
		defer close(reads)
		b := make([]byte, 32<<10)
		for buf.Len() <= maxOut {
			n, err := out.Read(b)
			buf.Write(b[:n])
			if err != nil {
				return
			}
			reads <- n
		}
	}()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	silence := time.NewTimer(quiet)
	defer silence.Stop()
	var failure error
	total := 0
loop:
	for {
		select {
		case n, open := <-reads:
			if !open {
				break loop
			}
			if total += n; total > maxOut {
				failure = errTooLarge
				break loop
			}
			silence.Reset(quiet)
		case <-deadline.C:
			failure = fmt.Errorf("%w after %s", errTimeout, timeout)
			break loop
		case <-silence.C:
			failure = fmt.Errorf("%w (%s)", errQuiet, quiet)
			break loop
		case <-ctx.Done():
			failure = ctx.Err()
			break loop
		}
	}
	if failure != nil {
		procgroup.Stop(cmd.Process.Pid, 200*time.Millisecond)
		out.Close()       // a descendant that left the group may still hold the pipe
		for range reads { // the reader ends once the pipe does
		}
		cmd.Wait()
		return nil, failure
	}
	if buf.Len() > maxOut {
		cmd.Wait()
		return nil, errTooLarge
	}
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("exited with code %d", ee.ExitCode())
		}
		return nil, err
	}
	return buf.Bytes(), nil
}

// parseExecOutput reads the provider's answer: protocol v1 JSON, or with
// jsonOnly false and one id, plain text.
func parseExecOutput(name string, ids []string, stdout []byte, jsonOnly bool) (map[string]string, map[string]string, error) {
	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) == 0 {
		return nil, nil, fmt.Errorf("secret provider %q returned empty stdout", name)
	}
	single := !jsonOnly && len(ids) == 1
	var probe any
	if err := json.Unmarshal(trimmed, &probe); err != nil {
		if single {
			return map[string]string{ids[0]: string(trimmed)}, nil, nil
		}
		return nil, nil, fmt.Errorf("secret provider %q returned invalid JSON", name)
	}
	if s, ok := probe.(string); ok && single {
		return map[string]string{ids[0]: s}, nil, nil
	}
	if _, ok := probe.(map[string]any); !ok {
		return nil, nil, fmt.Errorf("secret provider %q: its answer must be a JSON object", name)
	}
	var resp execResponse
	if err := json.Unmarshal(trimmed, &resp); err != nil {
		return nil, nil, fmt.Errorf("secret provider %q: its answer is malformed", name)
	}
	if resp.ProtocolVersion == nil || *resp.ProtocolVersion != 1 {
		return nil, nil, fmt.Errorf("secret provider %q: protocolVersion must be 1", name)
	}
	if resp.Values == nil {
		return nil, nil, fmt.Errorf("secret provider %q: its answer has no \"values\"", name)
	}
	out, perID := map[string]string{}, map[string]string{}
	for _, id := range ids {
		if e, failed := resp.Errors[id]; failed {
			var entry struct {
				Code string `json:"code"`
			}
			json.Unmarshal(e, &entry)
			msg := fmt.Sprintf("secret provider %q failed for id %q", name, id)
			if safeExecCodes[entry.Code] {
				msg += " (" + entry.Code + ")"
			}
			perID[id] = msg
			continue
		}
		raw, ok := resp.Values[id]
		if !ok {
			perID[id] = fmt.Sprintf("secret provider %q: its answer has no id %q", name, id)
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			perID[id] = fmt.Sprintf("secret provider %q: the value for id %q is not a string", name, id)
			continue
		}
		out[id] = s
	}
	return out, perID, nil
}
