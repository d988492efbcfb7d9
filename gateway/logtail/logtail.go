// Package logtail serves the logs.tail method: it reads the gateway's log
// file from a byte cursor, so clients can follow it by passing back the
// cursor they were given.
package logtail

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Params are logs.tail's params.
type Params struct {
	Cursor   *int64 `json:"cursor,omitempty"`
	Limit    int    `json:"limit,omitempty"`
	MaxBytes int64  `json:"maxBytes,omitempty"`
}

// Result is logs.tail's answer.
type Result struct {
	File         string   `json:"file"`
	Cursor       int64    `json:"cursor"`
	Size         int64    `json:"size"`
	Lines        []string `json:"lines"`
	Truncated    bool     `json:"truncated,omitempty"`
	Reset        bool     `json:"reset,omitempty"`
	SkippedBytes int64    `json:"skippedBytes,omitempty"`
}

// Defaults and bounds from the protocol schema.
const (
	DefaultLimit    = 200
	MaxLimit        = 5000
	DefaultMaxBytes = 250_000
	MaxMaxBytes     = 1_000_000
)

// Validate checks the bounds and fills defaults.
func (p *Params) Validate() error {
	if p.Cursor != nil && *p.Cursor < 0 {
		return errors.New("cursor must be >= 0")
	}
	switch {
	case p.Limit == 0:
		p.Limit = DefaultLimit
	case p.Limit < 1 || p.Limit > MaxLimit:
		return fmt.Errorf("limit must be between 1 and %d", MaxLimit)
	}
	switch {
	case p.MaxBytes == 0:
		p.MaxBytes = DefaultMaxBytes
	case p.MaxBytes < 1 || p.MaxBytes > MaxMaxBytes:
		return fmt.Errorf("maxBytes must be between 1 and %d", MaxMaxBytes)
	}
	return nil
}

// Tail reads path. Without a cursor it returns the last Limit lines within
// MaxBytes; with one it returns whole lines written after it (at most
// MaxBytes, the rest left for the next call). A cursor past the end of the
// file (it was truncated or rotated) restarts from the top with Reset set.
func Tail(path string, p Params) (*Result, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	res := &Result{File: path, Lines: []string{}}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open log file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat log file: %w", err)
	}
	size := fi.Size()
	res.Size = size

	var start int64
	if p.Cursor == nil {
		start = max(0, size-p.MaxBytes)
	} else {
		start = *p.Cursor
		if start > size {
			start, res.Reset = 0, true
		}
	}
	n := min(size-start, p.MaxBytes)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read log file: %w", err)
	}
	if p.Cursor == nil && start > 0 && !startsLine(f, start) {
		// Drop the partial first line.
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			res.SkippedBytes = start + int64(i) + 1
			buf, start = buf[i+1:], start+int64(i)+1
		}
	}
	// Only whole lines: leave a partial last line for the next call.
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		res.Cursor = start
		if int64(len(buf)) == p.MaxBytes && n > 0 {
			// One line longer than maxBytes: return it cut.
			res.Lines = append(res.Lines, string(buf))
			res.Cursor, res.Truncated = start+int64(len(buf)), true
		}
		return res, nil
	}
	body := buf[:end]
	res.Cursor = start + int64(end) + 1
	lines := bytes.Split(body, []byte{'\n'})
	if len(lines) > p.Limit {
		if p.Cursor == nil {
			lines = lines[len(lines)-p.Limit:]
		} else {
			// Keep the cursor consistent with what we return.
			var consumed int64
			for _, l := range lines[:p.Limit] {
				consumed += int64(len(l)) + 1
			}
			lines = lines[:p.Limit]
			res.Cursor = start + consumed
		}
		res.Truncated = true
	}
	for _, l := range lines {
		res.Lines = append(res.Lines, string(l))
	}
	if res.Cursor < size {
		res.Truncated = true
	}
	return res, nil
}

// startsLine reports whether offset is at the beginning of a line.
func startsLine(f *os.File, offset int64) bool {
	b := make([]byte, 1)
	_, err := f.ReadAt(b, offset-1)
	return err == nil && b[0] == '\n'
}
