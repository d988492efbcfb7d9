package gateway

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// fileAttr writes log file lines in the field names OpenClaw's log
// readers use (time, level in lower case, message, subsystem), so
// `openclaw logs` from either CLI shows them properly.
func fileAttr(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.MessageKey:
		a.Key = "message"
	case slog.LevelKey:
		a.Value = slog.StringValue(strings.ToLower(a.Value.String()))
	case "component":
		a.Key = "subsystem"
	}
	return a
}

// setupLogging logs to stderr and to the log file that logs.tail reads.
// The file always gets JSON lines; the console gets text unless
// logging.consoleStyle is "json".
func (s *System) setupLogging(snap *config.Snapshot) (func(), error) {
	lc := snap.Config.Logging
	s.logFile = lc.File
	if s.logFile == "" {
		s.logFile = filepath.Join(s.opts.StateDir, "logs", "gateway.log")
	}
	if err := os.MkdirAll(filepath.Dir(s.logFile), 0o700); err != nil {
		return nil, fmt.Errorf("create log dir: %w", err)
	}
	f, err := os.OpenFile(s.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open log file %s: %w", s.logFile, err)
	}
	s.setLevels(lc)
	hopts := &slog.HandlerOptions{Level: s.consoleLevel}
	var console slog.Handler
	if lc.ConsoleStyle == "json" {
		console = slog.NewJSONHandler(s.opts.Stderr, hopts)
	} else {
		console = slog.NewTextHandler(s.opts.Stderr, hopts)
	}
	fileOpts := &slog.HandlerOptions{Level: s.logLevel, ReplaceAttr: fileAttr}
	s.log = slog.New(slog.NewMultiHandler(console, slog.NewJSONHandler(f, fileOpts)))
	if s.opts.Getenv != nil {
		if v := strings.TrimSpace(s.opts.Getenv("OPENCLAW_LOG_LEVEL")); v != "" && s.envLogLevel() == "" {
			s.log.Warn("OPENCLAW_LOG_LEVEL is not a log level; using the config's", "value", v,
				"levels", "silent, fatal, error, warn, info, debug, trace")
		}
	}
	return func() { f.Close() }, nil
}

func levelOf(name string) slog.Level {
	switch name {
	case "trace", "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error", "fatal":
		return slog.LevelError
	case "silent":
		return slog.LevelError + 100
	default:
		return slog.LevelInfo
	}
}

// setLevels applies logging.level to the file and logging.consoleLevel
// to the console.
func (s *System) setLevels(lc config.Logging) {
	s.logLevel.Set(s.levelFor(lc.Level))
	s.consoleLevel.Set(s.levelFor(lc.ConsoleLevel))
}

// levelFor is the level of a configured name: --verbose wins, then
// OPENCLAW_LOG_LEVEL (which `openclaw --log-level` sets), then the config.
func (s *System) levelFor(name string) slog.Level {
	if s.opts.Verbose {
		return slog.LevelDebug
	}
	if env := s.envLogLevel(); env != "" {
		name = env
	}
	return levelOf(name)
}

// logLevelNames are the levels OpenClaw's logging accepts.
var logLevelNames = map[string]bool{"silent": true, "fatal": true, "error": true, "warn": true, "info": true, "debug": true, "trace": true}

// envLogLevel is OPENCLAW_LOG_LEVEL when it names a level; another value
// is ignored (and warned about once the log exists).
func (s *System) envLogLevel() string {
	if s.opts.Getenv == nil {
		return ""
	}
	v := strings.ToLower(strings.TrimSpace(s.opts.Getenv("OPENCLAW_LOG_LEVEL")))
	if !logLevelNames[v] {
		return ""
	}
	return v
}
