//go:build linux

package procgroup

import (
	"bytes"
	"os"
	"strconv"
)

// groupAlive reports whether the group pgid has a member that is not a
// zombie. A member killed after its parent is gone waits, a zombie, for
// init to reap it, which a container's init may do late or never; it
// runs nothing, so it does not count.
func groupAlive(pgid int) bool {
	if !memberLeft(pgid) {
		return false
	}
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range dir {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and ")".
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 3 || string(f[0]) == "Z" {
			continue
		}
		if g, err := strconv.Atoi(string(f[2])); err == nil && g == pgid {
			return true
		}
	}
	return false
}
