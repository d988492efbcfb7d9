//go:build windows

package statelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockRegion is the byte the lock covers: far past the payload, because
// Windows locks are mandatory and one on the payload would keep the CLI
// from reading it.
func lockRegion() *windows.Overlapped { return &windows.Overlapped{OffsetHigh: 1} }

// tryLockFile takes a LockFileEx lock without waiting; held is false when
// another handle holds a conflicting lock.
func tryLockFile(f *os.File, exclusive bool) (held bool, err error) {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	err = windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, lockRegion())
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}

func unlockFile(f *os.File) {
	windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockRegion())
}
