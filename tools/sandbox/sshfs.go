package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	iofs "io/fs"
	osexec "os/exec"
	"path"
	"strconv"
	"strings"
	"time"
)

// MaxRemoteFile bounds a file the file tools read from a remote
// workspace: it crosses the connection whole, so a huge one is refused
// rather than buffered.
const MaxRemoteFile = 32 << 20

// ErrOutside is wrapped by a remote file operation whose path leads out
// of the remote workspace, through "..", an absolute path or a symlink
// the remote side resolves to somewhere else.
var ErrOutside = errors.New("the path leads outside the sandbox workspace")

// RemoteFiles are the file tools' operations on an ssh box's workspace,
// which lives on the remote host. Each one is a single ssh command whose
// script resolves the path there, walking in folder by folder with cd -P
// (and a final symlink with realpath), and refuses it unless every step
// stays under the workspace's own resolved path: the gateway cannot see
// that file system, so the check must run where the symlinks are.
//
// Known limit: a command running in the same box at the same moment can
// swap the file's own name for a symlink between the check and the open
// (the folders walked are held, see fileScript). That command could read
// the file itself, since exec runs on the same remote host as the same
// user; the check keeps the file tools from being the way out, not the
// remote host's own permissions.
type RemoteFiles struct {
	m *Manager
	b *Box
}

// Files returns the remote file operations of b, an ssh box.
func (m *Manager) Files(b *Box) *RemoteFiles { return &RemoteFiles{m: m, b: b} }

// Dir is the workspace's path on the remote host.
func (f *RemoteFiles) Dir() string { return remoteDir(f.b) }

// Stat describes rel, its symlinks resolved inside the workspace.
func (f *RemoteFiles) Stat(ctx context.Context, rel string) (iofs.FileInfo, error) {
	out, err := f.run(ctx, "stat", rel, opStat, false, nil)
	if err != nil {
		return nil, err
	}
	fields := strings.Fields(string(out))
	fi := remoteInfo{name: path.Base(rel)}
	switch {
	case len(fields) == 1 && fields[0] == "d":
		fi.mode = iofs.ModeDir | 0o700
	case len(fields) == 3 && fields[0] == "f":
		fi.mode = 0o600
		fi.links, _ = strconv.Atoi(fields[1])
		fi.size, _ = strconv.ParseInt(fields[2], 10, 64)
	case len(fields) == 1 && fields[0] == "o":
		fi.mode = iofs.ModeIrregular
	default:
		return nil, fmt.Errorf("stat %s in the ssh sandbox on %s: unexpected answer %q", rel, f.b.SSH.Target, out)
	}
	return fi, nil
}

// ReadFile reads rel, a regular file of one hard link and at most
// MaxRemoteFile bytes.
func (f *RemoteFiles) ReadFile(ctx context.Context, rel string) ([]byte, error) {
	return f.run(ctx, "read", rel, opRead, false, nil)
}

// WriteFile replaces rel with data through a temporary file beside it,
// keeping the mode of a file it replaces; with mkdirs, missing folders
// are created 0700.
func (f *RemoteFiles) WriteFile(ctx context.Context, rel string, data []byte, mkdirs bool) error {
	if f.b.ReadOnly() {
		return fmt.Errorf("write %s: the sandbox sees its workspace read-only (workspaceAccess %q)", rel, f.b.Access)
	}
	_, err := f.run(ctx, "write", rel, opWrite, mkdirs, data)
	return err
}

// Remove deletes rel (a symlink itself, not what it points to).
func (f *RemoteFiles) Remove(ctx context.Context, rel string) error {
	if f.b.ReadOnly() {
		return fmt.Errorf("remove %s: the sandbox sees its workspace read-only (workspaceAccess %q)", rel, f.b.Access)
	}
	_, err := f.run(ctx, "remove", rel, opRemove, false, nil)
	return err
}

// The exit codes of a file script, besides 0 and ssh's own 255.
const (
	exitMissing  = 4
	exitOutside  = 5
	exitNotFile  = 6
	exitLinked   = 7
	exitTooLarge = 8
)

