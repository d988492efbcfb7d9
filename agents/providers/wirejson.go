package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
)

// Streamed chunks come from many servers that claim one protocol, and not
// all of them type every field as the reference API does. The types below
// read what a field plainly means instead of failing the whole chunk, so
// one odd field does not end a completion.

// flexText is a text field that a server may send as a string, null, a
// list of content parts (the text of its "text" parts is kept) or, for
// tool arguments, a JSON object (kept as JSON text).
type flexText string

func (t *flexText) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || string(b) == "null":
		*t = ""
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = flexText(s)
	case b[0] == '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(b, &parts); err != nil {
			*t = ""
			return nil
		}
		var sb strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				sb.WriteString(p.Text)
			}
		}
		*t = flexText(sb.String())
	case b[0] == '{':
		*t = flexText(b)
	default:
		*t = ""
	}
	return nil
}

// count is a token count or index: a JSON number (a fraction is cut),
// and 0 for null or anything that is not a number.
type count int64

func (c *count) UnmarshalJSON(b []byte) error {
	var f float64
	if json.Unmarshal(b, &f) != nil || f != f || f > 1<<53 || f < -(1<<53) {
		*c = 0
		return nil
	}
	*c = count(f)
	return nil
}

// endpointURL resolves rel against base the way the vendors' own clients
// do: base's path is a directory (a missing trailing slash is added), and
// its query is not kept. A base that does not parse is a *buildError that
// does not quote it: some deployments put credentials in the URL.
func endpointURL(base, rel string) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", badURL(err)
	}
	if u.Path != "" && !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	return u.ResolveReference(&url.URL{Path: rel}).String(), nil
}

// badURL is a URL that does not parse, said without the URL.
func badURL(err error) *buildError {
	msg := err.Error()
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		msg = ue.Err.Error()
	}
	return &buildError{kind: KindNotConfigured, msg: "bad base URL: " + msg, err: err}
}
