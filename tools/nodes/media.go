package nodes

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/openclaw-go/openclaw/tools"
)

// MaxMediaBytes caps one picture or video a node sends back.
const MaxMediaBytes = 20 << 20

// Extensions a saved file may get, by kind; anything else gets the kind's
// first one.
var (
	imageExts = []string{"jpg", "jpeg", "png", "webp", "heic", "gif"}
	videoExts = []string{"mp4", "mov", "webm"}
)

// render turns a node's payload into the tool's text. A payload with a
// base64 field is saved into the workspace and replaced by the path.
func (t *tool) render(who tools.Who, action string, n Node, payload json.RawMessage) (tools.Result, error) {
	var fields map[string]any
	if json.Unmarshal(payload, &fields) != nil {
		return tools.Result{Text: string(payload)}, nil
	}
	b64, ok := fields["base64"].(string)
	if !ok {
		return tools.Result{Text: string(payload)}, nil
	}
	delete(fields, "base64")
	video := action == "camera_clip" || action == "screen_record"
	format, _ := fields["format"].(string)
	abs, rel, size, err := t.save(who, action, n.NodeID, b64, extension(format, video))
	if err != nil {
		return tools.Result{}, fmt.Errorf("%s: save media: %w", action, err)
	}
	fields["path"], fields["bytes"] = rel, size
	meta, _ := json.Marshal(fields)
	tag := "MEDIA:"
	if video {
		tag = "FILE:"
	}
	return tools.Result{Text: fmt.Sprintf("%s\n%s%s", meta, tag, abs)}, nil
}

// save decodes b64 and writes it, through an os.Root on the caller's
// workspace, to nodes/<date>/<action>-<node>-<time>-<rand>.<ext>. It
// returns the absolute and workspace-relative paths and the size.
func (t *tool) save(who tools.Who, action, nodeID, b64, ext string) (abs, rel string, size int, err error) {
	if base64.StdEncoding.DecodedLen(len(b64)) > MaxMediaBytes+2 {
		return "", "", 0, fmt.Errorf("the node sent more than %d MB", MaxMediaBytes>>20)
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return "", "", 0, fmt.Errorf("decode base64: %w", err)
	}
	if len(data) > MaxMediaBytes {
		return "", "", 0, fmt.Errorf("the node sent more than %d MB", MaxMediaBytes>>20)
	}
	if t.workspace == nil {
		return "", "", 0, errors.New("no workspace to save into")
	}
	dir, err := t.workspace(who)
	if err != nil {
		return "", "", 0, err
	}
	if dir == "" {
		return "", "", 0, errors.New("no workspace directory for this agent")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", 0, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", "", 0, err
	}
	defer root.Close()
	now := t.now().UTC()
	sub := path.Join("nodes", now.Format("2006-01-02"))
	if err := root.MkdirAll(sub, 0o700); err != nil {
		return "", "", 0, err
	}
	var r [4]byte
	rand.Read(r[:])
	rel = path.Join(sub, fmt.Sprintf("%s-%s-%s-%s.%s", action, safeName(nodeID), now.Format("150405"), hex.EncodeToString(r[:]), ext))
	f, err := root.OpenFile(rel, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return "", "", 0, err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		root.Remove(rel)
		return "", "", 0, err
	}
	return filepath.Join(dir, filepath.FromSlash(rel)), rel, len(data), nil
}

// extension picks a known file extension for a node's format.
func extension(format string, video bool) string {
	exts := imageExts
	if video {
		exts = videoExts
	}
	f := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(format), "."))
	for _, e := range exts {
		if f == e {
			return e
		}
	}
	return exts[0]
}

// safeName keeps a node id usable in a file name: letters, digits, - and
// _, at most 12 characters.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 12 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "node"
	}
	return b.String()
}
