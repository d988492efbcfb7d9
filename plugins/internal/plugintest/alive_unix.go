//go:build unix

package plugintest

import (
	"bytes"
	"fmt"
	"os"
	"syscall"
)

// Alive reports whether process pid exists and is not a zombie: a killed
// process whose parent is gone stays one until init reaps it, which a
// container's init may never do.
func Alive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: kill(0) is all there is
	}
	// pid (comm) state …; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}
