//go:build postgres

package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for CREATE DATABASE
)

var (
	once    sync.Once
	server  *instance
	bootErr error
	dbCount atomic.Int64
)

type instance struct {
	dir, bin string
	port     int
	asUser   []string // the setpriv prefix when running as root
}

// Main runs the package's tests and stops the server afterwards.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop stops the server, if one was started; for a TestMain of its own.
func Stop() {
	if server != nil {
		server.stop()
	}
}

// URL returns the postgres:// URL of a new, empty database: a schema of
// its own that the URL's search_path selects.
func URL(t testing.TB) string {
	t.Helper()
	once.Do(func() { server, bootErr = start() })
	if bootErr != nil {
		if os.Getenv("OPENCLAW_TEST_POSTGRES") == "require" {
			t.Fatalf("pgtest: %v", bootErr)
		}
		t.Skipf("pgtest: no PostgreSQL server here: %v", bootErr)
	}
	// A schema per test, not a database: CREATE DATABASE copies a
	// template and takes a good part of a second; a schema is instant,
	// and a connection whose search_path names it sees only its tables.
	name := fmt.Sprintf("t%d_%d", os.Getpid(), dbCount.Add(1))
	admin, err := sql.Open("pgx", server.url(""))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.ExecContext(context.Background(), "CREATE SCHEMA "+name); err != nil {
		t.Fatalf("pgtest: create schema: %v", err)
	}
	return server.url(name)
}

// url is the test database's URL, its tables in schema (none: public).
func (s *instance) url(schema string) string {
	u := fmt.Sprintf("postgres://openclaw@/postgres?host=%s&port=%d&sslmode=disable", s.dir, s.port)
	if schema != "" {
		u += "&search_path=" + schema
	}
	return u
}

// binDir finds initdb and pg_ctl: on the PATH, else Debian's versioned
// folder.
func binDir() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Dir(real), nil
		}
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Strings(dirs)
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "pg_ctl")); err == nil {
			return dirs[i], nil
		}
	}
	return "", fmt.Errorf("pg_ctl not found (install the postgresql package)")
}

func start() (*instance, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "openclaw-pgtest-")
	if err != nil {
		return nil, err
	}
	s := &instance{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		// The server refuses to run as root: run it as the postgres user.
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root and no postgres user to run the server as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
		s.asUser = []string{"setpriv", "--reuid=" + u.Uid, "--regid=" + u.Gid, "--init-groups"}
	}
	// The server listens on a Unix socket in its own folder, not on TCP:
	// test binaries of several packages start servers at once, and a
	// free TCP port picked by one can be taken by another before its
	// server binds it (pg_ctl -w then reports the other's server as its
	// own, which stops under its tests when that package ends).
	s.port = 5432
	data := filepath.Join(dir, "data")
	if out, err := s.run("initdb", "-D", data, "-U", "openclaw", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"); err != nil {
		return nil, fmt.Errorf("initdb: %w: %s", err, out)
	}
	opts := fmt.Sprintf("-k %s -p %d -c listen_addresses='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", dir, s.port)
	if out, err := s.run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "server.log"), "-w", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		return nil, fmt.Errorf("pg_ctl start: %w: %s %s", err, out, log)
	}
	s.watch()
	return s, nil
}

// watch stops the server once this process is gone, however it ended: a
// test binary killed by its timeout never reaches Main's stop, and the
// server would outlive it.
func (s *instance) watch() {
	stop := strings.Join(append(append([]string{}, s.asUser...), filepath.Join(s.bin, "pg_ctl")), " ")
	script := fmt.Sprintf("while kill -0 %d 2>/dev/null; do sleep 2; done; %s -D %s -m immediate stop >/dev/null 2>&1; rm -rf %s",
		os.Getpid(), stop, filepath.Join(s.dir, "data"), s.dir)
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err == nil {
		go cmd.Wait() // reaped if this process outlives it
	}
}

func (s *instance) run(name string, args ...string) (string, error) {
	argv := append(append(append([]string{}, s.asUser...), filepath.Join(s.bin, name)), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = s.dir
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func (s *instance) stop() {
	_, _ = s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "stop")
	os.RemoveAll(s.dir)
}
