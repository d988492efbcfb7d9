package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The guided commands (onboard, configure, channels add) ask plain line
// questions: one question, one answer line. That keeps them scriptable
// (answers piped on stdin drive them in tests) and needs no terminal
// library; only secrets use the terminal itself, to turn echo off.

// interactiveStdin says whether r is a person at a terminal, which is
// when a command may ask instead of failing on what is missing. Tests
// replace it to drive the questions through a plain reader.
var interactiveStdin = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && isTerminal(f)
}

// errNoAnswer is stdin ending before a question was answered.
var errNoAnswer = errors.New("no answer: input ended")

// prompter asks questions on out (stderr, so that stdout stays the
// command's result) and reads the answers from in.
type prompter struct {
	in  *bufio.Reader
	out io.Writer
	// term is stdin when it is a terminal: secrets are read with echo off.
	term *os.File
	// tty draws progress as a spinner line rather than plain lines.
	tty bool
}

func newPrompter(a *app) *prompter {
	p := &prompter{in: bufio.NewReader(a.stdin), out: a.stderr}
	if f, ok := a.stdin.(*os.File); ok && isTerminal(f) {
		p.term = f
	}
	if f, ok := a.stderr.(*os.File); ok && isTerminal(f) {
		p.tty = true
	}
	return p
}

// line reads one answer line without its line ending.
func (p *prompter) line() (string, error) {
	s, err := p.in.ReadString('\n')
	if err != nil && (!errors.Is(err, io.EOF) || s == "") {
		if errors.Is(err, io.EOF) {
			return "", errNoAnswer
		}
		return "", fmt.Errorf("read answer: %w", err)
	}
	return strings.TrimRight(s, "\r\n"), nil
}

// ask asks for a value; an empty answer takes def.
func (p *prompter) ask(label, def string) (string, error) {
	return p.askValid(label, def, nil)
}

// askValid asks until check accepts the answer (nil check: any answer).
func (p *prompter) askValid(label, def string, check func(string) error) (string, error) {
	for {
		if def != "" {
			fmt.Fprintf(p.out, "%s [%s]: ", label, def)
		} else {
			fmt.Fprintf(p.out, "%s: ", label)
		}
		s, err := p.line()
		if err != nil {
			return "", fmt.Errorf("%s: %w", label, err)
		}
		if s = strings.TrimSpace(s); s == "" {
			s = def
		}
		if check == nil {
			return s, nil
		}
		if err := check(s); err != nil {
			fmt.Fprintf(p.out, "  %v\n", err)
			continue
		}
		return s, nil
	}
}

// secret asks for a secret with echo off on a terminal. The answer is
// never written anywhere; an empty answer is returned as "".
func (p *prompter) secret(label string) (string, error) {
	fmt.Fprintf(p.out, "%s: ", label)
	var s string
	var err error
	if p.term != nil {
		s, err = readNoEcho(p.term, p.line)
		fmt.Fprintln(p.out)
	} else {
		s, err = p.line()
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", label, err)
	}
	return strings.TrimSpace(s), nil
}

// choice is one option of choose.
type choice struct {
	value, label string
}

// choose asks for one of options, by number or by value; an empty
// answer takes def.
func (p *prompter) choose(label string, options []choice, def string) (string, error) {
	fmt.Fprintf(p.out, "%s\n", label)
	defNum := ""
	for i, o := range options {
		mark := " "
		if o.value == def {
			mark, defNum = "*", strconv.Itoa(i+1)
		}
		fmt.Fprintf(p.out, " %s %d) %s\n", mark, i+1, o.label)
	}
	answer, err := p.askValid("Choose", defNum, func(s string) error {
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(options) {
			return nil
		}
		for _, o := range options {
			if strings.EqualFold(s, o.value) {
				return nil
			}
		}
		return fmt.Errorf("answer a number from 1 to %d", len(options))
	})
	if err != nil {
		return "", err
	}
	if n, err := strconv.Atoi(answer); err == nil {
		return options[n-1].value, nil
	}
	for _, o := range options {
		if strings.EqualFold(answer, o.value) {
			return o.value, nil
		}
	}
	return def, nil
}

// confirm asks a yes/no question.
func (p *prompter) confirm(label string, def bool) (bool, error) {
	hint := map[bool]string{true: "Y/n", false: "y/N"}[def]
	for {
		fmt.Fprintf(p.out, "%s [%s]: ", label, hint)
		s, err := p.line()
		if err != nil {
			return false, fmt.Errorf("%s: %w", label, err)
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "":
			return def, nil
		case "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		}
		fmt.Fprintln(p.out, "  answer y or n")
	}
}

// progress runs fn under a label: a spinner on a terminal, a plain
// "label... ok" line otherwise, so a check that takes seconds shows it is
// working.
func (p *prompter) progress(label string, fn func() error) error {
	if !p.tty {
		fmt.Fprintf(p.out, "%s... ", label)
		err := fn()
		fmt.Fprintln(p.out, map[bool]string{true: "ok", false: "failed"}[err == nil])
		return err
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		frames := `|/-\`
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			fmt.Fprintf(p.out, "\r%c %s", frames[i%len(frames)], label)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	err := fn()
	close(done)
	wg.Wait()
	fmt.Fprintf(p.out, "\r%s %s\n", map[bool]string{true: "ok", false: "failed"}[err == nil], label)
	return err
}
