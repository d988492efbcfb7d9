//go:build unix

package secrets

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// readPrivateFile reads a secrets file only if it is a regular file, not
// a symlink, with one link, owned by this process's user and neither
// readable nor writable by group or others; at most max bytes.
func readPrivateFile(path string, max int64) ([]byte, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("%s must be an absolute path", path)
	}
	// O_NOFOLLOW refuses a symlink at the last step; O_NONBLOCK keeps a
	// FIFO put in its place from blocking the open.
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if err == syscall.ELOOP {
			return nil, fmt.Errorf("%s must not be a symlink", path)
		}
		return nil, fmt.Errorf("%s is not readable: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return nil, fmt.Errorf("%s must be a regular file", path)
	case st.Nlink != 1:
		return nil, fmt.Errorf("%s must not be hardlinked (it has %d links): copy it to a new file with mode 600", path, st.Nlink)
	case int(st.Uid) != os.Geteuid():
		return nil, fmt.Errorf("%s must be owned by the gateway's user (uid %d)", path, os.Geteuid())
	case st.Mode&0o066 != 0:
		return nil, fmt.Errorf("%s permissions are too open (%04o): make it readable by its owner only (chmod 600)", path, st.Mode&0o777)
	case st.Size > max:
		return nil, fmt.Errorf("%s is larger than maxBytes (%d)", path, max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than maxBytes (%d)", path, max)
	}
	return b, nil
}

// checkCommand applies OpenClaw's trust rules to an exec provider's
// command before anything runs it: absolute, a regular file and not a
// symlink, inside trustedDirs when given, owned by this process's user
// and writable by no one else.
func checkCommand(label, command string, trustedDirs []string, opts Options) (string, error) {
	if !filepath.IsAbs(command) && !strings.HasPrefix(command, "~/") {
		return "", fmt.Errorf("%s must be an absolute path, got %q", label, command)
	}
	path := opts.expand(command)
	st, err := os.Lstat(path)
	switch {
	case err != nil:
		return "", fmt.Errorf("%s is not readable: %s", label, path)
	case st.Mode()&os.ModeSymlink != 0:
		return "", fmt.Errorf("%s must not be a symlink: %s (configure the real path)", label, path)
	case !st.Mode().IsRegular():
		return "", fmt.Errorf("%s must be a file: %s", label, path)
	}
	if len(trustedDirs) > 0 {
		inside := false
		for _, d := range trustedDirs {
			if rel, err := filepath.Rel(opts.expand(d), path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
				inside = true
				break
			}
		}
		if !inside {
			return "", fmt.Errorf("%s is outside trustedDirs: %s", label, path)
		}
	}
	if st.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("%s permissions are too open: %s is writable by group or others", label, path)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != os.Geteuid() {
		return "", fmt.Errorf("%s must be owned by the gateway's user (uid %d): %s", label, os.Geteuid(), path)
	}
	return path, nil
}
