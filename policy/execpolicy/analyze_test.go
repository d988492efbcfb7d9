package execpolicy

import (
	"slices"
	"testing"
)

// corpusPolicy is allowlist mode without asking, so every case is allow or
// deny.
func corpusPolicy() Policy {
	p := DefaultPolicy()
	p.Ask = AskOff
	p.SafeBins = append(p.SafeBins, "sort", "grep")
	p.Allowlist = []Entry{
		{"/usr/bin/ls"}, {"/usr/bin/cat"}, {"/usr/bin/git"}, {"/usr/bin/python3*"},
		{"/usr/bin/mawk"}, {"/usr/bin/npm"}, {"/USR/BIN/JQ"},
		{"/usr/local/bin/safe"}, // a symlink to rm: entries match resolved paths only
	}
	return p
}

type corpusCase struct {
	name    string
	cmd     string
	runs    []string // executables (as written) that must be found after unwrapping
	unknown bool     // whether something must be reported unknowable
	want    Outcome  // under corpusPolicy
	dialect Dialect
}

// corpus holds the exec allowlist bypasses of security.md A2.4 and the
// classic shell tricks. It seeds FuzzExecAnalyzer.
var corpus = []corpusCase{
	// CVE-2026-31992: env -S smuggles a whole command line.
	{name: "env -S quoted shell", cmd: `env -S 'sh -c "rm -rf /"'`, unknown: true, want: Deny},
	{name: "env -S plain", cmd: `env -S 'rm -rf /tmp/x'`, runs: []string{"env", "rm"}, want: Deny},
	{name: "env --split-string", cmd: `env --split-string='rm -rf /tmp/x'`, runs: []string{"rm"}, want: Deny},
	{name: "env --split-s abbreviation", cmd: `env --split-s='rm x'`, runs: []string{"rm"}, want: Deny},
	{name: "env -S attached", cmd: `env -S'rm x'`, runs: []string{"rm"}, want: Deny},
	{name: "env -iS clustered", cmd: `env -iS 'rm x'`, runs: []string{"rm"}, want: Deny},
	{name: "env -S variable", cmd: `env -S "$CMD"`, unknown: true, want: Deny},
	{name: "env -S allowlisted", cmd: `/usr/bin/env -S 'ls -l'`, runs: []string{"ls"}, want: Allow},
	{name: "env unknown option", cmd: `env --frobnicate rm`, unknown: true, want: Deny},

	// CVE-2026-27566: wrapper chains are unwrapped.
	{name: "env bash -c", cmd: `env bash -c 'rm -rf /'`, runs: []string{"env", "bash", "rm"}, want: Deny},
	{name: "wrapper chain", cmd: `nice -n 5 nohup timeout 10 stdbuf -oL rm x`, runs: []string{"nice", "nohup", "timeout", "stdbuf", "rm"}, want: Deny},
	{name: "wrapper chain allowed", cmd: `timeout -s KILL 5 env LANG=C nice -10 ls`, runs: []string{"ls"}, want: Allow},
	{name: "nice long option", cmd: `nice --adjustment=3 ls`, runs: []string{"ls"}, want: Allow},
	{name: "stdbuf long option", cmd: `stdbuf --output=L cat f`, runs: []string{"cat"}, want: Allow},
	{name: "timeout duration variable", cmd: `timeout $T rm x`, unknown: true, want: Deny},
	{name: "option value may split", cmd: `nice -n $N ls`, unknown: true, want: Deny},
	{name: "long option value may split", cmd: `timeout --signal $S 5 ls`, unknown: true, want: Deny},
	{name: "flock file may split", cmd: `flock $F ls`, unknown: true, want: Deny},
	{name: "find -exec argument may split", cmd: `find . -exec cat $X \;`, unknown: true, want: Deny},
	{name: "git rebase argument may split", cmd: `git rebase $OPTS`, unknown: true, want: Deny},
	{name: "git submodule argument may split", cmd: `git submodule $SUB`, unknown: true, want: Deny},
	{name: "rsync argument may split", cmd: `rsync $OPTS a b`, unknown: true, want: Deny},
	{name: "trap argument may split", cmd: `trap $X`, unknown: true, want: Deny},
	{name: "printf argument may be -v", cmd: `printf $FMT /tmp`, want: Deny},
	{name: "busybox sh", cmd: `busybox sh -c 'rm x'`, runs: []string{"busybox", "sh", "rm"}, want: Deny},
	{name: "busybox nesting", cmd: `env busybox nice sh -c "ls && rm x"`, runs: []string{"ls", "rm"}, want: Deny},
	{name: "busybox applet path", cmd: `busybox /bin/ls`, runs: []string{"ls"}, want: Allow},
	{name: "time keyword", cmd: `time rm x`, runs: []string{"rm"}, want: Deny},
	{name: "time program", cmd: `\time -p rm x`, runs: []string{"time", "rm"}, want: Deny},
	{name: "time -o writes a file", cmd: `command time -o out ls`, want: Deny},
	{name: "exec builtin", cmd: `exec rm x`, runs: []string{"rm"}, want: Deny},
	{name: "command builtin", cmd: `command rm x`, runs: []string{"rm"}, want: Deny},
	{name: "command -v only looks up", cmd: `command -v rm`, want: Allow},
	{name: "command -p", cmd: `command -p ls`, unknown: true, want: Deny},
	{name: "builtin eval", cmd: `builtin eval 'rm x'`, runs: []string{"rm"}, want: Deny},
	{name: "sudo", cmd: `sudo ls`, runs: []string{"sudo", "ls"}, want: Deny},
	{name: "sudo options", cmd: `sudo -u root -E rm x`, runs: []string{"rm"}, want: Deny},
	{name: "sudo interactive shell", cmd: `sudo -s`, unknown: true, want: Deny},
	{name: "doas", cmd: `doas -u root rm x`, runs: []string{"doas", "rm"}, want: Deny},
	{name: "su -c", cmd: `su -c 'rm x' root`, runs: []string{"su", "rm"}, want: Deny},
	{name: "xargs", cmd: `ls | xargs rm`, runs: []string{"xargs", "rm"}, want: Deny},
	{name: "xargs safe bin gets input arguments", cmd: `ls | xargs head`, runs: []string{"head"}, want: Deny},
	{name: "xargs sh -c script from input", cmd: `ls | xargs sh -c`, unknown: true, want: Deny},
	{name: "xargs -I sh -c", cmd: `ls | xargs -I{} sh -c 'cat {}'`, unknown: true, want: Deny},
	{name: "xargs --replace", cmd: `ls | xargs --replace sh -c 'echo {}'`, unknown: true, want: Deny},
	{name: "xargs allowlisted", cmd: `ls | xargs cat`, runs: []string{"cat"}, want: Allow},
	{name: "find -exec", cmd: `find . -exec rm {} +`, runs: []string{"find", "rm"}, want: Deny},
	{name: "find -execdir sh -c", cmd: `find . -execdir sh -c 'rm "$1"' _ {} \;`, runs: []string{"rm"}, want: Deny},
	{name: "find -exec sh -c placeholder", cmd: `find . -name '*.go' -exec sh -c "rm {}" \;`, unknown: true, want: Deny},
	{name: "find -ok", cmd: `find . -ok rm {} ';'`, runs: []string{"rm"}, want: Deny},
	{name: "find computed expression", cmd: `find . $EXPR`, unknown: true, want: Deny},
	{name: "sh -c $0 carrier", cmd: `sh -c '$0' rm`, unknown: true, want: Deny},
	{name: "sh -c $@ carrier", cmd: `bash -c '"$@"' _ rm x`, unknown: true, want: Deny},
	{name: "nested sh -c", cmd: `sh -c "sh -c 'rm x'"`, runs: []string{"rm"}, want: Deny},
	{name: "nested sh -c allowed", cmd: `bash -lc "zsh -c 'ls | head -n 3'"`, runs: []string{"ls", "head"}, want: Allow},
	{name: "sh -c variable", cmd: `sh -c "$SCRIPT"`, unknown: true, want: Deny},
	{name: "shell rcfile", cmd: `bash --rcfile x -i`, unknown: true, want: Deny},
	{name: "shell reads stdin", cmd: `echo 'rm x' | sh`, unknown: true, want: Deny},
	{name: "shell fed by heredoc", cmd: "bash <<'EOF'\nrm x\nEOF", runs: []string{"rm"}, want: Deny},
	{name: "shell fed by here-string", cmd: `sh <<< 'rm x'`, runs: []string{"rm"}, want: Deny},
	{name: "shell runs a script file", cmd: `bash ./x.sh`, runs: []string{"bash"}, want: Deny},
	{name: "foreign shell", cmd: `fish -c 'rm x'`, unknown: true, want: Deny},
	{name: "eval", cmd: `eval 'rm x'`, runs: []string{"rm"}, want: Deny},
	{name: "eval variable", cmd: `eval "$X"`, unknown: true, want: Deny},
	{name: "trap", cmd: `trap 'rm x' EXIT`, runs: []string{"rm"}, want: Deny},
	{name: "source", cmd: `source ./x.sh`, unknown: true, want: Deny},
	{name: "dot", cmd: `. ./x.sh`, unknown: true, want: Deny},
	{name: "watch", cmd: `watch -n 1 rm x`, runs: []string{"watch", "rm"}, want: Deny},
	{name: "flock", cmd: `flock /tmp/l rm x`, runs: []string{"flock", "rm"}, want: Deny},
	{name: "flock -c", cmd: `flock -c 'rm x' /tmp/l`, runs: []string{"rm"}, want: Deny},
	{name: "setsid", cmd: `setsid -f rm x`, runs: []string{"rm"}, want: Deny},
	{name: "chroot", cmd: `chroot / ls`, unknown: true, want: Deny},
	{name: "ssh ProxyCommand", cmd: `ssh -o ProxyCommand='rm x' host`, unknown: true, want: Deny},
	{name: "ssh -oProxyCommand", cmd: `ssh -oproxycommand=x host ls`, unknown: true, want: Deny},
	{name: "rsync -e", cmd: `rsync -avze 'rm x' a b:`, runs: []string{"rm"}, want: Deny},
	{name: "coproc", cmd: `coproc rm x`, runs: []string{"rm"}, want: Deny},

	// Interpreters and programs with their own languages.
	{name: "awk system", cmd: `awk 'BEGIN{system("rm x")}'`, runs: []string{"awk", "rm"}, want: Deny},
	{name: "awk system computed", cmd: `awk '{system("rm " $1)}'`, unknown: true, want: Deny},
	{name: "awk pipe", cmd: `awk '{print | "sh"}'`, unknown: true, want: Deny},
	{name: "awk getline pipe", cmd: `awk 'BEGIN{"id" | getline x}'`, unknown: true, want: Deny},
	{name: "awk plain", cmd: `awk -F: '{print $1 || $2}' /etc/passwd`, runs: []string{"awk"}, want: Allow},
	{name: "awk load", cmd: `gawk -l ext 'BEGIN{}'`, unknown: true, want: Deny},
	{name: "perl -e", cmd: `perl -e 'system("rm x")'`, runs: []string{"perl"}, want: Deny},
	{name: "python -c allowlisted", cmd: `python3 -c 'print(1)'`, runs: []string{"python3"}, want: Allow},
	{name: "node -e", cmd: `node -e 'require("child_process")'`, runs: []string{"node"}, want: Deny},

	// git runs commands from -c configuration and some options.
	{name: "git -c core.sshCommand", cmd: `git -c core.sshCommand='rm -rf /tmp/x' fetch`, runs: []string{"git", "rm"}, want: Deny},
	{name: "git -c alias", cmd: `git -c 'alias.x=!rm -rf /tmp/x' x`, runs: []string{"rm"}, want: Deny},
	{name: "git -c pager", cmd: `git -c core.pager=less log`, runs: []string{"less"}, want: Deny},
	{name: "git -c pager allowlisted", cmd: `git -c core.pager=cat log`, runs: []string{"cat"}, want: Allow},
	{name: "git -c unknown key", cmd: `git -c core.fsmonitor=/tmp/x status`, unknown: true, want: Deny},
	{name: "git -c hooksPath", cmd: `git -c core.hooksPath=/tmp/h commit`, unknown: true, want: Deny},
	{name: "git -c safe key", cmd: `git -c color.ui=always -c user.name=bot log`, want: Allow},
	{name: "git --config-env", cmd: `git --config-env=core.pager=X log`, unknown: true, want: Deny},
	{name: "git --exec-path", cmd: `git --exec-path=/tmp status`, unknown: true, want: Deny},
	{name: "git rebase --exec", cmd: `git rebase --exec 'rm x' HEAD~1`, runs: []string{"rm"}, want: Deny},
	{name: "git rebase --exe abbreviation", cmd: `git rebase --exe='rm x' HEAD~1`, runs: []string{"rm"}, want: Deny},
	{name: "git rebase -ix clustered", cmd: `git rebase -ix 'rm x' HEAD~1`, runs: []string{"rm"}, want: Deny},
	{name: "git submodule foreach", cmd: `git submodule foreach --recursive 'rm x'`, runs: []string{"rm"}, want: Deny},
	{name: "git clone --upload-pack", cmd: `git clone --upload-pack='rm x' /tmp/r`, runs: []string{"rm"}, want: Deny},
	{name: "git bisect run", cmd: `git bisect run rm x`, runs: []string{"rm"}, want: Deny},
	{name: "git config alias", cmd: `git config alias.x '!rm -rf /'`, unknown: true, want: Deny},
	{name: "git config set sshCommand", cmd: `git config set core.sshCommand 'rm x'`, unknown: true, want: Deny},
	{name: "git config safe", cmd: `git config --global user.name Bot`, want: Allow},
	{name: "git config read", cmd: `git config --get core.pager`, want: Allow},
	{name: "git external subcommand", cmd: `git frobnicate`, runs: []string{"git-frobnicate"}, want: Deny},
	{name: "git pipeline", cmd: `git log --oneline | head -n 5`, runs: []string{"git", "head"}, want: Allow},

	// CVE-2026-28470 / GHSA-3hcm-ggvf-rch5: substitutions, even quoted.
	{name: "substitution in double quotes", cmd: `echo "$(id)"`, runs: []string{"id"}, want: Deny},
	{name: "backticks in double quotes", cmd: "echo \"`id`\"", runs: []string{"id"}, want: Deny},
	{name: "substitution of allowlisted", cmd: `echo $(ls)`, runs: []string{"ls"}, want: Deny},
	{name: "ANSI-C quoting", cmd: `$'\x72m' x`, unknown: true, want: Deny},
	{name: "IFS", cmd: `cat${IFS}/etc/passwd`, unknown: true, want: Deny},
	{name: "printf substitution as command", cmd: `$(printf rm) -rf x`, unknown: true, want: Deny},
	{name: "process substitution", cmd: `cat <(rm x)`, runs: []string{"rm"}, want: Deny},
	{name: "prompt expansion", cmd: `echo "${1@P}"`, unknown: true, want: Deny},
	{name: "indirect expansion", cmd: `echo "${!1}"`, unknown: true, want: Deny},
	{name: "arithmetic on data", cmd: `sh -c 'echo $(( $1 ))' _ 'a[$(rm x)]'`, unknown: true, want: Deny},
	{name: "arithmetic constant", cmd: `echo $((1 + 2))`, want: Allow},
	{name: "[[ -eq ]] evaluates arithmetic", cmd: `[[ $1 -eq 0 ]]`, unknown: true, want: Deny},
	{name: "test -v subscript", cmd: `test -v 'a[$(rm x)]'`, want: Deny},
	{name: "heredoc substitution", cmd: "cat <<EOF\n$(rm x)\nEOF", runs: []string{"rm"}, want: Deny},
	{name: "quoted heredoc", cmd: "cat <<'EOF'\n$(rm x)\nEOF", want: Deny},

	// CVE-2026-28363: safe bins, denied options and their abbreviations.
	{name: "sort --compress-prog", cmd: `sort --compress-prog=sh`, want: Deny},
	{name: "sort --compress-program", cmd: `sort --compress-program sh`, want: Deny},
	{name: "sort -o", cmd: `sort -o out`, want: Deny},
	{name: "sort -T", cmd: `sort -T /tmp`, want: Deny},
	{name: "sort allowed", cmd: `ls | sort -k2 -n -r`, runs: []string{"sort"}, want: Allow},
	{name: "tail -f", cmd: `tail -f x`, want: Deny},
	{name: "tail --fol abbreviation", cmd: `tail --fol`, want: Deny},
	{name: "tail -n", cmd: `ls | tail -n 5`, want: Allow},
	{name: "head numeric", cmd: `ls | head -5`, want: Allow},
	{name: "head file operand", cmd: `head /etc/shadow`, want: Deny},
	{name: "head abbreviated allowed option", cmd: `ls | head --li=5`, want: Deny},
	{name: "head variable argument", cmd: `ls | head -n $N`, want: Deny},
	{name: "head glob argument", cmd: `ls | head -n *`, want: Deny},
	{name: "grep -r", cmd: `grep -r secret`, want: Deny},
	{name: "grep -f", cmd: `grep -f /etc/shadow`, want: Deny},
	{name: "grep pattern", cmd: `ls | grep -i foo`, want: Allow},
	{name: "wc", cmd: `ls | wc -l`, want: Allow},
	{name: "wc --files0-from", cmd: `wc --files0=list`, want: Deny},
	{name: "tr", cmd: `ls | tr a-z A-Z`, want: Allow},
	{name: "cut", cmd: `ls | cut -d, -f1`, want: Allow},
	{name: "uniq output file", cmd: `uniq in out`, want: Deny},
	{name: "safe bin outside trusted dirs", cmd: `ls | ./bin/head -n 1`, want: Deny},
	{name: "unknown safe bin option", cmd: `ls | head --frob`, want: Deny},

	// GHSA-j425-whc4-4jgc: environment overrides steer allowlisted tools.
	{name: "GIT_SSH_COMMAND", cmd: `GIT_SSH_COMMAND='rm x' git fetch`, want: Deny},
	{name: "env GIT_CONFIG", cmd: `env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=sh git log`, want: Deny},
	{name: "PAGER", cmd: `PAGER=rm git log`, want: Deny},
	{name: "NPM_CONFIG", cmd: `NPM_CONFIG_PREFIX=/tmp npm i`, want: Deny},
	{name: "LD_PRELOAD", cmd: `LD_PRELOAD=/tmp/x.so ls`, want: Deny},
	{name: "safe env", cmd: `LANG=C LC_ALL=C TERM=dumb ls`, want: Allow},
	{name: "export PATH", cmd: `export PATH=/tmp:$PATH; ls`, want: Deny},
	{name: "quoted export", cmd: `'export' PATH=/tmp; ls`, want: Deny},
	{name: "loop variable PATH", cmd: `for PATH in /tmp; do ls; done`, want: Deny},
	{name: "default assignment", cmd: `: ${PATH:=/tmp}`, want: Deny},
	{name: "declare computed name", cmd: `declare "$1=x"`, unknown: true, want: Deny},
	{name: "xargs slot variable", cmd: `ls | xargs --process-slot-var=PATH cat`, want: Deny},

	// Quoting, paths and symlinks.
	{name: "split quotes", cmd: `'r''m' x`, runs: []string{"rm"}, want: Deny},
	{name: "backslash", cmd: `\rm x`, runs: []string{"rm"}, want: Deny},
	{name: "inner backslash", cmd: `r\m x`, runs: []string{"rm"}, want: Deny},
	{name: "double quotes", cmd: `"rm" x`, runs: []string{"rm"}, want: Deny},
	{name: "dot-dot path", cmd: `/bin/../bin/rm x`, runs: []string{"/bin/../bin/rm"}, want: Deny},
	{name: "symlink to rm", cmd: `/usr/local/bin/safe x`, runs: []string{"/usr/local/bin/safe"}, want: Deny},
	{name: "symlink to allowlisted", cmd: `/usr/local/bin/ls`, want: Allow},
	{name: "merged usr", cmd: `/bin/cat x`, want: Allow},
	{name: "case-insensitive entry", cmd: `jq . f`, want: Allow},
	{name: "relative symlink to a shell", cmd: `./tools/ls`, want: Deny},
	{name: "relative after cd", cmd: `cd /tmp && ./bin/build.sh`, unknown: true, want: Deny},
	{name: "not found", cmd: `frobnicate`, want: Deny},
	{name: "variable command", cmd: `$X`, unknown: true, want: Deny},
	{name: "braced variable command", cmd: `${X} -rf`, unknown: true, want: Deny},
	{name: "empty expansion before command", cmd: `$EMPTY rm x`, unknown: true, want: Deny},
	{name: "glob command", cmd: `/usr/bin/r?`, unknown: true, want: Deny},
	{name: "bracket glob command", cmd: `[r]m x`, unknown: true, want: Deny},
	{name: "brace expansion", cmd: `{rm,-rf,x}`, unknown: true, want: Deny},
	{name: "brace sequence", cmd: `{a..c}`, unknown: true, want: Deny},
	{name: "tilde", cmd: `~/bin/tool`, unknown: true, want: Deny},
	{name: "test builtin bracket", cmd: `[ -f x ] && ls`, want: Allow},

	// Splitting: every segment counts, quoted separators do not split.
	{name: "semicolon", cmd: `ls; rm x`, runs: []string{"ls", "rm"}, want: Deny},
	{name: "newline", cmd: "ls\nrm x", runs: []string{"rm"}, want: Deny},
	{name: "and", cmd: `ls && rm x`, runs: []string{"rm"}, want: Deny},
	{name: "or", cmd: `ls || rm x`, runs: []string{"rm"}, want: Deny},
	{name: "pipe", cmd: `ls | rm x`, runs: []string{"rm"}, want: Deny},
	{name: "pipe all", cmd: `ls |& rm x`, runs: []string{"rm"}, want: Deny},
	{name: "background", cmd: `ls & rm x`, runs: []string{"rm"}, want: Deny},
	{name: "subshell", cmd: `(rm x)`, runs: []string{"rm"}, want: Deny},
	{name: "group", cmd: `{ rm x; }`, runs: []string{"rm"}, want: Deny},
	{name: "if", cmd: `if true; then rm x; fi`, runs: []string{"rm"}, want: Deny},
	{name: "while", cmd: `while false; do rm x; done`, runs: []string{"rm"}, want: Deny},
	{name: "case", cmd: `case a in a) rm x;; esac`, runs: []string{"rm"}, want: Deny},
	{name: "function body", cmd: `f() { rm x; }; f`, runs: []string{"rm"}, want: Deny},
	{name: "negation", cmd: `! rm x`, runs: []string{"rm"}, want: Deny},
	{name: "semicolon in single quotes", cmd: `echo 'a;rm x'`, want: Allow},
	{name: "semicolon in double quotes", cmd: `echo "a && rm x | sh"`, want: Allow},
	{name: "escaped semicolon", cmd: `echo a\;rm x`, want: Allow},
	{name: "comment", cmd: `ls # ; rm x`, want: Allow},
	{name: "chain allowed", cmd: `ls -la && cat x | wc -l; echo done`, want: Allow},

	// Builtins and redirections.
	{name: "hash -p", cmd: `hash -p /tmp/x ls; ls`, want: Deny},
	{name: "alias", cmd: `alias ls=rm`, want: Deny},
	{name: "printf -v", cmd: `printf -v PATH /tmp`, want: Deny},
	{name: "kill", cmd: `kill 1`, want: Deny},
	{name: "assignment alone", cmd: `X=1`, want: Deny},
	{name: "redirection", cmd: `ls > out`, want: Deny},
	{name: "fd duplication", cmd: `ls 2>&1`, want: Deny},
	{name: "input redirection", cmd: `cat < /etc/shadow`, want: Deny},
	{name: "echo", cmd: `echo hello`, want: Allow},

	// CVE-2026-28391: cmd.exe metacharacters.
	{name: "cmd ampersand", cmd: `ls & rm x`, dialect: Cmd, unknown: true, want: Deny},
	{name: "cmd percent variable", cmd: `cat "%USERPROFILE%\x"`, dialect: Cmd, unknown: true, want: Deny},
	{name: "cmd delayed expansion", cmd: `cat !X!`, dialect: Cmd, unknown: true, want: Deny},
	{name: "cmd caret", cmd: `ls ^& rm`, dialect: Cmd, unknown: true, want: Deny},
	{name: "cmd pipe", cmd: `ls | more`, dialect: Cmd, unknown: true, want: Deny},
	{name: "cmd nested", cmd: `cmd /c ls`, dialect: Cmd, unknown: true, want: Deny},
	{name: "cmd quoted ampersand", cmd: `cat "a&b"`, dialect: Cmd, want: Allow},
	{name: "cmd plain", cmd: `ls -l`, dialect: Cmd, want: Allow},
}

func TestExecAnalyzerCorpus(t *testing.T) {
	fs := newFakeFS()
	p := corpusPolicy()
	for _, tc := range corpus {
		t.Run(tc.name, func(t *testing.T) {
			an := fs.analyzer()
			an.Dialect = tc.dialect
			a, err := an.Analyze(tc.cmd)
			if err != nil {
				t.Fatalf("Analyze(%q): %v", tc.cmd, err)
			}
			var found []string
			for _, c := range a.Commands {
				found = append(found, c.Executable)
			}
			for _, r := range tc.runs {
				if !slices.Contains(found, r) {
					t.Errorf("Analyze(%q) commands = %q, missing %q", tc.cmd, found, r)
				}
			}
			if got := len(a.Unknowable) > 0; got != tc.unknown {
				t.Errorf("Analyze(%q) unknowable = %v, want unknowable %v", tc.cmd, a.Unknowable, tc.unknown)
			}
			d := Decide(p, a)
			if d.Outcome != tc.want {
				t.Errorf("Decide(%q) = %s (%s), misses %q; want %s", tc.cmd, d.Outcome, d.Reason, d.Misses, tc.want)
			}
		})
	}
}
