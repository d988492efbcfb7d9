package config

import "errors"

// ParseObject parses a JSON5 object that is not a whole config file, such
// as the merge patch of config.patch, into generic JSON values. Errors say
// where in src the trouble is.
func ParseObject(src []byte) (map[string]any, error) {
	p, issue := parseJSON5(&srcFile{name: "patch", src: src})
	if issue != nil {
		return nil, errors.New(issue.String())
	}
	var issues issueList
	v := p.nodes(&issues).toAny()
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("patch must be a JSON5 object")
	}
	return m, nil
}
