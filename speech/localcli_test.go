package speech

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw-go/openclaw/gateway/config"
)

// script writes an executable shell script and returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "speak.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLocalCLISpeech(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-gateway-secret")
	tests := []struct {
		name    string
		body    string
		args    []string
		format  string
		timeout int
		env     map[string]string
		text    string
		want    string // the audio's bytes hold this
		wantNot string
		wantErr string
	}{
		{name: "writes the output file", body: `printf 'RIFF%s' "$3" > "$2"`, args: []string{"-o", "{{OutputPath}}", "{{Text}}"}, format: "wav", text: "hello", want: "RIFFhello"},
		{name: "writes into the output dir by base name", body: `printf 'ID3%s' "$2" > "$1/$3.mp3"`, args: []string{"{{OutputDir}}", "{{Text}}", "{{OutputBase}}"}, text: "hi", want: "ID3hi"},
		{name: "stdout is the audio without an output placeholder", body: `printf 'OggS%s' "$1"`, args: []string{"{{Text}}"}, format: "opus", text: "voice", want: "OggSvoice"},
		{name: "stdin carries the text without a text placeholder", body: `printf 'ID3'; cat`, text: "from stdin", want: "ID3from stdin"},
		{name: "a text that looks like an option is not one", body: `printf 'ID3[%s]' "$1"`, args: []string{"{{Text}}"}, text: "--output=/etc/passwd", want: "ID3[ --output=/etc/passwd]"},
		{name: "the gateway's secrets stay out of its environment", body: `env`, env: map[string]string{"VOICE": "alba"}, text: "x", want: "VOICE=alba", wantNot: "sk-gateway-secret"},
		{name: "a failure says why", body: `echo 'no voice installed' >&2; exit 3`, text: "x", wantErr: "no voice installed"},
		{name: "no audio is an error", body: `true`, text: "x", wantErr: "produced no audio"},
		{name: "a missing output file is an error", body: `true`, args: []string{"{{OutputPath}}"}, text: "x", wantErr: "wrote no audio"},
		{name: "too slow is stopped", body: `sleep 30`, timeout: 200, text: "x", wantErr: "did not finish in time"},
		{name: "too much output is stopped", body: `head -c 60000000 /dev/zero`, text: "x", wantErr: "more than it may"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Client{}
			p := config.TTSProvider{Command: script(t, tt.body), Args: tt.args, OutputFormat: tt.format, TimeoutMs: tt.timeout, Env: tt.env}
			a, err := c.Synthesize(context.Background(), LocalCLI, p, overrides{}, tt.text, false)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(a.Data), tt.want) || tt.wantNot != "" && strings.Contains(string(a.Data), tt.wantNot) {
				t.Fatalf("audio %q, want %q and not %q", a.Data, tt.want, tt.wantNot)
			}
			if wantFormat := map[string]string{"": "mp3"}[tt.format]; wantFormat == "" && a.Format != tt.format || wantFormat != "" && a.Format != wantFormat {
				t.Errorf("format %q, want %q", a.Format, tt.format)
			}
		})
	}
	if _, err := (&Client{}).Synthesize(context.Background(), LocalCLI, config.TTSProvider{}, overrides{}, "x", false); !errors.Is(err, ErrNoKey) {
		t.Errorf("no command: %v, want ErrNoKey", err)
	}
}

func TestLocalCommand(t *testing.T) {
	exe := script(t, "true")
	for in, want := range map[string]string{"say": "say", "espeak-ng -v en": "espeak-ng|-v|en", exe: exe} {
		if got := strings.Join(localCommand(in), "|"); got != want {
			t.Errorf("localCommand(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPersonaChoosesProvider: the persona's provider speaks, and under
// fallbackPolicy "fail" a provider it has no settings for never does.
func TestPersonaChoosesProvider(t *testing.T) {
	c := &Client{Getenv: func(string) string { return "" }}
	base := config.TTS{Provider: "openai", Providers: map[string]config.TTSProvider{
		"openai": {APIKey: config.SecretInput{Value: "sk"}}, "elevenlabs": {APIKey: config.SecretInput{Value: "el"}}}}
	tests := []struct {
		name    string
		persona config.TTSPersona
		want    string
	}{
		{"no persona", config.TTSPersona{}, "openai"},
		{"the persona's provider", config.TTSPersona{Provider: "elevenlabs"}, "elevenlabs"},
		{"fail skips an unbound provider for a bound one", config.TTSPersona{FallbackPolicy: "fail", Providers: map[string]config.TTSProvider{"elevenlabs": {}}}, "elevenlabs"},
		{"fail with no bound provider that has a key speaks none", config.TTSPersona{FallbackPolicy: "fail", Providers: map[string]config.TTSProvider{"tts-local-cli": {}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			cfg.Personas = map[string]config.TTSPersona{"p": tt.persona}
			if got := c.ActiveProvider(cfg.WithPersona("p")); got != tt.want {
				t.Fatalf("provider %q, want %q", got, tt.want)
			}
		})
	}
}
