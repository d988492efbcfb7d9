package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/gateway/client"
	"github.com/openclaw-go/openclaw/gateway/client/clienttest"
	"github.com/openclaw-go/openclaw/gateway/protocol"
)

func TestCallFinal(t *testing.T) {
	srv := clienttest.NewServer(t, clienttest.Config{})
	srv.Handle("agent", func(ctx context.Context, call *clienttest.Call) (any, error) {
		if err := call.Accept(map[string]any{"runId": "r1"}); err != nil {
			return nil, err
		}
		_ = call.Conn.Event("agent", map[string]any{"runId": "r1", "stream": "assistant"})
		return map[string]any{"runId": "r1", "status": "ok", "summary": "completed"}, nil
	})
	c := dial(t, srv, client.Options{})

	for _, tc := range []struct {
		name  string
		final bool
		want  string
	}{
		{"CallFinal waits for the final answer", true, "ok"},
		{"Call returns the interim ack", false, "accepted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out struct{ RunID, Status string }
			call := c.Call
			if tc.final {
				call = c.CallFinal
			}
			if err := call(context.Background(), "agent", map[string]any{"message": "hi"}, &out); err != nil {
				t.Fatal(err)
			}
			if out.Status != tc.want || out.RunID != "r1" {
				t.Errorf("got %+v, want status %s", out, tc.want)
			}
		})
	}
}

func TestConcurrentCalls(t *testing.T) {
	srv := clienttest.NewServer(t, clienttest.Config{})
	// Answer in reverse order of arrival: each call sleeps less the later
	// it comes, so responses interleave.
	srv.Handle("echo", func(ctx context.Context, call *clienttest.Call) (any, error) {
		var p struct{ N int }
		if err := call.Decode(&p); err != nil {
			return nil, err
		}
		time.Sleep(time.Duration(50-p.N) * time.Millisecond / 10)
		return call.Params, nil
	})
	c := dial(t, srv, client.Options{})

	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out struct{ N int }
			if err := c.Call(context.Background(), "echo", map[string]int{"N": i}, &out); err != nil {
				errs <- err
				return
			}
			if out.N != i {
				errs <- fmt.Errorf("call %d got answer %d", i, out.N)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := len(srv.Requests()); got != n {
		t.Errorf("server saw %d requests, want %d", got, n)
	}
}

func TestCallContext(t *testing.T) {
	srv := clienttest.NewServer(t, clienttest.Config{})
	srv.Handle("slow", func(ctx context.Context, _ *clienttest.Call) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	srv.Handle("echo", clienttest.Echo)
	c := dial(t, srv, client.Options{})

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := c.Call(ctx, "slow", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	// The connection is still usable.
	if err := c.Call(context.Background(), "echo", map[string]any{}, nil); err != nil {
		t.Fatalf("call after timeout: %v", err)
	}
}

func TestEvents(t *testing.T) {
	srv := clienttest.NewServer(t, clienttest.Config{})
	srv.Handle("echo", clienttest.Echo)

	t.Run("delivered in order with seq", func(t *testing.T) {
		c := dial(t, srv, client.Options{})
		srv.Broadcast("tick", protocol.TickPayload{Ts: 1})
		srv.Broadcast("health", map[string]any{"ok": true})
		for i, want := range []string{"tick", "health"} {
			select {
			case ev := <-c.Events():
				if ev.Event != want || ev.Seq == nil || *ev.Seq != uint64(i+1) {
					t.Errorf("event %d = %s seq %v, want %s seq %d", i, ev.Event, ev.Seq, want, i+1)
				}
			case <-time.After(2 * time.Second):
				t.Fatalf("no %s event", want)
			}
		}
	})

	t.Run("full buffer drops the oldest", func(t *testing.T) {
		c := dial(t, srv, client.Options{EventBuffer: 2, InstanceID: "drop-test"})
		for _, conn := range srv.Conns() {
			if conn.Connect().Params.Client.InstanceID == "drop-test" {
				for i := 1; i <= 5; i++ {
					_ = conn.Event("tick", protocol.TickPayload{Ts: int64(i)})
				}
			}
		}
		// Events precede this response on the socket, so once it is back
		// the reader has queued them all.
		if err := c.Call(context.Background(), "echo", nil, nil); err != nil {
			t.Fatal(err)
		}
		var got []int64
		for len(c.Events()) > 0 {
			ev := <-c.Events()
			var p protocol.TickPayload
			_ = json.Unmarshal(ev.Payload, &p)
			got = append(got, p.Ts)
		}
		if fmt.Sprint(got) != "[4 5]" || c.DroppedEvents() != 3 {
			t.Errorf("kept %v, dropped %d; want [4 5], 3", got, c.DroppedEvents())
		}
	})
}

func TestClose(t *testing.T) {
	srv := clienttest.NewServer(t, clienttest.Config{})
	started := make(chan struct{})
	srv.Handle("slow", func(ctx context.Context, _ *clienttest.Call) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	opts := client.Options{URL: srv.URL()}
	c, err := client.Dial(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	callErr := make(chan error, 1)
	go func() { callErr <- c.Call(context.Background(), "slow", nil, nil) }()
	<-started

	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-callErr; !errors.Is(err, client.ErrClosed) {
		t.Errorf("in-flight call err = %v, want ErrClosed", err)
	}
	if err := c.Call(context.Background(), "slow", nil, nil); !errors.Is(err, client.ErrClosed) {
		t.Errorf("call after Close err = %v, want ErrClosed", err)
	}
	if _, open := <-c.Events(); open {
		t.Error("Events not closed")
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	checkNoLeak(t)
}

func TestServerDrops(t *testing.T) {
	srv := clienttest.NewServer(t, clienttest.Config{})
	c := dial(t, srv, client.Options{})
	for _, conn := range srv.Conns() {
		conn.Close(protocol.ClosePolicy, "slow consumer")
	}
	select {
	case <-c.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("client did not notice the close")
	}
	err := c.Err()
	var ce *client.CloseError
	if !errors.Is(err, client.ErrConnectionLost) || !errors.As(err, &ce) || ce.Code != protocol.ClosePolicy || ce.Reason != "slow consumer" {
		t.Errorf("Err() = %v, want connection lost with close 1008", err)
	}
	if err := c.Call(context.Background(), "x", nil, nil); !errors.Is(err, client.ErrConnectionLost) {
		t.Errorf("call after drop err = %v", err)
	}
	c.Close()
	checkNoLeak(t)
}
