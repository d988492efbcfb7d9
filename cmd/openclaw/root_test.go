package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestCommandTree covers what cobra brings: help that exits 0 at every
// level, suggestions for a mistyped command, completion scripts and the
// global flags.
func TestCommandTree(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantErr    bool
		wantUsage  bool // the error is a bad command line
		wantStdout []string
		wantErrMsg []string
	}{
		{name: "root help", args: []string{"--help"}, wantStdout: []string{"Available Commands:", "devices", "gateway", "--profile name"}},
		{name: "help command", args: []string{"help", "cron"}, wantStdout: []string{"openclaw cron", "runs"}},
		{name: "no command shows help", args: nil, wantStdout: []string{"Available Commands:"}},
		{name: "group help", args: []string{"devices", "--help"}, wantStdout: []string{"approve", "list paired devices", "Global Flags:"}},
		{name: "group alone shows help", args: []string{"channels"}, wantStdout: []string{"openclaw channels", "logout"}},
		{name: "alias group", args: []string{"automations", "--help"}, wantStdout: []string{"list scheduled jobs"}},
		{name: "leaf help", args: []string{"devices", "list", "--help"}, wantStdout: []string{"Usage: openclaw devices list", "--token token"}},
		{name: "subcommand alias", args: []string{"cron", "rm", "--help"}, wantStdout: []string{"Usage: openclaw cron rm"}},
		{name: "alias listed", args: []string{"cron", "remove", "--help"}, wantStdout: []string{"Usage: openclaw cron remove"}},
		{name: "nested legacy group help", args: []string{"nodes", "canvas", "--help"}, wantStdout: []string{"openclaw nodes canvas <command>", "a2ui, eval"}},
		{name: "deeper legacy group help", args: []string{"system", "heartbeat", "-h"}, wantStdout: []string{"disable, enable, last"}},
		{name: "version", args: []string{"-V"}, wantStdout: []string{"openclaw " + version}},
		{name: "version -v", args: []string{"-v"}, wantStdout: []string{"openclaw " + version}},
		{name: "typo", args: []string{"devics"}, wantErr: true, wantUsage: true,
			wantErrMsg: []string{`does not know the command "devics"`, "Did you mean this?", "openclaw devices"}},
		{name: "sub typo", args: []string{"nodes", "lisst"}, wantErr: true, wantUsage: true,
			wantErrMsg: []string{`openclaw nodes has no command "lisst"`, "openclaw nodes list"}},
		{name: "unknown with help", args: []string{"frobnicate", "--help"}, wantErr: true, wantUsage: true,
			wantErrMsg: []string{`does not know the command "frobnicate"`}},
		{name: "nothing near", args: []string{"zzzzzzzz"}, wantErr: true, wantUsage: true,
			wantErrMsg: []string{`"zzzzzzzz"`, "Try: openclaw --help"}},
		{name: "bash completion", args: []string{"completion", "bash"}, wantStdout: []string{"bash completion", "__openclaw"}},
		{name: "zsh completion", args: []string{"completion", "zsh"}, wantStdout: []string{"#compdef openclaw"}},
		{name: "fish completion", args: []string{"completion", "fish"}, wantStdout: []string{"complete -c openclaw"}},
		{name: "unknown shell", args: []string{"completion", "tcsh"}, wantErr: true, wantUsage: true, wantErrMsg: []string{"tcsh"}},
		{name: "complete commands", args: []string{"__complete", "dev"}, wantStdout: []string{"devices\t"}},
		{name: "complete subcommands", args: []string{"__complete", "cron", "r"}, wantStdout: []string{"remove", "run", "runs"}},
		{name: "complete legacy flags", args: []string{"__complete", "devices", "list", "--t"}, wantStdout: []string{"--token\tgateway shared token", "--timeout"}},
		{name: "bad profile", args: []string{"--profile", "../etc", "config", "file"}, wantErr: true, wantUsage: true, wantErrMsg: []string{"profile name"}},
		{name: "profile needs a value", args: []string{"--profile"}, wantErr: true, wantUsage: true, wantErrMsg: []string{"--profile needs a value"}},
		{name: "bad log level", args: []string{"--log-level", "loud", "health"}, wantErr: true, wantUsage: true, wantErrMsg: []string{"silent, fatal"}},
		{name: "container", args: []string{"--container", "x", "health"}, wantErr: true, wantUsage: true, wantErrMsg: []string{"not supported"}},
		{name: "unknown global flag", args: []string{"--bogus", "health"}, wantErr: true, wantUsage: true, wantErrMsg: []string{"unknown global flag --bogus"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			out, errOut, err := runCLI(t, tc.args...)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, stderr %q", err, errOut)
			}
			var ue *usageError
			if tc.wantUsage && !errors.As(err, &ue) {
				t.Errorf("err = %T %v, want a usage error", err, err)
			}
			for _, w := range tc.wantStdout {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.wantErrMsg {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
}

// TestGlobalFlags checks --profile, --dev and "--" choose the config the
// command reads, and --log-level reaches the gateway through the
// environment.
func TestGlobalFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string // config path, relative to HOME
	}{
		{[]string{"config", "file"}, ".openclaw/openclaw.json"},
		{[]string{"--profile", "work", "config", "file"}, ".openclaw-work/openclaw.json"},
		{[]string{"--profile=work", "config", "file"}, ".openclaw-work/openclaw.json"},
		{[]string{"--dev", "config", "file"}, ".openclaw-dev/openclaw.json"},
		{[]string{"--", "config", "file"}, ".openclaw/openclaw.json"},
		{[]string{"--no-color", "--profile", "a_b-1", "config", "file"}, ".openclaw-a_b-1/openclaw.json"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			home := isolate(t)
			out, errOut, err := runCLI(t, tc.args...)
			if err != nil {
				t.Fatalf("%v: %s", err, errOut)
			}
			if got, want := strings.TrimSpace(out), filepath.Join(home, tc.want); got != want {
				t.Errorf("config file = %q, want %q", got, want)
			}
		})
	}
	t.Run("log level", func(t *testing.T) {
		isolate(t)
		if _, errOut, err := runCLI(t, "--log-level", "DEBUG", "config", "file"); err != nil {
			t.Fatalf("%v: %s", err, errOut)
		}
		if got := os.Getenv("OPENCLAW_LOG_LEVEL"); got != "debug" {
			t.Errorf("OPENCLAW_LOG_LEVEL = %q, want debug", got)
		}
	})
}

