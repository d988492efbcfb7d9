package memtrim

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// ReleaseCode drops the resident pages of the executable's read-only
// mappings (text and rodata) from this process and reports how many bytes
// of address range it advised. A mapping that holds any private
// (written) page is left alone: dropping it would lose the writes.
func ReleaseCode() (int64, error) {
	exe, err := os.Stat("/proc/self/exe")
	if err != nil {
		return 0, fmt.Errorf("memtrim: %w", err)
	}
	st, ok := exe.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, fmt.Errorf("memtrim: no inode for the executable")
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("memtrim: %w", err)
	}
	var released int64
	for _, m := range readOnlyMappings(smaps, st.Ino) {
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, syscall.MADV_DONTNEED); errno != 0 {
			return released, fmt.Errorf("memtrim: madvise %#x-%#x: %w", m.start, m.end, errno)
		}
		released += int64(m.end - m.start)
	}
	return released, nil
}

type mapping struct{ start, end uintptr }

// readOnlyMappings parses /proc/self/smaps and returns the mappings of
// file inode ino that are not writable and hold no anonymous
// (copy-on-write) page.
func readOnlyMappings(smaps []byte, ino uint64) []mapping {
	var out []mapping
	var cur *mapping
	clean := false
	flush := func() {
		if cur != nil && clean {
			out = append(out, *cur)
		}
		cur = nil
	}
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") && len(f[1]) == 4 {
			// A mapping header: range perms offset dev inode [path].
			flush()
			lo, hi, _ := strings.Cut(f[0], "-")
			start, err1 := strconv.ParseUint(lo, 16, 64)
			end, err2 := strconv.ParseUint(hi, 16, 64)
			inode, err3 := strconv.ParseUint(f[4], 10, 64)
			if err1 != nil || err2 != nil || err3 != nil || inode != ino || f[1][1] == 'w' || f[1][3] != 'p' || end <= start {
				continue
			}
			cur, clean = &mapping{uintptr(start), uintptr(end)}, true
			continue
		}
		if cur != nil && len(f) >= 2 && f[0] == "Anonymous:" && f[1] != "0" {
			clean = false
		}
	}
	flush()
	return out
}
