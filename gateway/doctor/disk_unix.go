//go:build !windows

package doctor

import "golang.org/x/sys/unix"

// diskFree is the space available to this user on path's file system.
func diskFree(path string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}
