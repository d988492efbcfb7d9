// Command fakemodel serves a fake language model on loopback for the
// benchmarks: OpenAI Chat Completions (POST /v1/chat/completions) and
// Anthropic Messages (POST /v1/messages), streamed or whole, answering
// every request at once with "echo: <last user text>". It is the
// agents/providers/fakemodel test server run as a program, so our gateway
// and the real OpenClaw gateway can both point a provider at it:
//
//	fakemodel -addr 127.0.0.1:18999
//	# models.providers.fake {baseUrl: "http://127.0.0.1:18999/v1", api: "openai-completions"}
//
// It prints its base URL on stdout once listening and serves until
// SIGINT or SIGTERM. It keeps no record of requests, so memory stays
// flat however long it runs.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/openclaw-go/openclaw/agents/providers/fakemodel"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (port 0 picks a free one)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "fakemodel: unexpected arguments:", flag.Args())
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr); err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, addr string) error {
	srv, err := fakemodel.Start(addr)
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Println(srv.URL())
	<-ctx.Done()
	return nil
}
