package speech

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// LocalCLI is the provider id of a speech program on this machine
// (OpenClaw's tts-local-cli: say, piper, espeak, ...).
const LocalCLI = "tts-local-cli"

// Limits of a local speech program, as OpenClaw's: what it writes to
// stdout or its output file, and its diagnostics on stderr.
const (
	maxLocalAudioBytes  = 50 << 20
	maxLocalStderrBytes = 1 << 20
	// DefaultLocalCLITimeout is the program's time when neither its
	// timeoutMs nor the request's timeout says otherwise.
	DefaultLocalCLITimeout = 120 * time.Second
)

// localEnv are the variables of the gateway's environment a speech
// program gets (plus its env block): enough to find its files and
// voices, and none of the gateway's secrets.
var localEnv = []string{"PATH", "HOME", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"}

// localSpeak runs tts.providers.tts-local-cli.command with its args, no
// shell between: {{Text}} is the text as one argument (or, when no
// argument names it, the program's stdin), {{OutputPath}},
// {{OutputDir}} and {{OutputBase}} name the file it writes in a private
// folder of its own (without them its stdout is the audio).
func (c *Client) localSpeak(ctx context.Context, p config.TTSProvider, text string) (Audio, error) {
	if strings.TrimSpace(p.Command) == "" {
		return Audio{}, fmt.Errorf("%s speech: %w: set tts.providers.%s.command", LocalCLI, ErrNoKey, LocalCLI)
	}
	format := cmp.Or(p.OutputFormat, "mp3")
	if p.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(p.TimeoutMs)*time.Millisecond)
		defer cancel()
	} else if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultLocalCLITimeout)
		defer cancel()
	}
	dir, err := os.MkdirTemp("", "openclaw-tts-")
	if err != nil {
		return Audio{}, fmt.Errorf("%s speech: %w", LocalCLI, err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "speech."+format)
	// A text starting with "-" would read as an option to most programs:
	// a space in front is heard the same.
	spoken := text
	if strings.HasPrefix(spoken, "-") {
		spoken = " " + spoken
	}
	fill := strings.NewReplacer("{{Text}}", spoken, "{{OutputPath}}", out, "{{OutputDir}}", dir, "{{OutputBase}}", "speech")
	argv := localCommand(p.Command)
	textArg, fileArg := false, false
	for _, a := range p.Args {
		textArg = textArg || strings.Contains(a, "{{Text}}")
		fileArg = fileArg || strings.Contains(a, "{{OutputPath}}") || strings.Contains(a, "{{OutputDir}}") || strings.Contains(a, "{{OutputBase}}")
		argv = append(argv, fill.Replace(a))
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = p.Cwd
	cmd.Env = nil
	for _, k := range localEnv {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for k, v := range p.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if !textArg {
		cmd.Stdin = strings.NewReader(text)
	}
	stdout := &cappedBuffer{max: maxLocalAudioBytes}
	stderr := &cappedBuffer{max: maxLocalStderrBytes}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	switch {
	case stdout.over || stderr.over:
		return Audio{}, fmt.Errorf("%s speech: %s wrote more than it may (50 MiB of audio, 1 MiB of diagnostics): stopped", LocalCLI, argv[0])
	case ctx.Err() != nil:
		return Audio{}, fmt.Errorf("%s speech: %s did not finish in time: %w", LocalCLI, argv[0], ctx.Err())
	case err != nil:
		return Audio{}, fmt.Errorf("%s speech: %s failed: %v%s", LocalCLI, argv[0], err, stderrTail(stderr.Bytes()))
	}
	data := stdout.Bytes()
	if fileArg {
		if data, err = readCapped(out, maxLocalAudioBytes); err != nil {
			return Audio{}, fmt.Errorf("%s speech: %s wrote no audio to {{OutputPath}}: %w", LocalCLI, argv[0], err)
		}
	}
	if len(data) == 0 {
		return Audio{}, fmt.Errorf("%s speech: %s produced no audio", LocalCLI, argv[0])
	}
	return audioOf(data, format), nil
}

// localCommand splits a command given as one string with its own
// arguments ("espeak-ng -v en") on spaces, unless it names a file that
// exists as written. No shell parses it.
func localCommand(command string) []string {
	command = strings.TrimSpace(command)
	if _, err := os.Stat(command); err == nil || !strings.ContainsAny(command, " \t") {
		return []string{command}
	}
	return strings.Fields(command)
}

// stderrTail is the end of a program's diagnostics, for its error.
func stderrTail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	if len(s) > 500 {
		s = "…" + s[len(s)-500:]
	}
	return ": " + oneLine(s)
}

func readCapped(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, errors.New("the file is larger than 50 MiB")
	}
	return data, nil
}

// cappedBuffer keeps at most max bytes and notes when more came; a
// program past its cap is stopped by the write error. It holds its
// buffer rather than embedding it, so io.Copy cannot go around Write
// through bytes.Buffer's ReadFrom.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.buf.Len()+len(p) > b.max {
		b.over = true
		return 0, errors.New("output over its cap")
	}
	return b.buf.Write(p)
}

func (b *cappedBuffer) Bytes() []byte { return b.buf.Bytes() }
