package host

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// hostStats is the payload of the node.host.stats event.
type hostStats struct {
	CPUCount         int       `json:"cpuCount"`
	LoadAverage      []float64 `json:"loadAverage,omitempty"`
	MemoryTotalBytes uint64    `json:"memoryTotalBytes"`
	MemoryFreeBytes  uint64    `json:"memoryFreeBytes"`
}

// readStats samples the machine. On systems without /proc the load and
// memory figures stay zero.
func readStats(procDir string) hostStats {
	s := hostStats{CPUCount: runtime.NumCPU()}
	if data, err := os.ReadFile(procDir + "/loadavg"); err == nil {
		s.LoadAverage = parseLoadAvg(string(data))
	}
	if f, err := os.Open(procDir + "/meminfo"); err == nil {
		s.MemoryTotalBytes, s.MemoryFreeBytes = parseMeminfo(bufio.NewScanner(f))
		f.Close()
	}
	return s
}

// parseLoadAvg reads the 1, 5 and 15 minute figures of /proc/loadavg.
func parseLoadAvg(s string) []float64 {
	f := strings.Fields(s)
	if len(f) < 3 {
		return nil
	}
	out := make([]float64, 0, 3)
	for _, v := range f[:3] {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil
		}
		out = append(out, x)
	}
	return out
}

// parseMeminfo returns MemTotal and MemAvailable (MemFree on old kernels)
// in bytes.
func parseMeminfo(sc *bufio.Scanner) (total, free uint64) {
	var memFree, avail uint64
	haveAvail := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			continue
		}
		kb, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			continue
		}
		switch f[0] {
		case "MemTotal:":
			total = kb * 1024
		case "MemFree:":
			memFree = kb * 1024
		case "MemAvailable:":
			avail, haveAvail = kb*1024, true
		}
	}
	if haveAvail {
		return total, avail
	}
	return total, memFree
}
