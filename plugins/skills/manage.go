package skills

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/openclaw-go/openclaw/tools"
	"github.com/openclaw-go/openclaw/tools/fs"
)

// SkillManageArgs are skill_manage's arguments.
type SkillManageArgs struct {
	Action    string `json:"action" jsonschema:"enum=create,enum=edit,enum=delete,description=create a skill package, edit one of its files, or delete the package"`
	SkillName string `json:"skillName" jsonschema:"description=Skill name: letters, digits and hyphens, at most 64"`
	Content   string `json:"content,omitempty" jsonschema:"description=Full new file content (create and edit). For SKILL.md it must start with front matter holding name and description."`
	FilePath  string `json:"filePath,omitempty" jsonschema:"description=File to write inside the skill folder for edit (default SKILL.md), e.g. scripts/run.sh"`
}

// SkillManageTool is skill_manage: create, edit or delete a skill package
// under the caller's workspace skills directory, and nowhere else; the
// managed and extra directories belong to people. skillsDir maps the
// caller to that directory (<workspace>/skills), created if missing.
// SKILL.md is validated with [Parse] before it is written, so a broken
// skill is refused rather than discovered as invalid later. The tool is
// dangerous: a skill is instructions a later run will follow, and its
// scripts run under skill_script.
func SkillManageTool(skillsDir func(tools.Who) (string, error)) tools.Tool {
	return tools.NewTyped(spec("skill_manage", "Manage skills",
		"DANGEROUS: create, edit or delete a skill package in this agent's workspace skills/ folder. Skills are instructions future runs follow and may hold scripts that get executed.",
		tools.TierExtension, true),
		func(ctx context.Context, c tools.Call, a SkillManageArgs) (tools.Result, error) {
			if err := ValidName(a.SkillName); err != nil {
				return tools.Result{}, err
			}
			dir, err := skillsDir(c.Who)
			if err != nil {
				return tools.Result{}, fmt.Errorf("resolve skills directory: %w", err)
			}
			ws, err := fs.OpenWorkspace(dir)
			if err != nil {
				return tools.Result{}, err
			}
			defer ws.Close()
			root := ws.Root()
			fi, statErr := root.Lstat(a.SkillName)
			exists := statErr == nil
			if exists && !fi.IsDir() {
				return tools.Result{}, fmt.Errorf("skills/%s exists and is not a skill folder", a.SkillName)
			}
			switch a.Action {
			case "create":
				if exists {
					return tools.Result{}, fmt.Errorf("skill %s already exists; use edit", a.SkillName)
				}
				if err := validateSkillMD(a.Content, a.SkillName); err != nil {
					return tools.Result{}, err
				}
				if err := root.Mkdir(a.SkillName, 0o700); err != nil {
					return tools.Result{}, fmt.Errorf("create skill %s: %w", a.SkillName, trimPathError(err))
				}
				if err := fs.WriteAtomic(root, filepath.Join(a.SkillName, FileName), []byte(a.Content), false); err != nil {
					return tools.Result{}, fmt.Errorf("write %s/%s: %w", a.SkillName, FileName, trimPathError(err))
				}
				return tools.Result{Text: fmt.Sprintf("created skill %s (skills/%s/%s)", a.SkillName, a.SkillName, FileName)}, nil
			case "edit":
				if !exists {
					return tools.Result{}, fmt.Errorf("no skill %s in the workspace; use create", a.SkillName)
				}
				rel := FileName
				if a.FilePath != "" {
					if rel = cleanRel(a.FilePath); rel == "" {
						return tools.Result{}, fmt.Errorf("path %q is outside the skill folder", a.FilePath)
					}
				}
				if rel == FileName {
					if err := validateSkillMD(a.Content, a.SkillName); err != nil {
						return tools.Result{}, err
					}
				} else if len(a.Content) > MaxFileBytes || !isText([]byte(a.Content)) {
					return tools.Result{}, fmt.Errorf("content must be text of at most %d KiB", MaxFileBytes>>10)
				}
				// Through the root: a symlinked subfolder leading out is refused.
				if err := fs.WriteAtomic(root, filepath.Join(a.SkillName, filepath.FromSlash(rel)), []byte(a.Content), true); err != nil {
					return tools.Result{}, fmt.Errorf("write %s/%s: %w", a.SkillName, rel, trimPathError(err))
				}
				return tools.Result{Text: fmt.Sprintf("wrote skills/%s/%s (%d bytes)", a.SkillName, rel, len(a.Content))}, nil
			case "delete":
				if !exists {
					return tools.Result{}, fmt.Errorf("no skill %s in the workspace", a.SkillName)
				}
				if err := root.RemoveAll(a.SkillName); err != nil {
					return tools.Result{}, fmt.Errorf("delete skill %s: %w", a.SkillName, trimPathError(err))
				}
				return tools.Result{Text: "deleted skill " + a.SkillName}, nil
			}
			return tools.Result{}, fmt.Errorf("unknown action %q: use create, edit or delete", a.Action)
		})
}

// validateSkillMD checks new SKILL.md content for a skill folder name.
func validateSkillMD(content, name string) error {
	if content == "" {
		return errors.New("content is required")
	}
	s, err := Parse([]byte(content), name)
	if err != nil {
		return fmt.Errorf("invalid %s: %w", FileName, err)
	}
	if s.Name != name {
		// Discovery keys skills by front-matter name; a mismatch would make
		// the folder unreachable by the name the agent just used.
		return fmt.Errorf("invalid %s: front matter name %q differs from skillName %q", FileName, s.Name, name)
	}
	return nil
}