// run seeds the workspace if needed and runs op's script on rel.
func (f *RemoteFiles) run(ctx context.Context, verb, rel string, op fileOp, mkdirs bool, stdin []byte) ([]byte, error) {
	where := fmt.Sprintf("%s %s in the ssh sandbox on %s", verb, rel, f.b.SSH.Target)
	script, err := fileScript(remoteDir(f.b), rel, op, mkdirs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	if err := f.m.seed(ctx, f.b); err != nil {
		return nil, err
	}
	argv, err := f.m.sshBase(f.b, false)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := osexec.CommandContext(ctx, argv[0], append(argv[1:], script)...)
	if op == opWrite {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	msg := strings.TrimSpace(stderr.String())
	var exit *osexec.ExitError
	switch {
	case err == nil:
		return stdout.Bytes(), nil
	case !errors.As(err, &exit):
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	switch exit.ExitCode() {
	case exitMissing:
		return nil, fmt.Errorf("%s: %s: %w", where, msg, iofs.ErrNotExist)
	case exitOutside:
		return nil, fmt.Errorf("%s: %s: %w", where, msg, ErrOutside)
	case exitNotFile, exitLinked, exitTooLarge:
		return nil, fmt.Errorf("%s: %s", where, msg)
	}
	return nil, fmt.Errorf("%s: %w: %s", where, err, msg)
}

type fileOp int

const (
	opStat fileOp = iota
	opRead
	opWrite
	opRemove
)

// fileScript is the remote shell script of op on rel in the workspace
// root. rel must be a clean relative path ("." for the workspace).
// Every value from the caller enters it shell-quoted.
//
// The script walks into the file's folder one cd -P at a time, checking
// after each step that the shell's own folder is still under the
// workspace, and then names the file relative to that folder. The
// working folder is held by the kernel, not by a path, so swapping a
// folder already walked for a symlink afterwards does not move the
// operation elsewhere; only the file's own name is looked up again.
func fileScript(root, rel string, op fileOp, mkdirs bool) (string, error) {
	if rel == "" || path.IsAbs(rel) || path.Clean(rel) != rel || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%q: %w", rel, ErrOutside)
	}
	for _, r := range rel {
		// A newline would end a name inside the script's $(...) answers.
		if r < 0x20 || r == 0x7f {
			return "", fmt.Errorf("%q: control characters in file names are not supported in the ssh sandbox", rel)
		}
	}
	var parts []string
	if rel != "." {
		parts = strings.Split(rel, "/")
	}
	if len(parts) == 0 && (op == opWrite || op == opRemove) {
		return "", errors.New("the workspace itself is a directory")
	}
	var s strings.Builder
	s.WriteString(`fail() { echo "$2" >&2; exit "$1"; }
inside() { case $1 in "$root"|"$root"/*) return 0;; esac; return 1; }
set -f
cd -P -- ` + shellQuote(root) + ` 2>/dev/null || fail 4 'the remote workspace is missing'
root=$(pwd -P)
f=.
`)
	if len(parts) > 0 {
		dirs, last := parts[:len(parts)-1], parts[len(parts)-1]
		if len(dirs) > 0 {
			s.WriteString("for c in")
			for _, c := range dirs {
				s.WriteString(" " + shellQuote(c))
			}
			mk := "fail 4 \"folder $c does not exist\""
			if mkdirs {
				mk = `mkdir -m 700 -- "./$c" || exit 1`
			}
			s.WriteString(`; do
  if [ ! -e "./$c" ] && [ ! -L "./$c" ]; then
    ` + mk + `
  fi
  cd -P -- "./$c" 2>/dev/null || fail 6 "$c is not a folder"
  inside "$(pwd -P)" || fail 5 "folder $c leads outside the workspace"
done
`)
		}
		s.WriteString(`f=./` + shellQuote(last) + "\n")
		if op != opRemove {
			// Remove takes a link itself, which lies in the checked
			// folder; everything else acts on what it points to, so a
			// final symlink is resolved, checked and walked into too.
			s.WriteString(`if [ -L "$f" ]; then
  p=$(realpath -- "$f" 2>/dev/null || readlink -f -- "$f" 2>/dev/null) && [ -n "$p" ] || fail 5 'a symlink that cannot be resolved'
  inside "$p" && [ "$p" != "$root" ] || fail 5 'a symlink that leads outside the workspace'
  cd -P -- "$(dirname -- "$p")" 2>/dev/null && inside "$(pwd -P)" || fail 5 'a symlink that leads outside the workspace'
  f=./$(basename -- "$p")
  [ -L "$f" ] && fail 5 'the symlink changed while it was resolved'
fi
`)
		}
	}
	switch op {
	case opStat:
		s.WriteString(`if [ -d "$f" ]; then echo d
elif [ -f "$f" ]; then set -- $(ls -ldn -- "$f"); echo f "$2" $(wc -c < "$f")
elif [ -e "$f" ]; then echo o
else fail 4 'no such file'; fi
`)
	case opRead:
		s.WriteString(`[ -d "$f" ] && fail 6 'it is a directory'
[ -f "$f" ] || { [ -e "$f" ] && fail 6 'not a regular file'; fail 4 'no such file'; }
set -- $(ls -ldn -- "$f")
[ "$2" -le 1 ] || fail 7 "refused: the file has $2 hard links, so it may be a file outside the workspace under a name inside it"
[ $(wc -c < "$f") -le ` + strconv.Itoa(MaxRemoteFile) + ` ] || fail 8 'the file is larger than ` + strconv.Itoa(MaxRemoteFile>>20) + ` MiB'
exec cat -- "$f"
`)
	case opWrite:
		var rnd [8]byte
		rand.Read(rnd[:])
		// The temporary name is random and noclobber is set, so a
		// symlink planted under it cannot redirect the write.
		s.WriteString(`[ -d "$f" ] && fail 6 'it is a directory'
[ -e "$f" ] && [ ! -f "$f" ] && fail 6 'not a regular file'
t=./.openclaw-` + hex.EncodeToString(rnd[:]) + `.tmp
umask 077
set -C
cat > "$t" || { rm -f -- "$t"; exit 1; }
if [ -f "$f" ]; then
  m=$(stat -c %a -- "$f" 2>/dev/null || stat -f %Lp -- "$f" 2>/dev/null) && chmod "$m" "$t"
fi
mv -f -- "$t" "$f" || { rm -f -- "$t"; exit 1; }
`)
	case opRemove:
		s.WriteString(`[ -d "$f" ] && [ ! -L "$f" ] && fail 6 'it is a directory'
[ -e "$f" ] || [ -L "$f" ] || fail 4 'no such file'
rm -f -- "$f"
`)
	}
	return s.String(), nil
}

// remoteInfo is what Stat learns of a remote file.
type remoteInfo struct {
	name  string
	size  int64
	mode  iofs.FileMode
	links int
}

func (i remoteInfo) Name() string        { return i.name }
func (i remoteInfo) Size() int64         { return i.size }
func (i remoteInfo) Mode() iofs.FileMode { return i.mode }
func (i remoteInfo) ModTime() time.Time  { return time.Time{} }
func (i remoteInfo) IsDir() bool         { return i.mode.IsDir() }
func (i remoteInfo) Sys() any            { return nil }

// Links is the file's hard link count (0 when unknown).
func (i remoteInfo) Links() int { return i.links }
