package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// readNoEcho reads one line from the terminal f with echo turned off, so
// a pasted key never shows on screen or in the scrollback.
func readNoEcho(f *os.File, read func() (string, error)) (string, error) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return read()
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
		return read()
	}
	defer unix.IoctlSetTermios(fd, unix.TCSETS, old)
	return read()
}
