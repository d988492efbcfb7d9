// Command mcpserver is a stdio MCP server for the mcp package's tests.
// MCPTEST_CRASH_AFTER=N makes it exit on the N-th tool call.
package main

import (
	"context"
	"log"
	"os"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openclaw-go/openclaw/plugins/mcp/testdata/mcpserver/testserver"
)

func main() {
	n, _ := strconv.Atoi(os.Getenv("MCPTEST_CRASH_AFTER"))
	s := testserver.New(testserver.Options{CrashAfter: n, Crash: func() { os.Exit(3) }})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Print(err)
	}
}
