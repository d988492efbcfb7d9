package channels

import (
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strings"
)

// CheckedAttachment is an outbound file that exists, is a regular file
// and fits the cap.
type CheckedAttachment struct {
	Path string
	Name string // what the chat shows
	MIME string // from Attachment.MIME, else the name's extension; may be ""
	Size int64
}

// CheckAttachment checks an outbound attachment against maxMb before any
// upload, so a file over the cap refuses the whole message with an error
// naming it. channel prefixes the errors; tooLarge is the adapter's own
// sentinel, wrapped for errors.Is.
func CheckAttachment(channel string, at Attachment, maxMb int, tooLarge error) (CheckedAttachment, error) {
	name := at.Name
	if name == "" {
		name = filepath.Base(at.Path)
	}
	st, err := os.Stat(at.Path)
	if err != nil {
		return CheckedAttachment{}, fmt.Errorf("%s: attachment %q: %w", channel, name, err)
	}
	if !st.Mode().IsRegular() {
		return CheckedAttachment{}, fmt.Errorf("%s: attachment %q is not a regular file", channel, name)
	}
	if limit := int64(maxMb) << 20; st.Size() > limit {
		return CheckedAttachment{}, fmt.Errorf("%s: attachment %q is %.1f MB, over the %d MB limit (mediaMaxMb): %w",
			channel, name, float64(st.Size())/(1<<20), maxMb, tooLarge)
	}
	mt := at.MIME
	if mt == "" {
		mt = mime.TypeByExtension(strings.ToLower(filepath.Ext(name)))
	}
	return CheckedAttachment{Path: at.Path, Name: name, MIME: mt, Size: st.Size()}, nil
}
