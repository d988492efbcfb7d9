package execpolicy

import (
	"fmt"
	"strings"
)

// optArity says whether an option takes a value.
type optArity uint8

const (
	argNone     optArity = iota
	argRequired          // --opt=v, --opt v, -ov, -o v
	argOptional          // only attached: --opt=v, -ov
)

// option describes one option of a wrapper program, GNU style.
type option struct {
	short byte   // 0 if the option has no short form
	long  string // without the leading "--"; "" if none
	arity optArity
}

func (o option) name() string {
	if o.long != "" {
		return o.long
	}
	return string(o.short)
}

// optSpec is the option table of one program.
type optSpec struct {
	opts []option
	// permute keeps parsing options after operands, as GNU getopt does by
	// default; wrappers that run a command stop at the first operand instead.
	permute bool
}

// parsedOpt is one option found on a command line.
type parsedOpt struct {
	name  string // the long name when there is one, else the short letter
	value arg
	has   bool
}

// parse reads options from args the way GNU getopt_long does, resolving
// unique abbreviations of long options, and returns them with the operands.
// It fails on unknown or ambiguous options and on any word that is not a
// fixed string while options are still being read, option values included:
// an unquoted expansion may split into several words and move the command.
func (s optSpec) parse(args []arg) (opts parsedOptList, operands []arg, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.lit {
			return nil, nil, fmt.Errorf("word %s in option position is not a fixed string", a.text)
		}
		v := a.val
		switch {
		case v == "--":
			return opts, append(operands, args[i+1:]...), nil
		case v == "-" || !strings.HasPrefix(v, "-"):
			if !s.permute {
				return opts, append(operands, args[i:]...), nil
			}
			operands = append(operands, a)
			continue
		case strings.HasPrefix(v, "--"):
			name, val, hasVal := strings.Cut(v[2:], "=")
			o, err := s.long(name)
			if err != nil {
				return nil, nil, err
			}
			p := parsedOpt{name: o.name()}
			switch o.arity {
			case argNone:
				if hasVal {
					return nil, nil, fmt.Errorf("option --%s takes no value", o.long)
				}
			case argOptional:
				if hasVal {
					p.value, p.has = literal(val), true
				}
			case argRequired:
				switch {
				case hasVal:
					p.value, p.has = literal(val), true
				case i+1 < len(args):
					i++
					if !args[i].lit {
						return nil, nil, fmt.Errorf("value %s of --%s is not a fixed string and may split into several words", args[i].text, o.long)
					}
					p.value, p.has = args[i], true
				default:
					return nil, nil, fmt.Errorf("option --%s needs a value", o.long)
				}
			}
			opts = append(opts, p)
		default:
		cluster:
			for j := 1; j < len(v); j++ {
				o, ok := s.short(v[j])
				if !ok {
					return nil, nil, fmt.Errorf("unknown option -%c", v[j])
				}
				p := parsedOpt{name: o.name()}
				rest := v[j+1:]
				if o.arity == argNone {
					opts = append(opts, p)
					continue
				}
				switch {
				case rest != "":
					p.value, p.has = literal(rest), true
				case o.arity == argRequired && i+1 < len(args):
					i++
					if !args[i].lit {
						return nil, nil, fmt.Errorf("value %s of -%c is not a fixed string and may split into several words", args[i].text, v[j])
					}
					p.value, p.has = args[i], true
				case o.arity == argRequired:
					return nil, nil, fmt.Errorf("option -%c needs a value", v[j])
				}
				opts = append(opts, p)
				break cluster
			}
		}
	}
	return opts, operands, nil
}

func (s optSpec) short(c byte) (option, bool) {
	for _, o := range s.opts {
		if o.short != 0 && o.short == c {
			return o, true
		}
	}
	return option{}, false
}

// long finds the option named name or, failing that, the one option whose
// name starts with name: GNU tools accept any unambiguous abbreviation, which
// is how "sort --compress-prog" reached "--compress-program".
func (s optSpec) long(name string) (option, error) {
	var found []option
	for _, o := range s.opts {
		if o.long == "" {
			continue
		}
		if o.long == name {
			return o, nil
		}
		if name != "" && strings.HasPrefix(o.long, name) {
			found = append(found, o)
		}
	}
	switch len(found) {
	case 0:
		return option{}, fmt.Errorf("unknown option --%s", name)
	case 1:
		return found[0], nil
	}
	return option{}, fmt.Errorf("ambiguous option --%s", name)
}

// parsedOptList is the options found on one command line, in order.
type parsedOptList []parsedOpt

// has reports whether the option with the given canonical name was given.
func (opts parsedOptList) has(name string) bool {
	for _, o := range opts {
		if o.name == name {
			return true
		}
	}
	return false
}

// get returns the value of the last occurrence of the named option.
func (opts parsedOptList) get(name string) (arg, bool) {
	for i := len(opts) - 1; i >= 0; i-- {
		if opts[i].name == name {
			return opts[i].value, true
		}
	}
	return arg{}, false
}
