// Package execpolicy decides whether a shell command line given to the exec
// tool may run, following OpenClaw's exec approvals: security
// deny|allowlist|full, ask off|on-miss|always, askFallback, safe bins, and an
// allowlist of resolved executables.
//
// # Analysis
//
// [Analyzer.Analyze] parses the command line (as Bash, or zsh or cmd.exe per
// [Dialect]) with mvdan.cc/sh/v3/syntax and reports every program and
// builtin it may run, in [Analysis.Commands]:
//
//   - every segment of pipelines, &&, ||, ;, &, newlines, subshells, groups,
//     if/while/for/case bodies, function bodies, coproc and time;
//   - commands inside $(…), backticks, <(…), >(…) and unquoted
//     here-documents, wherever the substitution appears;
//   - the command a wrapper runs: env (including -S/--split-string and its
//     abbreviations), nice, nohup, timeout, stdbuf, time, exec, command,
//     builtin, busybox/toybox applets, sudo, doas, su -c, runuser, setsid,
//     ionice, taskset, flock, watch, xargs, find -exec/-execdir/-ok/-okdir,
//     rsync -e, git bisect run;
//   - shell strings, parsed recursively up to 8 levels: sh/bash/zsh/… -c,
//     a shell fed by a fixed here-document, eval, trap, awk's system(),
//     git -c values that hold commands (core.sshCommand, core.pager,
//     "!" aliases, …), git rebase --exec, git submodule foreach,
//     --upload-pack/--receive-pack.
//
// Executables are resolved to absolute, symlink-free paths through the
// injected LookPath and EvalSymlinks (in production exec.LookPath and
// filepath.EvalSymlinks); the package itself does no I/O. Interpreters
// given inline code (python -c, node -e, perl -e, an awk or sed program, a
// bare interpreter reading standard input) are reported as the interpreter
// with [Command.InlineCode] set; what that code does is not analysed.
//
// What cannot be known statically is reported in [Analysis.Unknowable] and
// never matches the allowlist: a command word or wrapper argument that is
// not a fixed string ($X, ${X}, "$@", $(…), globs, brace expansion, ~,
// $'…'); a shell string that is not fixed or reads commands from input
// (echo … | sh, xargs sh -c, sh -c "… {}" under find or xargs -I); source;
// env -S with quotes or variables; git configuration that is not known to
// be harmless; awk pipes and computed system() calls; ssh ProxyCommand;
// chroot; arithmetic, indirect (${!x}) and prompt (${x@P}) expansions that
// evaluate data as code; relative executables after cd; and any option a
// wrapper does not understand. Redirections and here-documents,
// substitutions and variable assignments are listed separately. A command
// line that does not parse is an error wrapping [ErrUnparsable]; callers
// deny it.
//
// # Decision
//
// [Decide] applies a [Policy] to an Analysis. security=deny denies;
// security=full allows (ask=always still asks); security=allowlist allows
// only when every command is covered and nothing else missed, and
// otherwise asks (ask=on-miss) or denies (ask=off). A command is covered
// when its resolved path matches an allowlist entry (absolute path or glob,
// case-insensitive), when it is a transparent wrapper (env, nice, sh -c
// with a fixed script, …) resolved into a trusted directory, when it is an
// inert builtin (echo, cd, test, …), or when it is a safe bin: a command
// named in Policy.SafeBins, resolved into SafeBinTrustedDirs, with fixed
// arguments that fit its [BinProfile]. Safe bin profiles accept only the
// options they list: denied options (sort -o, tail -f, grep -r, …), every
// abbreviation of a denied long option (sort --compress-prog, after
// CVE-2026-28363), abbreviations of allowed options and unknown options are
// all refused. Redirections, substitutions, unknowable items and
// assignments of variables outside Policy.SafeEnv (TERM, LANG, LC_*, …) are
// misses. [Decision.Fallback] is the outcome to use when an approval is
// needed but no approval UI is reachable (askFallback).
//
// # Environment
//
// The variables a caller adds to the command's environment (exec's env
// argument, system.run's env) are given in [Analyzer.Env] and judged by
// the same rule as assignments in the command line (FOO=x git log,
// env FOO=x git log, export FOO=x): a variable outside Policy.SafeEnv is
// a miss, so it needs approval, or is denied where nobody can approve
// (GHSA-j425-whc4-4jgc: GIT_CONFIG_*, GIT_SSH_COMMAND, PAGER, …
// steer an allowlisted git). Variables of known hazard families (the
// loader's, shell start-up, HOME and XDG_*, GIT_*, SSH_*, pagers,
// editors, proxies, language runtimes) miss even when SafeEnv lists
// them, and the miss says why. [CheckEnv] refuses what no approval may
// allow (PATH, LD_*, DYLD_*, BASH_ENV, ENV, names that are not portable).
//
// # Use
//
//	an := execpolicy.Analyzer{LookPath: exec.LookPath, EvalSymlinks: filepath.EvalSymlinks, Dir: workdir}
//	d, a, err := execpolicy.Evaluate(policy, an, command)
//	switch d.Outcome { // Allow, Deny, or AskUser (use d.Fallback without an approver)
//	}
//
// The exec layer must then run exactly what was approved: the resolved
// paths in a.Commands are what an allow-always entry should persist.
// Analyzer, Policy and the package's functions are safe for concurrent use
// when the injected functions are.
package execpolicy
