//go:build !linux

package main

import "os"

// isTerminal reports whether f is a character device other than the null
// device: a close enough test for a terminal where termios is not asked.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(st, null) {
		return false
	}
	return true
}
