package skills

import (
	"slices"
	"strings"
	"testing"
)

var parseCases = []struct {
	name, folder, in string
	want             Skill
	err              string // substring; "" means success
}{
	{
		name: "minimal", folder: "x",
		in:   "---\nname: demo\ndescription: Does things.\n---\n# Body\n",
		want: Skill{Name: "demo", Description: "Does things.", Body: "# Body\n"},
	},
	{
		name: "name from folder", folder: "from-folder",
		in:   "---\ndescription: d\n---\nb",
		want: Skill{Name: "from-folder", Description: "d", Body: "b"},
	},
	{
		name: "crlf and bom", folder: "x",
		in:   "\ufeff---\r\nname: demo\r\ndescription: d\r\n---\r\nbody\r\n",
		want: Skill{Name: "demo", Description: "d", Body: "body\r\n"},
	},
	{
		name: "openclaw metadata as inline JSON", folder: "x",
		in: "---\nname: gh\ndescription: d\nmetadata: {\"openclaw\": {\"requires\": {\"bins\": [\"gh\"], \"env\": [\"GH_TOKEN\"]}, \"os\": [\"linux\", \"darwin\"]}}\n---\n",
		want: Skill{Name: "gh", Description: "d", Requires: Requires{
			Bins: []string{"gh"}, Env: []string{"GH_TOKEN"}, OS: []string{"linux", "darwin"}}},
	},
	{
		name: "top-level requires with scalars", folder: "x",
		in:   "---\nname: jq\ndescription: d\nrequires:\n  bins: jq\n  env: TOKEN\n  os: linux\n---\n",
		want: Skill{Name: "jq", Description: "d", Requires: Requires{Bins: []string{"jq"}, Env: []string{"TOKEN"}, OS: []string{"linux"}}},
	},
	{
		name: "requirements merged without duplicates", folder: "x",
		in:   "---\nname: m\ndescription: d\nrequires: {bins: [jq, curl]}\nmetadata: {openclaw: {requires: {bins: [jq]}}}\n---\n",
		want: Skill{Name: "m", Description: "d", Requires: Requires{Bins: []string{"jq", "curl"}}},
	},
	{
		name: "unknown keys ignored", folder: "x",
		in:   "---\nname: u\ndescription: d\nhomepage: https://example.com\nlicense: MIT\n---\n",
		want: Skill{Name: "u", Description: "d"},
	},
	{name: "no front matter", folder: "x", in: "# Title\n", err: "no front matter"},
	{name: "unclosed", folder: "x", in: "---\nname: a\ndescription: d\n", err: "not closed"},
	{name: "bad yaml", folder: "x", in: "---\nname: [a\n---\n", err: "front matter"},
	{name: "bad name", folder: "x", in: "---\nname: bad name!\ndescription: d\n---\n", err: "letters, digits and hyphens"},
	{name: "bad folder name", folder: "under_score", in: "---\ndescription: d\n---\n", err: "letters, digits and hyphens"},
	{name: "long name", folder: "x", in: "---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\n", err: "longer than 64"},
	{name: "no description", folder: "x", in: "---\nname: a\n---\n", err: "no description"},
	{name: "bins not strings", folder: "x", in: "---\nname: a\ndescription: d\nrequires: {bins: {a: b}}\n---\n", err: "expected a string"},
	{name: "oversized", folder: "x", in: "---\nname: a\ndescription: d\n---\n" + strings.Repeat("x", MaxFileBytes), err: "larger than 256 KiB"},
	{name: "huge front matter", folder: "x", in: "---\nname: a\ndescription: d\nx: " + strings.Repeat("y", 33<<10) + "\n---\n", err: "front matter is larger"},
	{name: "not utf-8", folder: "x", in: "---\nname: a\ndescription: \xff\n---\n", err: "not UTF-8"},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.in), tc.folder)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tc.want.Name || got.Description != tc.want.Description || got.Body != tc.want.Body ||
				!slices.Equal(got.Requires.Bins, tc.want.Requires.Bins) || !slices.Equal(got.Requires.Env, tc.want.Requires.Env) ||
				!slices.Equal(got.Requires.OS, tc.want.Requires.OS) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		if len(tc.in) < 4096 {
			f.Add([]byte(tc.in), tc.folder)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, folder string) {
		s, err := Parse(data, folder)
		if err != nil {
			return
		}
		if ValidName(s.Name) != nil {
			t.Errorf("accepted invalid name %q", s.Name)
		}
		if s.Description == "" || strings.ContainsAny(s.Description, "\n\r\t") {
			t.Errorf("description %q: empty or not one line", s.Description)
		}
		if len(s.Body) > len(data) {
			t.Errorf("body longer than input")
		}
	})
}
