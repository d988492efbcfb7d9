package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads 30s, 10m, 1h30m, 2d and 1w (days and weeks are
// what people write for schedules; Go's parser lacks them).
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty duration")
	}
	var total time.Duration
	rest := s
	for rest != "" {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		j := i
		for j < len(rest) && (rest[j] < '0' || rest[j] > '9') && rest[j] != '.' {
			j++
		}
		if i == 0 || j == i {
			return 0, fmt.Errorf("duration %q: want a number and a unit, like 30s, 10m, 1h30m or 2d", s)
		}
		n, err := strconv.ParseFloat(rest[:i], 64)
		if err != nil {
			return 0, fmt.Errorf("duration %q: %w", s, err)
		}
		var unit time.Duration
		switch strings.ToLower(rest[i:j]) {
		case "ms":
			unit = time.Millisecond
		case "s", "sec", "secs":
			unit = time.Second
		case "m", "min", "mins":
			unit = time.Minute
		case "h", "hr", "hrs":
			unit = time.Hour
		case "d", "day", "days":
			unit = 24 * time.Hour
		case "w", "week", "weeks":
			unit = 7 * 24 * time.Hour
		default:
			return 0, fmt.Errorf("duration %q: unknown unit %q (ms, s, m, h, d, w)", s, rest[i:j])
		}
		total += time.Duration(n * float64(unit))
		rest = rest[j:]
	}
	return total, nil
}
