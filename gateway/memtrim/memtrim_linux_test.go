package memtrim

import (
	"os"
	"strings"
	"testing"
)

func TestReadOnlyMappings(t *testing.T) {
	smaps := strings.Join([]string{
		"00400000-01000000 r-xp 00000000 08:01 77 /usr/bin/openclaw",
		"Rss:                1024 kB",
		"Anonymous:             0 kB",
		"01000000-02000000 r--p 00c00000 08:01 77 /usr/bin/openclaw",
		"Anonymous:             0 kB",
		// relocated read-only data: written once, must be kept
		"02000000-02100000 r--p 01c00000 08:01 77 /usr/bin/openclaw",
		"Anonymous:             8 kB",
		"02100000-02200000 rw-p 01d00000 08:01 77 /usr/bin/openclaw",
		"Anonymous:             0 kB",
		// another file, a shared mapping, and anonymous memory
		"7f000000-7f100000 r-xp 00000000 08:01 99 /usr/lib/libc.so",
		"Anonymous:             0 kB",
		"7f100000-7f200000 r--s 00000000 08:01 77 /usr/bin/openclaw",
		"Anonymous:             0 kB",
		"c000000000-c004000000 rw-p 00000000 00:00 0",
		"Anonymous:          4096 kB",
		"garbage line",
	}, "\n")
	got := readOnlyMappings([]byte(smaps), 77)
	want := []mapping{{0x400000, 0x1000000}, {0x1000000, 0x2000000}}
	if len(got) != len(want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("mapping %d: got %#v, want %#v", i, got[i], want[i])
		}
	}
}

// TestReleaseCode runs the real thing on the test binary: it advises some
// of the executable, and the process keeps running code and reading
// constants from it afterwards.
func TestReleaseCode(t *testing.T) {
	before := rssFile(t)
	n, err := ReleaseCode()
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no read-only mapping of the executable was found")
	}
	// Only the few pages run between the two reads come back.
	if after := rssFile(t); after >= before {
		t.Fatalf("RssFile %d kB before the release, %d kB after", before, after)
	}
	if s := strings.Repeat("ok", 2); s != "okok" {
		t.Fatal("code after release misbehaved")
	}
}

func rssFile(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			var kb int
			for _, c := range strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")) {
				kb = kb*10 + int(c-'0')
			}
			return kb
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}
