package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

func init() { registerCommand("", newCompletionCmd) }

// completionShells are the shells cobra writes scripts for, as the real
// CLI's --shell choices.
var completionShells = []string{"zsh", "bash", "powershell", "fish"}

// newCompletionCmd is `openclaw completion [SHELL] [--shell S] [--install]
// [--write-state] [--yes]`: the real CLI's flags, and the shell may also
// be given as an argument (`openclaw completion zsh`), as cobra users type.
func newCompletionCmd(a *app) *cobra.Command {
	var shell string
	var install, writeState, yes bool
	c := &cobra.Command{
		Use:       "completion [bash|zsh|fish|powershell]",
		Short:     "print (or install) a shell completion script",
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: completionShells,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if shell != "" && shell != args[0] {
					return usageErrorf("completion: shell %q and --shell %q disagree", args[0], shell)
				}
				shell = args[0]
			}
			if shell == "" {
				shell = filepath.Base(os.Getenv("SHELL"))
				if !isCompletionShell(shell) {
					return usageErrorf("completion: cannot tell the shell from SHELL=%q; pass one of %s", os.Getenv("SHELL"), strings.Join(completionShells, ", "))
				}
			}
			if !isCompletionShell(shell) {
				return usageErrorf("completion: unknown shell %q (one of %s)", shell, strings.Join(completionShells, ", "))
			}
			var script bytes.Buffer
			if err := writeCompletion(cmd.Root(), shell, &script); err != nil {
				return err
			}
			switch {
			case writeState:
				paths, err := cliPaths(a.dev)
				if err != nil {
					return err
				}
				path := filepath.Join(paths.StateDir, "completions", "openclaw."+completionExt(shell))
				if err := writeScript(path, script.Bytes(), 0o644); err != nil {
					return fmt.Errorf("completion: %w", err)
				}
				fmt.Fprintf(a.stderr, "Wrote %s\n", path)
				return nil
			case install:
				return a.installCompletion(shell, script.Bytes(), yes)
			}
			_, err := a.stdout.Write(script.Bytes())
			return err
		},
	}
	c.Flags().StringVarP(&shell, "shell", "s", "", "`shell` to write the script for: zsh, bash, powershell or fish (default: from $SHELL)")
	c.Flags().BoolVarP(&install, "install", "i", false, "install the script into the shell's profile")
	c.Flags().BoolVar(&writeState, "write-state", false, "write the script to <state dir>/completions instead of stdout")
	c.Flags().BoolVarP(&yes, "yes", "y", false, "do not ask before changing the shell profile")
	return c
}

func isCompletionShell(s string) bool {
	for _, sh := range completionShells {
		if s == sh {
			return true
		}
	}
	return false
}

func completionExt(shell string) string {
	if shell == "powershell" {
		return "ps1"
	}
	return shell
}

func writeCompletion(root *cobra.Command, shell string, w io.Writer) error {
	switch shell {
	case "bash":
		return root.GenBashCompletionV2(w, true)
	case "zsh":
		return root.GenZshCompletion(w)
	case "fish":
		return root.GenFishCompletion(w, true)
	default:
		return root.GenPowerShellCompletionWithDesc(w)
	}
}

// installCompletion writes the script under the state directory and
// sources it from the shell's profile once (fish reads its completions
// folder, so the script goes there). It asks first unless --yes.
func (a *app) installCompletion(shell string, script []byte, yes bool) error {
	paths, err := cliPaths(a.dev)
	if err != nil {
		return err
	}
	home := paths.Home
	if shell == "fish" {
		path := filepath.Join(home, ".config", "fish", "completions", "openclaw.fish")
		if err := a.confirm(yes, "Write "+path+"?"); err != nil {
			return err
		}
		if err := writeScript(path, script, 0o644); err != nil {
			return fmt.Errorf("completion --install: %w", err)
		}
		fmt.Fprintf(a.stderr, "Installed %s\n", path)
		return nil
	}
	var profile string
	switch shell {
	case "bash":
		profile = filepath.Join(home, ".bashrc")
	case "zsh":
		profile = filepath.Join(home, ".zshrc")
	default:
		return usageErrorf("completion --install: not for %s; add `openclaw completion --shell %s | Out-String | Invoke-Expression` to your profile", shell, shell)
	}
	scriptPath := filepath.Join(paths.StateDir, "completions", "openclaw."+shell)
	line := fmt.Sprintf("[ -f %s ] && source %s # openclaw completion", shellQuote(scriptPath), shellQuote(scriptPath))
	old, err := os.ReadFile(profile)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("completion --install: %w", err)
	}
	if err := writeScript(scriptPath, script, 0o644); err != nil {
		return fmt.Errorf("completion --install: %w", err)
	}
	if bytes.Contains(old, []byte(line)) {
		fmt.Fprintf(a.stderr, "Updated %s (already sourced from %s)\n", scriptPath, profile)
		return nil
	}
	if err := a.confirm(yes, "Add a line sourcing "+scriptPath+" to "+profile+"?"); err != nil {
		return err
	}
	f, err := os.OpenFile(profile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("completion --install: %w", err)
	}
	prefix := ""
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		prefix = "\n"
	}
	if _, err := fmt.Fprintf(f, "%s%s\n", prefix, line); err != nil {
		f.Close()
		return fmt.Errorf("completion --install: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("completion --install: %w", err)
	}
	fmt.Fprintf(a.stderr, "Installed: %s now sources %s; open a new shell to use it\n", profile, scriptPath)
	return nil
}

// confirm asks a yes/no question on the terminal; without --yes and
// without an answer it refuses, so scripts never change a profile
// silently.
func (a *app) confirm(yes bool, question string) error {
	if yes {
		return nil
	}
	fmt.Fprintf(a.stderr, "%s [y/N] ", question)
	var answer string
	if _, err := fmt.Fscanln(a.stdin, &answer); err != nil {
		fmt.Fprintln(a.stderr)
		return usageErrorf("not confirmed (pass --yes to skip the question)")
	}
	if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
		return usageErrorf("not confirmed")
	}
	return nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeScript writes a completion script, creating its folder private to
// the user (it may be under the state directory).
func writeScript(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, data, mode)
}
