// Command startclock launches a gateway and times it from the launch to a
// listening port and to a ready /readyz, on one clock, without forking a
// process per poll. With -runs N it launches N times, stopping each after
// ready, then launches once more and leaves that one running for the
// caller to measure further; it prints the figures and that gateway's pid.
//
//	startclock -port 18789 -runs 5 -cpu 0 -stdout out -stderr err -- openclaw gateway --port 18789
//
// prints: listenMs=… readyMs=… listenMinMs=… readyMinMs=… runs=5 pid=…
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

type config struct {
	port     int
	runs     int
	cpu      int // -1: no pinning
	stdout   string
	stderr   string
	deadline time.Duration
	cmd      []string
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "startclock:", err)
		os.Exit(2)
	}
	line, err := run(context.Background(), cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "startclock:", err)
		os.Exit(1)
	}
	fmt.Println(line)
}

func parseFlags(args []string) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("startclock", flag.ContinueOnError)
	fs.IntVar(&cfg.port, "port", 0, "the port the gateway listens on (127.0.0.1)")
	fs.IntVar(&cfg.runs, "runs", 1, "timed launches before the one left running")
	fs.IntVar(&cfg.cpu, "cpu", -1, "pin the gateway to this core (-1: no pinning)")
	fs.StringVar(&cfg.stdout, "stdout", os.DevNull, "file for the gateway's standard output")
	fs.StringVar(&cfg.stderr, "stderr", os.DevNull, "file for the gateway's standard error")
	fs.DurationVar(&cfg.deadline, "deadline", 180*time.Second, "give up on a launch after this long")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	cfg.cmd = fs.Args()
	switch {
	case cfg.port <= 0 || cfg.port > 65535:
		return cfg, fmt.Errorf("-port %d: want the port the gateway listens on", cfg.port)
	case cfg.runs < 1:
		return cfg, fmt.Errorf("-runs %d: want at least 1", cfg.runs)
	case len(cfg.cmd) == 0:
		return cfg, errors.New("no command: give it after --")
	}
	return cfg, nil
}

// run times cfg.runs launches and leaves one more gateway running.
func run(ctx context.Context, cfg config) (string, error) {
	var listen, ready []time.Duration
	for i := range cfg.runs + 1 {
		g, err := launch(ctx, cfg)
		if err != nil {
			return "", fmt.Errorf("launch %d: %w", i+1, err)
		}
		if i == cfg.runs {
			// Left running in its own session; the caller stops it.
			pid := g.cmd.Process.Pid
			return fmt.Sprintf("listenMs=%s readyMs=%s listenMinMs=%s readyMinMs=%s runs=%d pid=%d",
				ms(median(listen)), ms(median(ready)), ms(slices.Min(listen)), ms(slices.Min(ready)), cfg.runs, pid), nil
		}
		listen, ready = append(listen, g.listen), append(ready, g.ready)
		g.stop()
	}
	panic("unreachable")
}

type gateway struct {
	cmd           *exec.Cmd
	listen, ready time.Duration
}

// launch starts the command and waits until it listens and is ready.
func launch(ctx context.Context, cfg config) (*gateway, error) {
	out, err := os.OpenFile(cfg.stdout, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	errf, err := os.OpenFile(cfg.stderr, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer errf.Close()

	cmd := exec.Command(cfg.cmd[0], cfg.cmd[1:]...)
	cmd.Stdout, cmd.Stderr = out, errf
	// Its own process group, so stopping it stops what it spawned.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}

	start, err := startPinned(cmd, cfg.cpu)
	if err != nil {
		return nil, err
	}
	g := &gateway{cmd: cmd}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	fail := func(what string) (*gateway, error) {
		select {
		case <-exited:
			return nil, fmt.Errorf("%s exited before it was %s (see %s)", cfg.cmd[0], what, cfg.stderr)
		default:
			g.stop()
			return nil, fmt.Errorf("%s not %s after %s", cfg.cmd[0], what, cfg.deadline)
		}
	}

	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.port))
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			g.listen = time.Since(start)
			c.Close()
			break
		}
		if exitedOrLate(exited, start, cfg.deadline) {
			return fail("listening")
		}
		time.Sleep(pollEvery(start))
	}

	client := &http.Client{Timeout: 2 * time.Second}
	url := "http://" + addr + "/readyz"
	for {
		if isReady(ctx, client, url) {
			g.ready = time.Since(start)
			return g, nil
		}
		if exitedOrLate(exited, start, cfg.deadline) {
			return fail("ready")
		}
		time.Sleep(pollEvery(start))
	}
}

// startPinned starts cmd with its CPU affinity set to cpu (unless cpu is
// negative) from the first instruction: the forking thread takes the
// mask, the child inherits it, and a Go child reads it for GOMAXPROCS at
// start, which setting it after the fork would race. It returns the
// launch time, taken just before the fork.
func startPinned(cmd *exec.Cmd, cpu int) (time.Time, error) {
	if cpu < 0 {
		start := time.Now()
		return start, cmd.Start()
	}
	type result struct {
		start time.Time
		err   error
	}
	done := make(chan result)
	go func() {
		// Never unlocked: the thread keeps the narrowed mask, so it
		// exits with this goroutine instead of going back to the pool.
		runtime.LockOSThread()
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			done <- result{err: fmt.Errorf("pin to core %d: %w", cpu, err)}
			return
		}
		start := time.Now()
		done <- result{start, cmd.Start()}
	}()
	r := <-done
	return r.start, r.err
}

// pollEvery polls tightly for the first second (our gateway is expected
// well inside it), then every 10 ms so the poller leaves the CPU to a
// slow starter.
func pollEvery(start time.Time) time.Duration {
	if time.Since(start) < time.Second {
		return 200 * time.Microsecond
	}
	return 10 * time.Millisecond
}

func exitedOrLate(exited <-chan struct{}, start time.Time, deadline time.Duration) bool {
	select {
	case <-exited:
		return true
	default:
		return time.Since(start) > deadline
	}
}

// isReady reports whether /readyz says ready: 200 without "ready":false
// (the real gateway answers 200 while still starting), or 404 from a
// gateway without the endpoint once it listens.
func isReady(ctx context.Context, client *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	res, err := client.Do(req)
	if err != nil {
		return false
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	switch res.StatusCode {
	case http.StatusNotFound:
		return true
	case http.StatusOK:
		return !strings.Contains(strings.ReplaceAll(string(body), " ", ""), `"ready":false`)
	}
	return false
}

// stop sends SIGTERM to the gateway's process group, then SIGKILL after
// 30 s, and returns once no process of the group is left.
func (g *gateway) stop() {
	pgid := g.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64)
}
