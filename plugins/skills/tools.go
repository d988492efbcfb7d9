package skills

import (
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// Group is the skill tools' policy group (ours: OpenClaw has none), so
// tools.allow or deny can name them together.
const Group = "group:skills"

// CatalogFunc yields the caller's current catalog: the gateway builds it
// from the caller's workspace, the managed directory and extraDirs, and
// applies skills.entries.<name>.enabled.
type CatalogFunc func(who tools.Who) Catalog

func spec(name, label, desc string, tier tools.Tier, dangerous bool) tools.Spec {
	return tools.Spec{
		Name: name, Label: label, Description: desc,
		Tier: tier, Dangerous: dangerous,
		Timeout: tools.TimeoutFast,
		Source:  tools.SourceCore,
		Groups:  []string{Group},
	}
}

// LoadSkillArgs are load_skill's arguments.
type LoadSkillArgs struct {
	SkillName string `json:"skillName" jsonschema:"description=Name of the skill as listed in the skills directory"`
	FilePath  string `json:"filePath,omitempty" jsonschema:"description=A file inside the skill folder to read instead of SKILL.md, relative to the folder (e.g. references/api.md)"`
}

// LoadSkillTool is load_skill: it returns an available skill's SKILL.md
// body, or another text file of the skill, as the tool result. The agent
// loop keeps tool results in the conversation, so a loaded skill stays in
// context for later turns without changing the (cached) system prompt.
func LoadSkillTool(catalog CatalogFunc) tools.Tool {
	return tools.NewTyped(spec("load_skill", "Load skill",
		"Load a skill's instructions (SKILL.md) by name, or a file inside the skill folder with filePath. Call it before doing a task a listed skill covers.",
		tools.TierCore, false),
		func(ctx context.Context, c tools.Call, a LoadSkillArgs) (tools.Result, error) {
			e, err := usable(catalog, c.Who, a.SkillName)
			if err != nil {
				return tools.Result{}, err
			}
			if a.FilePath == "" || cleanRel(a.FilePath) == FileName {
				return tools.Result{Text: fmt.Sprintf("[skill %s loaded from %s]\n\n%s", e.Name, e.Origin, e.Body)}, nil
			}
			text, rel, err := readText(e.Dir, a.FilePath)
			if err != nil {
				return tools.Result{}, err
			}
			return tools.Result{Text: fmt.Sprintf("[skill %s file %s loaded from %s]\n\n%s", e.Name, rel, e.Origin, text)}, nil
		})
}

// SkillFileArgs are skill_file's arguments.
type SkillFileArgs struct {
	Action    string `json:"action" jsonschema:"enum=list,enum=read,description=list the skill's files or read one"`
	SkillName string `json:"skillName" jsonschema:"description=Name of the skill"`
	Path      string `json:"path,omitempty" jsonschema:"description=File to read, relative to the skill folder (read only)"`
}

// maxListed bounds skill_file list.
const maxListed = 500

// SkillFileTool is skill_file: list or read the files of an available
// skill. It never writes; skill_manage does.
func SkillFileTool(catalog CatalogFunc) tools.Tool {
	return tools.NewTyped(spec("skill_file", "Skill files",
		"List the files of a skill package (action=list) or read one text file of it (action=read, path relative to the skill folder).",
		tools.TierExtension, false),
		func(ctx context.Context, c tools.Call, a SkillFileArgs) (tools.Result, error) {
			e, err := usable(catalog, c.Who, a.SkillName)
			if err != nil {
				return tools.Result{}, err
			}
			switch a.Action {
			case "list":
				return tools.Result{Text: listFiles(e)}, nil
			case "read":
				if a.Path == "" {
					return tools.Result{}, errors.New("read needs a path")
				}
				text, _, err := readText(e.Dir, a.Path)
				return tools.Result{Text: text}, err
			}
			return tools.Result{}, fmt.Errorf("unknown action %q: use list or read", a.Action)
		})
}

// usable finds a skill the caller may use, or says why not.
func usable(catalog CatalogFunc, who tools.Who, name string) (Entry, error) {
	e, ok := catalog(who).Get(name)
	if !ok {
		return Entry{}, fmt.Errorf("no skill named %q", name)
	}
	if e.Status != StatusAvailable {
		return Entry{}, fmt.Errorf("skill %q is unavailable: %s", name, e.Reason)
	}
	return e, nil
}

// cleanRel turns a model-supplied path into a slash-separated path
// relative to the skill folder, or "" when it is absolute or climbs out.
// The os.Root open that follows is the real confinement (symlinks
// included); this only gives a clear refusal for the obvious cases.
func cleanRel(p string) string {
	p = filepath.ToSlash(strings.TrimSpace(p))
	if p == "" || path.IsAbs(p) || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return ""
	}
	p = path.Clean(p)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	return p
}

// readText reads one text file inside dir through an os.Root.
func readText(dir, p string) (text, rel string, err error) {
	rel = cleanRel(p)
	if rel == "" {
		return "", "", fmt.Errorf("path %q is outside the skill folder", p)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", "", fmt.Errorf("open skill folder: %w", err)
	}
	defer root.Close()
	f, err := fs.OpenRead(root, filepath.FromSlash(rel))
	if err != nil {
		return "", "", fmt.Errorf("read %s: %w", rel, trimPathError(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", "", fmt.Errorf("read %s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return "", "", fmt.Errorf("%s is not a file", rel)
	}
	if fi.Size() > MaxFileBytes {
		return "", "", fmt.Errorf("%s is larger than %d KiB", rel, MaxFileBytes>>10)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return "", "", fmt.Errorf("read %s: %w", rel, err)
	}
	if len(data) > MaxFileBytes {
		return "", "", fmt.Errorf("%s is larger than %d KiB", rel, MaxFileBytes>>10)
	}
	if !isText(data) {
		return "", "", fmt.Errorf("%s is not a text file", rel)
	}
	return string(data), rel, nil
}

func isText(b []byte) bool {
	return utf8.Valid(b) && !strings.ContainsRune(string(b), 0)
}

// trimPathError drops the absolute path from an os error so results name
// only the path the model gave.
func trimPathError(err error) error {
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func listFiles(e Entry) string {
	root, err := os.OpenRoot(e.Dir)
	if err != nil {
		return "cannot open skill folder"
	}
	defer root.Close()
	var b strings.Builder
	fmt.Fprintf(&b, "skill %s (%s):\n", e.Name, e.Origin)
	n := 0
	iofs.WalkDir(root.FS(), ".", func(p string, d iofs.DirEntry, err error) error {
		if err != nil || p == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return iofs.SkipDir
			}
			return nil
		}
		if n >= maxListed {
			b.WriteString("… more files not listed\n")
			return iofs.SkipAll
		}
		n++
		if d.IsDir() {
			fmt.Fprintf(&b, "%s/\n", p)
			return nil
		}
		size := int64(-1)
		if fi, err := d.Info(); err == nil {
			size = fi.Size()
		}
		fmt.Fprintf(&b, "%s (%d bytes)\n", p, size)
		return nil
	})
	return b.String()
}
