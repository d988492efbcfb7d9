// Package mateclaw holds the small tools of MateClaw's built-in set that
// have no OpenClaw counterpart (DateTimeTool, FileTypeDetectorTool). The
// table that maps MateClaw's other tool names onto ours is
// policy.MateClawNames, so policy lists, guard rules and the registry
// read one table.
package mateclaw

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// DateTimeArgs are DateTimeTool's arguments.
type DateTimeArgs struct {
	Timezone string `json:"timezone,omitempty" jsonschema:"description=IANA zone such as America/New_York (default UTC)"`
}

// FileTypeArgs are FileTypeDetectorTool's arguments.
type FileTypeArgs struct {
	Path string `json:"path" jsonschema:"description=File path inside your workspace"`
}

// Tools returns DateTimeTool and FileTypeDetectorTool. now is the clock
// (time.Now in production); workspace maps a caller to its workspace.
func Tools(now func() time.Time, workspace func(tools.Who) (string, error)) []tools.Tool {
	dt := tools.NewTyped(tools.Spec{
		Name: "DateTimeTool", Description: "The current date and time in any IANA time zone.",
		Source: tools.SourceCore, Groups: []string{"group:mateclaw"}, Timeout: tools.TimeoutFast,
	}, func(ctx context.Context, c tools.Call, a DateTimeArgs) (tools.Result, error) {
		zone := a.Timezone
		if zone == "" {
			zone = "UTC"
		}
		loc, err := time.LoadLocation(zone)
		if err != nil {
			return tools.Result{}, fmt.Errorf("unknown time zone %q", zone)
		}
		t := now().In(loc)
		return tools.Result{Text: fmt.Sprintf("%s (%s, %s)", t.Format("2006-01-02T15:04:05"), zone, t.Weekday())}, nil
	})
	ft := tools.NewTyped(tools.Spec{
		Name: "FileTypeDetectorTool", Description: "Detect a workspace file's MIME type and text encoding.",
		Source: tools.SourceCore, Groups: []string{"group:mateclaw"}, Timeout: tools.TimeoutFast,
	}, func(ctx context.Context, c tools.Call, a FileTypeArgs) (tools.Result, error) {
		ws, err := workspace(c.Who)
		if err != nil {
			return tools.Result{}, err
		}
		root, err := os.OpenRoot(ws)
		if err != nil {
			return tools.Result{}, fmt.Errorf("open workspace: %w", err)
		}
		defer root.Close()
		rel := a.Path
		if filepath.IsAbs(rel) {
			if rel, err = filepath.Rel(ws, rel); err != nil || strings.HasPrefix(rel, "..") {
				return tools.Result{}, fmt.Errorf("%s is outside the workspace", a.Path)
			}
		}
		f, err := fs.OpenRead(root, rel)
		if err != nil {
			return tools.Result{}, fmt.Errorf("open %s: %w", a.Path, err)
		}
		defer f.Close()
		head := make([]byte, 4096)
		n, _ := f.Read(head)
		head = head[:n]
		mime := http.DetectContentType(head)
		return tools.Result{Text: fmt.Sprintf("mime: %s\nencoding: %s", mime, encodingOf(head))}, nil
	})
	return []tools.Tool{dt, ft}
}

// encodingOf guesses a text encoding from the first bytes.
func encodingOf(b []byte) string {
	switch {
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
		return "utf-8 (with BOM)"
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		return "utf-16le"
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		return "utf-16be"
	case strings.ContainsRune(string(b), 0):
		return "binary"
	case utf8.Valid(b):
		return "utf-8"
	}
	return "unknown (not utf-8)"
}
