//go:build unix && !linux

package procgroup

// groupAlive reports whether the group pgid has a member left, zombies
// included: without /proc they cannot be told apart.
func groupAlive(pgid int) bool { return memberLeft(pgid) }
