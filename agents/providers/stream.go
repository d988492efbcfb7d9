package providers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxEventBytes bounds one server-sent event: its data lines joined, and
// any single line, comments included. The largest real event is a tool
// call's arguments sent whole (a file a model writes), well below this; a
// server that sends more is broken or hostile, and the stream stops.
const maxEventBytes = 8 << 20

// maxLineBytes bounds one line: an event's worth of data and its field
// name.
const maxLineBytes = maxEventBytes + 64

// userAgent goes with every model request that does not set its own.
const userAgent = "openclaw-go"

// errEventTooLarge ends a stream whose event passes maxEventBytes.
var errEventTooLarge = fmt.Errorf("server-sent event larger than %d MiB", maxEventBytes>>20)

// errCrossOriginRedirect refuses a redirect to another scheme, host or
// port: requests carry the API key in a header, and the key is the
// configured server's alone.
var errCrossOriginRedirect = errors.New("redirect to another origin refused")

// buildError is a request that could not be built: a value JSON cannot
// hold, or a base URL that does not parse. Trying again cannot help.
type buildError struct {
	kind ErrorKind
	msg  string
	err  error
}

func (e *buildError) Error() string { return e.msg }
func (e *buildError) Unwrap() error { return e.err }

// statusError is a non-2xx answer: its status, headers and the start of
// its body, which classify reads.
type statusError struct {
	status int
	header http.Header
	body   []byte
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d", e.status) }

// postStream sends body as JSON to url with header and returns the
// response of a 2xx answer; the caller reads and closes its body. Any
// other answer is read (up to maxErrorBody), closed and returned as a
// *statusError. Redirects stay on the URL's origin.
func postStream(ctx context.Context, client *http.Client, url string, header http.Header, body any) (*http.Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, &buildError{kind: KindBadRequest, msg: "build request: " + err.Error(), err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return nil, badURL(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", userAgent)
	}

	res, err := sameOrigin(client).Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode/100 != 2 {
		body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		_ = res.Body.Close()
		return nil, &statusError{status: res.StatusCode, header: res.Header, body: body}
	}
	return res, nil
}

// sameOrigin is client with redirects kept to the request's origin. The
// client is copied, not changed: it may be shared.
func sameOrigin(client *http.Client) *http.Client {
	c := *client
	next := client.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		from := via[0].URL
		if !strings.EqualFold(req.URL.Scheme, from.Scheme) || !strings.EqualFold(req.URL.Host, from.Host) {
			return errCrossOriginRedirect
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// sseEvent is one event of a text/event-stream.
type sseEvent struct {
	// Name is the event field ("message_start", "error"); "" when the
	// event had none.
	Name string
	// Data is the event's data lines joined with "\n". It is valid until
	// the next call of sseReader.Next.
	Data []byte
}

// sseReader reads server-sent events as the HTML standard defines them:
// lines end in CRLF, LF or CR; a leading byte-order mark is dropped; lines
// starting with ':' are comments; "data" lines accumulate and a blank line
// dispatches them; an event cut off by the end of the stream is dropped.
// id and retry fields are ignored: a completion is never resumed.
type sseReader struct {
	r      *bufio.Reader
	line   []byte
	data   []byte
	name   string
	seen   bool // a data field arrived since the last dispatch
	lineNo int  // lines read, for errors
	skipLF bool // the last line ended in CR: an LF next belongs to it
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next event; io.EOF when the stream ended cleanly (an
// unfinished event is dropped), errEventTooLarge (wrapped) for an event
// past maxEventBytes, or the read error.
func (s *sseReader) Next() (sseEvent, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if s.seen {
				ev := sseEvent{Name: s.name, Data: s.data}
				s.name, s.data, s.seen = "", s.data[:0], false
				return ev, nil
			}
			s.name = ""
			continue
		}
		if line[0] == ':' {
			continue // a comment: keep-alives, OpenRouter's "PROCESSING"
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value, _ = bytes.CutPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			s.name = string(value)
		case "data":
			if s.seen {
				s.data = append(s.data, '\n')
			}
			if len(s.data)+len(value) > maxEventBytes {
				return sseEvent{}, fmt.Errorf("line %d: %w", s.lineNo, errEventTooLarge)
			}
			s.data = append(s.data, value...)
			s.seen = true
		}
	}
}

// readLine returns the next line without its ending, valid until the
// next call. A line cut off by the end of the stream is not returned:
// it could only belong to an event that is never dispatched.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		n := max(s.r.Buffered(), 1)
		buf, err := s.r.Peek(n)
		if len(buf) == 0 {
			if err == nil {
				err = io.ErrNoProgress
			}
			return nil, err
		}
		if s.skipLF {
			s.skipLF = false
			if buf[0] == '\n' {
				_, _ = s.r.Discard(1)
				continue
			}
		}
		end := bytes.IndexAny(buf, "\r\n")
		chunk := buf
		if end >= 0 {
			chunk = buf[:end]
		}
		if len(s.line)+len(chunk) > maxLineBytes {
			return nil, fmt.Errorf("line %d: %w", s.lineNo+1, errEventTooLarge)
		}
		s.line = append(s.line, chunk...)
		if end < 0 {
			_, _ = s.r.Discard(len(buf))
			continue
		}
		s.skipLF = buf[end] == '\r'
		_, _ = s.r.Discard(end + 1)
		s.lineNo++
		if s.lineNo == 1 {
			s.line = bytes.TrimPrefix(s.line, []byte("\xef\xbb\xbf"))
		}
		return s.line, nil
	}
}
