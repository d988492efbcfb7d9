package mcp

import (
	"bytes"
	"log/slog"
	"sync"
)

// maxLogLine bounds one logged stderr line; a server that writes without
// newlines must not grow our memory.
const maxLogLine = 4096

// lineLog logs a stdio server's stderr line by line under its server's
// attributes, so its complaints show up beside the gateway's own logs.
type lineLog struct {
	log *slog.Logger
	mu  sync.Mutex
	buf []byte
}

func (l *lineLog) Write(p []byte) (int, error) {
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

func (l *lineLog) emit(line []byte) {
	if line = bytes.TrimRight(line, "\r"); len(line) > 0 {
		l.log.Info("mcp server stderr", "line", string(line))
	}
}
