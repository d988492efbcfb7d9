// Package procgroup starts a plugin's or MCP server's child process in a
// process group of its own and ends the whole group when the child is
// stopped, so that what the child spawned (a language server, a `sleep`
// in a wrapper script, a browser) does not outlive it. Stopping only the
// child, as exec.Cmd does, leaves its children running with the gateway
// as their only trace, and a removed or restarted server leaks them.
//
// A descendant that puts itself in another group or session (a daemon
// that calls setsid) leaves the group and is not reached; nothing short of
// a cgroup would reach it. On Windows there are no process groups to
// signal: Stop kills the child only.
package procgroup

import "time"

// Grace is how long Stop lets a group end after SIGTERM before SIGKILL.
const Grace = 2 * time.Second

// poll is how often Stop looks whether the group is gone.
const poll = 20 * time.Millisecond

// Stop ends the process group that the child with pid leads (see Own):
// SIGTERM to every member, then, once grace has passed with any member
// left, SIGKILL. It returns when the group is gone or right after the
// SIGKILL. The child itself should already have been waited for, or be
// waited for concurrently: an exited child that nobody waited for still
// counts as a member, so Stop would wait out grace.
func Stop(pid int, grace time.Duration) {
	if pid <= 0 {
		return
	}
	if !signalGroup(pid, false) {
		return // already gone
	}
	for deadline := time.Now().Add(grace); time.Now().Before(deadline); {
		time.Sleep(poll)
		if !groupAlive(pid) {
			return
		}
	}
	signalGroup(pid, true)
}
