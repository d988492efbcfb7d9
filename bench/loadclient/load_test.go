package main

import (
	"testing"
	"time"
)

func TestSummarise(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, n := range v {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // 100..1, unsorted
	}
	tests := []struct {
		name string
		in   []time.Duration
		want stats
	}{
		{"empty", nil, stats{}},
		{"one", ms(7), stats{N: 1, MeanMs: 7, P50Ms: 7, P99Ms: 7, MaxMs: 7}},
		{"two", ms(3, 1), stats{N: 2, MeanMs: 2, P50Ms: 1, P99Ms: 3, MaxMs: 3}},
		{"hundred", ms(hundred...), stats{N: 100, MeanMs: 50.5, P50Ms: 50, P99Ms: 99, MaxMs: 100}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := summarise(tc.in); got != tc.want {
				t.Errorf("summarise = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr bool
	}{
		{"defaults", nil, false},
		{"all", []string{"-url", "ws://127.0.0.1:1", "-token", "t", "-conns", "8", "-requests", "10", "-params", `{"a":1}`}, false},
		{"bad params", []string{"-params", "{"}, true},
		{"zero conns", []string{"-conns", "0"}, true},
		{"flood", []string{"-flood", "1000", "-flood-ramp", "3s", "-connect-within", "20s"}, false},
		{"negative flood", []string{"-flood", "-1"}, true},
		{"flood beyond bounds", []string{"-flood", "1000000"}, true},
		{"stray argument", []string{"extra"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseFlags(tc.args)
			if (err != nil) != tc.wantErr {
				t.Errorf("parseFlags(%q) error = %v, want error %v", tc.args, err, tc.wantErr)
			}
		})
	}
}
