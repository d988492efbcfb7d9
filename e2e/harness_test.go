package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/store/pgtest"
	"time"

	"github.com/openclaw-go/openclaw/e2e/harness"
)

// Set up once by TestMain.
var (
	repoRoot string
	binDir   string // holds ourBin; removed after the tests
	// ourBin is the built openclaw binary; empty when the build failed in
	// real-gateway mode (ourBinErr says why).
	ourBin    string
	ourBinErr error
	// realCLI is the wrapper that runs the real OpenClaw CLI; empty when
	// OPENCLAW_E2E_SKIP_REAL=1.
	realCLI string
	// peer is the gateway under test: "ours" or "real".
	peer string
)

const (
	modulePath = "github.com/openclaw-go/openclaw"
	// cliTimeout bounds one CLI command (the real CLI takes 1-2 s to start).
	cliTimeout = 90 * time.Second
	// stopGrace is how long a process gets after SIGTERM before SIGKILL.
	stopGrace = 10 * time.Second
)

func TestMain(m *testing.M) {
	err := setup()
	code := 1
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e setup: %v\n", err)
	} else {
		code = m.Run()
	}
	pgtest.Stop()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// setup finds the repo, builds our binary and installs the real CLI.
func setup() error {
	peer = os.Getenv("OPENCLAW_E2E_GATEWAY")
	switch peer {
	case "", "ours":
		peer = "ours"
	case "real":
	default:
		return fmt.Errorf("OPENCLAW_E2E_GATEWAY=%q: want ours or real", peer)
	}
	if peer == "real" && os.Getenv("OPENCLAW_E2E_SKIP_REAL") == "1" {
		return errors.New("OPENCLAW_E2E_GATEWAY=real needs the real OpenClaw; unset OPENCLAW_E2E_SKIP_REAL")
	}
	root, err := harness.FindRepoRoot()
	if err != nil {
		return err
	}
	repoRoot = root

	binDir, err = os.MkdirTemp("", "openclaw-e2e-")
	if err != nil {
		return err
	}
	bin := filepath.Join(binDir, "openclaw")
	if err := harness.Build(bin); err != nil {
		if peer == "ours" {
			return err
		}
		ourBinErr = err
		fmt.Fprintf(os.Stderr, "e2e: %v (tests of our binary will be skipped)\n", err)
	} else {
		ourBin = bin
	}

	if os.Getenv("OPENCLAW_E2E_SKIP_REAL") == "1" {
		fmt.Fprintln(os.Stderr, "e2e: OPENCLAW_E2E_SKIP_REAL=1: tests that need the real OpenClaw CLI are skipped")
		return nil
	}
	wrapper, err := installReal()
	if err != nil {
		return fmt.Errorf("%w\n(set OPENCLAW_E2E_SKIP_REAL=1 to skip the tests that need it)", err)
	}
	realCLI = wrapper
	return nil
}

// installReal runs scripts/install-openclaw-real.sh (idempotent: quick when
// the pinned versions are there) and returns the wrapper path it prints.
func installReal() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join("scripts", "install-openclaw-real.sh"))
	cmd.Dir = repoRoot
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("install the real OpenClaw CLI: %w\nstdout:\n%s\nstderr:\n%s", err, &stdout, &stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	wrapper := strings.TrimSpace(lines[len(lines)-1])
	if st, err := os.Stat(wrapper); err != nil || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("install the real OpenClaw CLI: script printed %q, not an executable", wrapper)
	}
	return wrapper, nil
}

// recordInputs tells go test what this package's results depend on: every
// source file of the repo, and the real CLI's install.
func recordInputs() {
	if realCLI == "" {
		harness.RecordInputs()
		return
	}
	harness.RecordInputs(realCLI, filepath.Join(filepath.Dir(filepath.Dir(realCLI)), "app", "node_modules", "openclaw", "package.json"))
}

// needRealCLI returns the real CLI wrapper or skips the test.
func needRealCLI(t *testing.T) string {
	t.Helper()
	if realCLI == "" {
		t.Skip("real OpenClaw CLI not installed (OPENCLAW_E2E_SKIP_REAL=1)")
	}
	return realCLI
}

// needOurBin returns our binary or skips the test (real-gateway mode only;
// in the default mode a failed build stops TestMain).
func needOurBin(t *testing.T) string {
	t.Helper()
	if ourBin == "" {
		t.Skipf("our binary did not build: %v", ourBinErr)
	}
	return ourBin
}

// needOurGateway skips tests of our gateway's own behaviour in real mode.
func needOurGateway(t *testing.T) {
	t.Helper()
	if peer != "ours" {
		t.Skip("tests our gateway only (OPENCLAW_E2E_GATEWAY=real)")
	}
	needOurBin(t)
}
