package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ListensOn reports whether process pid holds a TCP socket listening on
// port. Parallel tests pick free ports independently, so two gateways can
// be handed the same one: the loser fails to bind, and until it has
// exited the winner's /readyz would answer for it. Matching the listening
// socket's inode against the process's descriptors tells them apart.
func ListensOn(pid, port int) bool {
	inodes := listeningInodes(port)
	if len(inodes) == 0 {
		return false
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return false
	}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name()))
		if err != nil {
			continue
		}
		if ino, ok := strings.CutPrefix(link, "socket:["); ok && inodes[strings.TrimSuffix(ino, "]")] {
			return true
		}
	}
	return false
}

// listeningInodes are the socket inodes in state LISTEN on port, from
// /proc/net/tcp and tcp6 (columns: sl local rem st ... inode).
func listeningInodes(port int) map[string]bool {
	inodes := map[string]bool{}
	want := fmt.Sprintf(":%04X", port)
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" || !strings.HasSuffix(f[1], want) {
				continue
			}
			if _, err := strconv.ParseUint(f[9], 10, 64); err == nil {
				inodes[f[9]] = true
			}
		}
	}
	return inodes
}
