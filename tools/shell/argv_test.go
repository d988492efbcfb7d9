package shell

import (
	"slices"
	"testing"
)

func TestShellArgv(t *testing.T) {
	cases := []struct {
		name, goos, command string
		want                []string
	}{
		{"linux", "linux", "ls -la", []string{"/bin/sh", "-c", "ls -la"}},
		{"darwin", "darwin", "echo $HOME", []string{"/bin/sh", "-c", "echo $HOME"}},
		{"freebsd", "freebsd", "true", []string{"/bin/sh", "-c", "true"}},
		{"windows", "windows", "dir /b", []string{"cmd.exe", "/D", "/S", "/C", "dir /b"}},
		{"windows keeps quotes", "windows", `echo "a b" & type "c d.txt"`, []string{"cmd.exe", "/D", "/S", "/C", `echo "a b" & type "c d.txt"`}},
		{"empty command", "linux", "", []string{"/bin/sh", "-c", ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := shellArgv(tc.goos, tc.command); !slices.Equal(got, tc.want) {
				t.Fatalf("shellArgv(%q, %q) = %q, want %q", tc.goos, tc.command, got, tc.want)
			}
		})
	}
}

func TestCmdLine(t *testing.T) {
	cases := []struct {
		name, command, want string
	}{
		{"plain", "dir /b", `cmd.exe /D /S /C "dir /b"`},
		{"inner quotes kept", `type "my file.txt" | findstr "x y"`, `cmd.exe /D /S /C "type "my file.txt" | findstr "x y""`},
		{"backslashes kept", `cd C:\Users\me\ && dir`, `cmd.exe /D /S /C "cd C:\Users\me\ && dir"`},
		{"empty", "", `cmd.exe /D /S /C ""`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := cmdLine(shellArgv("windows", tc.command)); got != tc.want {
				t.Fatalf("cmdLine = %s, want %s", got, tc.want)
			}
		})
	}
}
