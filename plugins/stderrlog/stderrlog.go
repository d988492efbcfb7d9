// Package stderrlog turns what a child process (an MCP server, a plugin)
// writes on stderr into log lines under its caller's attributes, so its
// complaints show up beside the gateway's own logs.
package stderrlog

import (
	"bytes"
	"log/slog"
	"sync"
)

// maxLogLine bounds one logged line; a process that writes without
// newlines must not grow our memory.
const maxLogLine = 4096

// Writer logs what is written to it line by line, each as msg with the
// line in "line". Use it as an exec.Cmd's Stderr.
type Writer struct {
	log *slog.Logger
	msg string
	mu  sync.Mutex
	buf []byte
}

// New returns a Writer logging to log as msg.
func New(log *slog.Logger, msg string) *Writer { return &Writer{log: log, msg: msg} }

func (l *Writer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			if len(l.buf) > maxLogLine {
				l.emit(l.buf[:maxLogLine])
				l.buf = append(l.buf[:0], l.buf[maxLogLine:]...)
				continue
			}
			return len(p), nil
		}
		l.emit(l.buf[:i])
		l.buf = append(l.buf[:0], l.buf[i+1:]...)
	}
}

func (l *Writer) emit(line []byte) {
	if line = bytes.TrimRight(line, "\r"); len(line) > 0 {
		l.log.Info(l.msg, "line", string(line))
	}
}
