//go:build !linux

package main

import "os"

// readNoEcho reads a line; turning terminal echo off is implemented on
// Linux only, so elsewhere the answer shows as it is typed.
func readNoEcho(_ *os.File, read func() (string, error)) (string, error) {
	return read()
}
