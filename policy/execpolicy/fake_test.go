package execpolicy

import (
	"errors"
	"io/fs"
	"path"
	"strings"
)

// fakeFS is a small file system of executables and symbolic links, so the
// analyser's resolution can be tested without touching the host.
type fakeFS struct {
	files map[string]bool   // executable files
	links map[string]string // symlink path → target (absolute)
	path  []string          // PATH
}

func newFakeFS() *fakeFS {
	f := &fakeFS{
		files: map[string]bool{},
		links: map[string]string{
			"/bin":                     "/usr/bin", // merged /usr
			"/usr/local/bin/safe":      "/usr/bin/rm",
			"/usr/local/bin/ls":        "/usr/bin/ls",
			"/usr/bin/python3":         "python3.12",
			"/usr/bin/sh":              "dash",
			"/usr/bin/awk":             "/etc/alternatives/awk",
			"/etc/alternatives/awk":    "/usr/bin/mawk",
			"/work/tools/ls":           "/usr/bin/bash",
			"/usr/local/bin/busy-head": "/usr/bin/busybox",
		},
		path: []string{"/usr/local/bin", "/usr/bin", "/bin"},
	}
	for _, n := range strings.Fields(`ls cat rm env bash dash zsh fish sudo doas su xargs find git mawk gawk
		python3.12 perl node ruby php head tail sort cut uniq tr wc grep sed nice nohup timeout stdbuf time
		busybox echo printf id curl wget chmod cp mv mkdir touch date true false kill test make go npm
		setsid ionice taskset watch flock chroot ssh scp rsync tee less vim xxd base64 jq ps whoami`) {
		f.files["/usr/bin/"+n] = true
	}
	f.files["/work/bin/build.sh"] = true
	f.files["/work/bin/head"] = true
	f.files["/opt/tool/bin/tool"] = true
	return f
}

// evalSymlinks follows links component by component like
// filepath.EvalSymlinks.
func (f *fakeFS) evalSymlinks(p string) (string, error) {
	if !path.IsAbs(p) {
		return "", errors.New("relative")
	}
	parts := strings.Split(p, "/")[1:]
	cur := "/"
	for hops := 0; len(parts) > 0; {
		el := parts[0]
		parts = parts[1:]
		switch el {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, el)
		if t, ok := f.links[next]; ok {
			if hops++; hops > 40 {
				return "", errors.New("too many links")
			}
			if !path.IsAbs(t) {
				t = path.Join(cur, t)
			}
			parts = append(strings.Split(t, "/")[1:], parts...)
			cur = "/"
			continue
		}
		cur = next
	}
	if !f.files[cur] && !f.isDir(cur) {
		return "", fs.ErrNotExist
	}
	return cur, nil
}

func (f *fakeFS) isDir(p string) bool {
	for file := range f.files {
		if strings.HasPrefix(file, p+"/") {
			return true
		}
	}
	return false
}

func (f *fakeFS) lookPath(name string) (string, error) {
	if strings.Contains(name, "/") {
		r, err := f.evalSymlinks(name)
		if err != nil || !f.files[r] {
			return "", fs.ErrNotExist
		}
		return name, nil
	}
	for _, dir := range f.path {
		p := dir + "/" + name
		if r, err := f.evalSymlinks(p); err == nil && f.files[r] {
			return p, nil
		}
	}
	return "", errors.New("executable file not found in $PATH")
}

func (f *fakeFS) analyzer() Analyzer {
	return Analyzer{LookPath: f.lookPath, EvalSymlinks: f.evalSymlinks, Dir: "/work"}
}
