// Command mcpserver is a stdio MCP server for the mcp package's tests.
// MCPTEST_CRASH_AFTER=N makes it exit on the N-th tool call.
// MCPTEST_GRANDCHILD=<file> makes it start `sleep 300` first, sharing its
// stderr, and write that child's pid to the file, the way a wrapper
// script leaves a process behind.
package main

import (
	"context"
	"log"
	"os"
	"os/exec"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openclaw-go/openclaw/plugins/mcp/testdata/mcpserver/testserver"
)

func main() {
	if file := os.Getenv("MCPTEST_GRANDCHILD"); file != "" {
		sleep := exec.Command("sleep", "300")
		sleep.Stderr = os.Stderr
		if err := sleep.Start(); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(strconv.Itoa(sleep.Process.Pid)), 0o600); err != nil {
			log.Fatal(err)
		}
	}
	n, _ := strconv.Atoi(os.Getenv("MCPTEST_CRASH_AFTER"))
	s := testserver.New(testserver.Options{CrashAfter: n, Crash: func() { os.Exit(3) }})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Print(err)
	}
}
