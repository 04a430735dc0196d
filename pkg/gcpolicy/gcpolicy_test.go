package gcpolicy_test

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/policygen/policygen/pkg/gcpolicy"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// restore puts the collector's settings back as they were when the test
// began, and reports what was in force when it ended.
func restore(t *testing.T) {
	percent := debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
}

func TestSet(t *testing.T) {
	tests := []struct {
		name         string
		env          map[string]string
		runtimeGOGC  int   // what the runtime would have read from GOGC at start
		runtimeLimit int64 // and from GOMEMLIMIT
		wantPercent  int
		wantLimit    int64
	}{
		{"policyd", map[string]string{}, 100, math.MaxInt64, gcpolicy.Percent, math.MaxInt64},
		{"GOGC rules", map[string]string{"GOGC": "150"}, 150, math.MaxInt64, 150, math.MaxInt64},
		{"Lambda, 256 MB", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256"}, 100, math.MaxInt64, gcpolicy.Percent, 224 << 20},
		{"Lambda, 1024 MB", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "1024"}, 100, math.MaxInt64, gcpolicy.Percent, 896 << 20},
		{"Lambda, 130 MB", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "130"}, 100, math.MaxInt64, gcpolicy.Percent, 119275520}, // 130 MiB * 7 / 8
		{"Lambda with GOMEMLIMIT", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256", "GOMEMLIMIT": "100MiB"}, 100, 100 << 20, gcpolicy.Percent, 100 << 20},
		{"Lambda with GOGC", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256", "GOGC": "off"}, -1, math.MaxInt64, -1, 224 << 20},
		{"memory size not a number", map[string]string{"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "lots"}, 100, math.MaxInt64, gcpolicy.Percent, math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			restore(t)
			debug.SetGCPercent(tt.runtimeGOGC)
			debug.SetMemoryLimit(tt.runtimeLimit)
			percent, limit := gcpolicy.Set(env(tt.env))
			if percent != tt.wantPercent || limit != tt.wantLimit {
				t.Errorf("Set = %d, %d; want %d, %d", percent, limit, tt.wantPercent, tt.wantLimit)
			}
			if p := debug.SetGCPercent(100); p != tt.wantPercent {
				t.Errorf("GC percent in force = %d, want %d", p, tt.wantPercent)
			}
			if l := debug.SetMemoryLimit(-1); l != tt.wantLimit {
				t.Errorf("memory limit in force = %d, want %d", l, tt.wantLimit)
			}
		})
	}
}
