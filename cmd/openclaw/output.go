package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/protocol"
)

// Error types in --json failure output, as the real CLI names them.
const (
	errTypeCLI         = "cli_error"
	errTypeTransport   = "gateway_transport_error"
	errTypeRequest     = "gateway_request_error"
	errTypeCredentials = "gateway_credentials_required"
)

// errorBody is the "error" object of a --json failure.
type errorBody struct {
	Type         string `json:"type"`
	Kind         string `json:"kind,omitempty"`
	Code         string `json:"code,omitempty"`
	Message      string `json:"message"`
	Details      any    `json:"details,omitempty"`
	Retryable    *bool  `json:"retryable,omitempty"`
	RetryAfterMs *int64 `json:"retryAfterMs,omitempty"`
	URL          string `json:"url,omitempty"`
}

// describe sorts an error into the --json error object.
func describe(err error) errorBody {
	var (
		perr  *protocol.Error
		terr  *transportError
		usage *usageError
	)
	switch {
	case errors.As(err, &perr):
		return errorBody{Type: errTypeRequest, Code: perr.Code, Message: perr.Message, Details: perr.Details,
			Retryable: perr.Retryable, RetryAfterMs: perr.RetryAfterMs}
	case errors.As(err, &terr):
		b := errorBody{Type: errTypeTransport, Message: terr.Error(), URL: terr.target.String()}
		switch {
		case terr.timeout > 0:
			b.Kind = "timeout"
		case terr.unreachable:
			b.Kind = "unreachable"
		}
		return b
	case errors.Is(err, errCredentialsRequired):
		return errorBody{Type: errTypeCredentials, Message: err.Error()}
	case errors.As(err, &usage):
		return errorBody{Type: errTypeCLI, Message: usage.msg}
	default:
		return errorBody{Type: errTypeCLI, Message: err.Error()}
	}
}

// reportedError is a failure the command has already printed (e.g. the
// issues of config validate); run only turns it into the exit status.
type reportedError struct{ err error }

func (e *reportedError) Error() string { return e.err.Error() }
func (e *reportedError) Unwrap() error { return e.err }

func reported(err error) error { return &reportedError{err: err} }

// exitCodeError asks for an exit status other than 1, for commands whose
// real counterparts give one meaning (secrets audit: 2 = unresolved).
type exitCodeError struct {
	code int
	err  error
}

func (e *exitCodeError) Error() string { return e.err.Error() }
func (e *exitCodeError) Unwrap() error { return e.err }

func withExitCode(code int, err error) error { return &exitCodeError{code: code, err: err} }

// exitCode is the process status for err: 0 for none, else 1 unless the
// command asked for another.
func exitCode(err error) int {
	var ec *exitCodeError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ec):
		return ec.code
	default:
		return 1
	}
}

// report prints a failure: a JSON envelope on stdout with --json, else a
// line (and maybe a hint) on stderr.
func (a *app) report(err error) {
	var done *reportedError
	if errors.As(err, &done) {
		return
	}
	b := describe(err)
	if a.json {
		_ = writeJSON(a.stdout, struct {
			OK    bool      `json:"ok"`
			Error errorBody `json:"error"`
		}{false, b})
		return
	}
	switch b.Type {
	case errTypeRequest:
		code := b.Code
		if d := detailCode(b.Details); d != "" {
			code += " " + d
		}
		fmt.Fprintf(a.stderr, "%s failed: %s: %s\n", a.cmd, code, b.Message)
		if hint := requestHint(b); hint != "" {
			fmt.Fprintln(a.stderr, hint)
		}
	case errTypeTransport:
		fmt.Fprintf(a.stderr, "%s failed: %s\n", a.cmd, b.Message)
		if b.Kind == "unreachable" {
			if hint := a.movedGatewayHint(b.URL); hint != "" {
				fmt.Fprintln(a.stderr, hint)
			} else {
				fmt.Fprintf(a.stderr, "Gateway not reachable at %s; start it with `openclaw gateway`\n", b.URL)
			}
		}
	default:
		fmt.Fprintf(a.stderr, "%s: %s\n", a.cmd, b.Message)
	}
}

// detailCode returns details.code of a gateway error, if any.
func detailCode(details any) string {
	m, _ := details.(map[string]any)
	s, _ := m["code"].(string)
	return s
}

// requestHint suggests the next step for common connect refusals.
func requestHint(b errorBody) string {
	switch detailCode(b.Details) {
	case protocol.DetailAuthTokenMissing, protocol.DetailAuthTokenMismatch:
		return "Hint: pass --token or set " + envGatewayToken + " to the gateway's gateway.auth.token."
	case protocol.DetailAuthPasswordMissing, protocol.DetailAuthPasswordMismatch:
		return "Hint: pass --password or set " + envGatewayPassword + "."
	case protocol.DetailPairingRequired:
		m, _ := b.Details.(map[string]any)
		if id, _ := m["requestId"].(string); id != "" {
			return "Hint: approve this device on the gateway with `openclaw devices approve " + id + "`."
		}
		return "Hint: approve this device with `openclaw devices list` and `openclaw devices approve`."
	case protocol.DetailMissingScope:
		return "Hint: the connection lacks a scope; use a token or device approved for it."
	}
	return ""
}

// writeJSON prints v as indented JSON with a trailing newline.
func writeJSON(w io.Writer, v any) error {
	if raw, ok := v.(json.RawMessage); ok {
		var buf bytes.Buffer
		if err := json.Indent(&buf, raw, "", "  "); err != nil {
			return fmt.Errorf("format json: %w", err)
		}
		buf.WriteByte('\n')
		_, err := w.Write(buf.Bytes())
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeJSONLine prints v as one compact JSON line.
func writeJSONLine(w io.Writer, v any) error {
	if raw, ok := v.(json.RawMessage); ok {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return fmt.Errorf("format json: %w", err)
		}
		buf.WriteByte('\n')
		_, err := w.Write(buf.Bytes())
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// orDash returns s, or "-" when it is empty (for table cells).
func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}
