package shell

import (
	"context"
	"encoding/json"
	"fmt"
	osexec "os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw-go/openclaw/tools"
)

// BenchmarkExec compares the exec tool (policy analysis, temp files,
// process table) with a bare `sh -c true`; the difference is exec's
// overhead. Run: go test -run '^$' -bench Exec ./tools/shell/
func BenchmarkExec(b *testing.B) {
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			if err := osexec.Command("/bin/sh", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tool", func(b *testing.B) {
		ws := b.TempDir()
		procs := NewProcesses()
		defer procs.Close()
		ex := Tools(Config{Workspace: func(tools.Who) (string, error) { return ws, nil }}, procs)[0]
		call := tools.Call{Args: json.RawMessage(`{"command":"true"}`), Who: tools.Who{AgentID: "main"}}
		for b.Loop() {
			if _, err := ex.Call(context.Background(), call); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestManyBackgroundProcesses runs 100 background commands at once and
// polls them all to the end: no output may be lost.
func TestManyBackgroundProcesses(t *testing.T) {
	ex, proc, _ := setup(t, full(), nil)
	const n, lines = 100, 300
	ids := make([]string, n)
	for i := range ids {
		r := run(t, ex, fmt.Sprintf(`{"command":"for i in $(seq 1 %d); do echo %d-$i; done","background":true}`, lines, i))
		if r.Status != "running" {
			t.Fatalf("start %d: %+v", i, r)
		}
		ids[i] = r.SessionID
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var got strings.Builder
			deadline := time.Now().Add(60 * time.Second)
			for time.Now().Before(deadline) {
				res, err := proc.Call(context.Background(), tools.Call{Args: json.RawMessage(`{"action":"poll","sessionId":"` + id + `"}`), Who: tools.Who{AgentID: "main"}})
				if err != nil {
					errs <- err
					return
				}
				head, body, _ := strings.Cut(res.Text, "\n")
				got.WriteString(body)
				if strings.HasPrefix(head, "[exited") && !strings.Contains(head, "more bytes") && body == "" {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			want := fmt.Sprintf("%d-%d\n", i, lines)
			if c := strings.Count(got.String(), "\n"); c != lines || !strings.HasSuffix(got.String(), want) {
				errs <- fmt.Errorf("process %d: got %d lines, last %q", i, c, got.String()[max(0, got.Len()-20):])
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
