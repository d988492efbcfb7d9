package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryDeps keeps out of the binary the modules measured to cost
// the most for what they gave: excelize (its init took milliseconds and
// 1.3 MB at every start) and go-deepcopy, whose reflect Method call with
// a computed index turns off the linker's dead-method elimination for
// the whole program (some 14 MB). Tests may still use them.
func TestBinaryDeps(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/xuri/excelize", "github.com/tiendc/go-deepcopy"} {
			if strings.HasPrefix(dep, banned) {
				t.Errorf("the binary depends on %s", dep)
			}
		}
	}
}
