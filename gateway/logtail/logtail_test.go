package logtail

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func ptr(v int64) *int64 { return &v }

func TestTail(t *testing.T) {
	content := "one\ntwo\nthree\nfour\npartial"
	tests := []struct {
		name       string
		p          Params
		wantLines  []string
		wantCursor int64
		wantReset  bool
		wantErr    string
	}{
		{"last lines", Params{Limit: 2}, []string{"three", "four"}, 19, false, ""},
		{"all whole lines", Params{}, []string{"one", "two", "three", "four"}, 19, false, ""},
		{"from cursor", Params{Cursor: ptr(8)}, []string{"three", "four"}, 19, false, ""},
		{"from cursor limited", Params{Cursor: ptr(0), Limit: 1}, []string{"one"}, 4, false, ""},
		{"at end", Params{Cursor: ptr(19)}, []string{}, 19, false, ""},
		{"cursor past end resets", Params{Cursor: ptr(1000)}, []string{"one", "two", "three", "four"}, 19, true, ""},
		{"maxBytes drops partial first line", Params{MaxBytes: 12}, []string{"four"}, 19, false, ""},
		{"bad limit", Params{Limit: 5001}, nil, 0, false, "limit must be"},
		{"bad cursor", Params{Cursor: ptr(-1)}, nil, 0, false, "cursor must be"},
	}
	path := filepath.Join(t.TempDir(), "gateway.log")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Tail(path, tt.p)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(res.Lines, tt.wantLines) || res.Cursor != tt.wantCursor || res.Reset != tt.wantReset {
				t.Fatalf("got lines %q cursor %d reset %v; want %q %d %v", res.Lines, res.Cursor, res.Reset, tt.wantLines, tt.wantCursor, tt.wantReset)
			}
			if res.Size != int64(len(content)) {
				t.Fatalf("size = %d", res.Size)
			}
		})
	}
}

func TestTailMissingFile(t *testing.T) {
	res, err := Tail(filepath.Join(t.TempDir(), "none.log"), Params{})
	if err != nil || len(res.Lines) != 0 || res.Size != 0 {
		t.Fatalf("missing file: %+v, %v", res, err)
	}
}
