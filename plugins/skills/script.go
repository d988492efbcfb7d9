package skills

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// Runner runs one command under the gateway's exec policy: the command
// analyzer, the exec approvals file and, when they say ask, a person. The
// gateway implements it over the same machinery as the exec tool; the
// skills package only chooses what to run. Run blocks until the command
// ends, is refused, or ctx or timeout ends it; err is for a refusal or a
// failure to start, while a command that ran and failed reports its exit
// code. env holds extra KEY=VALUE pairs on top of the policy's base
// environment. Run may be called concurrently.
type Runner interface {
	Run(ctx context.Context, who tools.Who, argv []string, dir string, env []string, timeout time.Duration) (stdout, stderr string, exitCode int, err error)
}

// Script limits.
const (
	ScriptTimeout  = 60 * time.Second
	maxScriptArgs  = 64
	maxOutputBytes = 10_000 // per stream, as exec caps them
)

// interpreters run scripts that are not executable, by extension: files
// written by skill_manage are created without the execute bit.
var interpreters = map[string]string{
	".sh":   "sh",
	".bash": "bash",
	".py":   "python3",
	".js":   "node",
	".mjs":  "node",
	".rb":   "ruby",
	".ps1":  "pwsh",
}

// SkillScriptArgs are skill_script's arguments.
type SkillScriptArgs struct {
	SkillName string   `json:"skillName" jsonschema:"description=Name of the skill"`
	Script    string   `json:"script" jsonschema:"description=File name under the skill's scripts/ folder"`
	Args      []string `json:"args,omitempty" jsonschema:"description=Arguments passed to the script one by one (no shell)"`
}

// SkillScriptTool is skill_script: run scripts/<script> of an available
// skill, in the skill folder, through runner so the exec policy and
// approvals apply exactly as to exec. Arguments go to the script as argv,
// never through a shell.
func SkillScriptTool(catalog CatalogFunc, runner Runner) tools.Tool {
	s := spec("skill_script", "Run skill script",
		"Run a script shipped in a skill's scripts/ folder with arguments (no shell). Subject to exec approvals.",
		tools.TierExtension, true)
	s.Timeout = ScriptTimeout + 10*time.Second // let the runner's own timeout report first
	return tools.NewTyped(s, func(ctx context.Context, c tools.Call, a SkillScriptArgs) (tools.Result, error) {
		e, err := usable(catalog, c.Who, a.SkillName)
		if err != nil {
			return tools.Result{}, err
		}
		if len(a.Args) > maxScriptArgs {
			return tools.Result{}, fmt.Errorf("at most %d arguments", maxScriptArgs)
		}
		argv, err := scriptArgv(e, a.Script)
		if err != nil {
			return tools.Result{}, err
		}
		argv = append(argv, a.Args...)
		env := append([]string{"SKILL_NAME=" + e.Name, "SKILL_DIR=" + e.Dir}, e.Env...)
		stdout, stderr, code, err := runner.Run(ctx, c.Who, argv, e.Dir, env, ScriptTimeout)
		if err != nil {
			return tools.Result{}, fmt.Errorf("run %s/scripts/%s: %w", e.Name, a.Script, err)
		}
		// Each stream gets at most half the caller's cap (less the labels
		// and notes), so stderr, where a failure says why, is never what
		// the runner's cut drops.
		limit := maxOutputBytes
		if c.MaxChars > 0 {
			limit = max(0, min(limit, c.MaxChars/2-scriptFrameChars))
		}
		var b strings.Builder
		fmt.Fprintf(&b, "exit code %d\n", code)
		if stdout != "" {
			fmt.Fprintf(&b, "stdout:\n%s\n", capOutput(stdout, limit))
		}
		if stderr != "" {
			fmt.Fprintf(&b, "stderr:\n%s\n", capOutput(stderr, limit))
		}
		return tools.Result{Text: b.String(), IsError: code != 0}, nil
	})
}

// scriptArgv resolves scripts/<name> inside the skill folder. The name
// must be a plain file name; the file is opened through an os.Root so a
// symlink out of the folder is refused. (The runner then starts it by
// path; swapping the file between this check and the start needs write
// access to the skill folder, which is already full control of it.)
func scriptArgv(e Entry, name string) ([]string, error) {
	if name == "" || name != path.Base(name) || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return nil, fmt.Errorf("script %q must be a file name under scripts/", name)
	}
	root, err := os.OpenRoot(e.Dir)
	if err != nil {
		return nil, fmt.Errorf("open skill folder: %w", err)
	}
	defer root.Close()
	rel := filepath.Join("scripts", name)
	f, err := root.Open(rel)
	if err != nil {
		return nil, fmt.Errorf("skill %s has no script %s: %w", e.Name, name, trimPathError(err))
	}
	fi, err := f.Stat()
	f.Close()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("scripts/%s is not a file", name)
	}
	abs := filepath.Join(e.Dir, rel)
	if fi.Mode().Perm()&0o111 != 0 {
		return []string{abs}, nil
	}
	if interp, ok := interpreters[strings.ToLower(filepath.Ext(name))]; ok {
		return []string{interp, abs}, nil
	}
	return nil, fmt.Errorf("scripts/%s is not executable and its extension names no interpreter", name)
}

// scriptFrameChars is room for a stream's label and truncation note.
const scriptFrameChars = 80

// capOutput keeps at most limit bytes of s, saying so when it cuts.
func capOutput(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	return clip(s, limit) + fmt.Sprintf("\n[output truncated: %d bytes total]", len(s))
}
