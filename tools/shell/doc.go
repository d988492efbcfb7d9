// Package shell holds the exec and process tools. exec runs a command
// with `sh -c` (`cmd.exe /D /S /C` on Windows, where pty is refused) in
// the agent's workspace after the exec policy (the command analyzer and
// the exec approvals file) allows it, asks a person, or refuses it;
// output goes to temporary files, capped, and a run past yieldMs moves
// to the background as a process session. process lists, polls, reads,
// writes to, and kills those sessions: the owner's turns see all of
// their agent's, anyone else's only those a non-owner started in its own
// session.
//
// exec's env argument is part of the command: the policy judges it with
// the command line (only safe variables such as TERM, LANG, LC_*, TZ run
// without approval; PATH, LD_*, DYLD_*, BASH_ENV and ENV are refused), the
// approval request shows it and the audit row keeps it, with the values
// of secret-looking names redacted.
package shell
