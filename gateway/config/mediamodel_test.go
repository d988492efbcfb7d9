package config

import (
	"strings"
	"testing"
)

func TestMediaModelRef(t *testing.T) {
	cases := []struct {
		name, src string
		want      MediaModelRef
		wantErr   string
	}{
		{"unset", `{}`, MediaModelRef{}, ""},
		{"short form", `{agents:{defaults:{imageModel:"vision/see-1"}}}`, MediaModelRef{ModelRef: ModelRef{Primary: "vision/see-1"}}, ""},
		{"object with timeout", `{agents:{defaults:{imageModel:{primary:"a/b", fallbacks:["c/d"], timeoutMs:30000}}}}`,
			MediaModelRef{ModelRef: ModelRef{Primary: "a/b", Fallbacks: []string{"c/d"}}, TimeoutMs: 30000}, ""},
		{"zero timeout", `{agents:{defaults:{imageModel:{primary:"a/b", timeoutMs:0}}}}`, MediaModelRef{}, "agents.defaults.imageModel.timeoutMs: must be at least 1, got 0"},
		{"timeout not a number", `{agents:{defaults:{imageModel:{primary:"a/b", timeoutMs:"5s"}}}}`, MediaModelRef{}, "agents.defaults.imageModel.timeoutMs"},
		{"bad ref", `{agents:{defaults:{imageModel:"gpt-4o"}}}`, MediaModelRef{}, `agents.defaults.imageModel: "gpt-4o" is not a model reference`},
		{"unknown key", `{agents:{defaults:{imageModel:{primary:"a/b", detail:"high"}}}}`, MediaModelRef{}, "agents.defaults.imageModel.detail: unknown key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snap, err := Parse("openclaw.json", []byte(tc.src), LoadOptions{Getenv: func(string) string { return "" }})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(snap.Warnings) > 0 {
				t.Fatalf("warnings: %v", snap.Warnings)
			}
			got := snap.Config.Agents.Defaults.ImageModel
			if got.Primary != tc.want.Primary || strings.Join(got.Fallbacks, ",") != strings.Join(tc.want.Fallbacks, ",") || got.TimeoutMs != tc.want.TimeoutMs {
				t.Fatalf("imageModel = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestMediaModelRefMarshal(t *testing.T) {
	cases := []struct {
		name string
		ref  MediaModelRef
		want string
	}{
		{"short", MediaModelRef{ModelRef: ModelRef{Primary: "a/b"}}, `"a/b"`},
		{"timeout", MediaModelRef{ModelRef: ModelRef{Primary: "a/b"}, TimeoutMs: 500}, `{"primary":"a/b","timeoutMs":500}`},
		{"fallbacks", MediaModelRef{ModelRef: ModelRef{Primary: "a/b", Fallbacks: []string{"c/d"}}}, `{"fallbacks":["c/d"],"primary":"a/b"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.ref.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(strings.Fields(string(b)), ""); got != tc.want {
				t.Fatalf("MarshalJSON = %s, want %s", got, tc.want)
			}
		})
	}
}
