//go:build !unix

package plugintest

import "os"

// Alive reports whether process pid can be found.
func Alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