// TestRegisteredCommandReplaces checks a command written on cobra takes
// the place of an older one of the same name, keeps its aliases, and
// reports its own errors under its own name.
func TestRegisteredCommandReplaces(t *testing.T) {
	saved := registered
	t.Cleanup(func() { registered = saved })
	var got []string
	registerCommand("cron", func(a *app) *cobra.Command {
		c := &cobra.Command{Use: "remove ID", Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			got = append(got, args[0])
			return errors.New("boom")
		}}
		return c
	})
	isolate(t)
	for _, name := range []string{"remove", "rm", "delete"} {
		_, errOut, err := runCLI(t, "cron", name, "job-1")
		if err == nil || !strings.Contains(errOut, "cron remove: boom") {
			t.Errorf("%s: err %v, stderr %q", name, err, errOut)
		}
	}
	if len(got) != 3 {
		t.Errorf("native command ran %d times, want 3", len(got))
	}
	_, errOut, err := runCLI(t, "cron", "remove")
	var ue *usageError
	if !errors.As(err, &ue) || !strings.Contains(errOut, "accepts 1 arg") {
		t.Errorf("missing argument: err %v, stderr %q", err, errOut)
	}
}

// TestCompletionInstall checks --install sources the script from the
// shell profile once, asks first, and --write-state writes the scripts
// under the state directory.
func TestCompletionInstall(t *testing.T) {
	home := isolate(t)
	if _, _, err := runCLIStdin(t, "", "completion", "--shell", "bash", "--install"); err == nil {
		t.Fatal("install without an answer or --yes succeeded")
	}
	if _, err := os.Stat(filepath.Join(home, ".bashrc")); !os.IsNotExist(err) {
		t.Fatalf("profile touched without consent: %v", err)
	}
	for range 2 {
		if _, errOut, err := runCLIStdin(t, "y\n", "completion", "bash", "--install"); err != nil {
			t.Fatalf("%v: %s", err, errOut)
		}
	}
	rc, err := os.ReadFile(filepath.Join(home, ".bashrc"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(rc), "# openclaw completion"); n != 1 {
		t.Errorf(".bashrc sources the script %d times:\n%s", n, rc)
	}
	script := filepath.Join(home, ".openclaw", "completions", "openclaw.bash")
	if b, err := os.ReadFile(script); err != nil || !strings.Contains(string(b), "__openclaw") {
		t.Errorf("script %s: %v", script, err)
	}
	if _, errOut, err := runCLI(t, "--profile", "w", "completion", "-s", "fish", "--write-state"); err != nil {
		t.Fatalf("%v: %s", err, errOut)
	}
	if _, err := os.Stat(filepath.Join(home, ".openclaw-w", "completions", "openclaw.fish")); err != nil {
		t.Error(err)
	}
	t.Setenv("SHELL", "/usr/bin/zsh")
	if out, _, err := runCLI(t, "completion"); err != nil || !strings.Contains(out, "#compdef openclaw") {
		t.Errorf("detected shell: err %v", err)
	}
}
