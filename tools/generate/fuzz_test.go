package generate

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openclaw-go/openclaw/tools/generate/generatetest"
)

// errorBodies seed the fuzzers: the providers' real error shapes.
var errorBodies = []string{
	`{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}`,
	`{"error":{"message":"Incorrect API key provided: ` + generatetest.Key + `","code":"invalid_api_key"}}`,
	`{"error":"You do not have enough credits to run this task."}`,
	`{"message":"Insufficient credits"}`,
	`{"base_resp":{"status_code":1008,"status_msg":"insufficient balance"}}`,
	"<html>502 Bad Gateway</html>\nmore",
	`{"error":{"message":"` + strings.Repeat("é", 400) + `"}}`,
	``, `null`, `{"error":7}`,
}

// FuzzAPIError: any body from a provider gives an error without a panic,
// without the key, and with a message of bounded size.
func FuzzAPIError(f *testing.F) {
	for i, b := range errorBodies {
		f.Add(400+i, b)
	}
	f.Fuzz(func(t *testing.T, status int, body string) {
		err := apiError("p", status, []byte(body), generatetest.Key)
		msg := err.Error()
		if strings.Contains(msg, generatetest.Key) {
			t.Fatalf("key in %q", msg)
		}
		if len(msg) > maxErrorText+400 {
			t.Fatalf("message of %d bytes", len(msg))
		}
		if utf8.ValidString(body) && !utf8.ValidString(msg) {
			t.Fatalf("message cut mid-rune: %q", msg)
		}
	})
}

// FuzzTaskAnswers: any task answer from OpenAI, Runway or Meshy reads as a state
// that is done, failed or pending, with a fraction in range.
func FuzzTaskAnswers(f *testing.F) {
	for _, s := range []string{
		`{"id":"t","status":"RUNNING","progress":0.4}`,
		`{"id":"t","status":"SUCCEEDED","output":["https://cdn.example/v.mp4"]}`,
		`{"id":"t","status":"FAILED","failure":"bad","failureCode":"X"}`,
		`{"id":"t","status":"IN_PROGRESS","progress":140}`,
		`{"status":"SUCCEEDED","model_urls":{"glb":"https://x/m.glb"}}`,
		`{"status":"succeeded","progress":-3}`,
		`{"id":"video_1","object":"video","status":"in_progress","progress":33}`,
		`{"id":"video_1","status":"failed","error":{"code":"moderation_blocked","message":"blocked"}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var r runwayTask
		if json.Unmarshal([]byte(body), &r) == nil {
			check(t, runwayState(r))
		}
		var m meshyTask
		if json.Unmarshal([]byte(body), &m) == nil {
			check(t, meshyState(m, "glb"))
		}
		var v soraVideo
		if json.Unmarshal([]byte(body), &v) == nil {
			check(t, soraState(v))
		}
	})
}

func check(t *testing.T, st jobState) {
	t.Helper()
	if st.done && st.failed != nil {
		t.Fatalf("both done and failed: %+v", st)
	}
	if st.fraction > 1 || (st.fraction < 0 && st.fraction != -1) {
		t.Fatalf("fraction %v", st.fraction)
	}
}

// FuzzSize: any size or aspect ratio hint picks a size OpenAI takes, or none.
func FuzzSize(f *testing.F) {
	for _, c := range [][2]string{{"1024x1024", ""}, {"", "16:9"}, {"", "19.5:9"}, {"4000x4000", ""}, {"auto", "1:1"}, {"", "0:0"}, {"", "1e308:1"}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, size, aspect string) {
		got, _ := openAISize(size, aspect)
		if got != "" && got != "auto" && !validDims(got) {
			t.Fatalf("size %q from %q %q", got, size, aspect)
		}
	})
}
