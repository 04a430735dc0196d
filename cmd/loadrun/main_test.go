package main

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestRunInProcess(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), []string{"--workers", "2", "--requests", "40", "--duration", "30s"}, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, ep := range []string{"generate", "get"} {
		// endpoint, requests > 0, errors 0
		m := regexp.MustCompile(`(?m)^\s*` + ep + `\s+([1-9][0-9]*)\s+0\s+[0-9.]+\s+\S+\s+\S+`).FindStringSubmatch(out.String())
		if m == nil {
			t.Errorf("no clean %s row in:\n%s", ep, out.String())
			continue
		}
		n, _ := strconv.Atoi(m[1])
		total += n
	}
	// Exactly the requests of the timed run: the warm-up is not counted.
	if total != 40 {
		t.Errorf("%d requests reported, want 40:\n%s", total, out.String())
	}
}

func TestRunRefuses(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--url", "http://example.com:8080", "--key", "k"}, "only loopback addresses are allowed"},
		{[]string{"--url", "http://10.0.0.1:8080", "--key", "k"}, "only loopback addresses are allowed"},
		{[]string{"--url", "http://127.0.0.1:8080"}, "--url needs --key"},
		{[]string{"--duration", "1h"}, "a duration up to 1m0s"},
		{[]string{"--requests", "1000000"}, "1-100000 requests"},
		{[]string{"--workers", "0"}, "want 2-64 workers"},
	} {
		if err := run(context.Background(), tt.args, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run(%q) = %v, want an error saying %q", tt.args, err, tt.want)
		}
	}
}

func TestRunCompare(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), []string{"--compare", "--workers", "4", "--requests", "60", "--duration", "30s"}, &out, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range []string{"trivial", "generate"} {
		if !regexp.MustCompile(`(?m)^\s*` + ep + `\s+[1-9][0-9]*\s+0\s+[0-9.]+\s`).MatchString(out.String()) {
			t.Errorf("no clean %s row in:\n%s", ep, out.String())
		}
	}
	if !regexp.MustCompile(`generate/trivial throughput: 1/[0-9.]+ \(issue 9 target: at least 1/10: (met|NOT met)\)`).MatchString(out.String()) {
		t.Errorf("no ratio line in:\n%s", out.String())
	}
	if err := run(context.Background(), []string{"--compare", "--url", "http://127.0.0.1:1", "--key", "k"}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "in-process") {
		t.Errorf("--compare with --url: %v", err)
	}
}
