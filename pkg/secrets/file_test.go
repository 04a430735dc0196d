package secrets

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestFileCreatesSecret(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "nested")
	path := filepath.Join(dir, "pepper")
	v, err := NewFile(path).Value(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if raw, err := hex.DecodeString(string(v)); err != nil || len(raw) != 32 {
		t.Fatalf("value %q is not 32 hex-encoded bytes", v)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	di, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, want 0700", di.Mode().Perm())
	}
	// Another process (policyd vs policyctl) reads the same value.
	again, err := NewFile(path).Value(context.Background())
	if err != nil || string(again) != string(v) {
		t.Fatalf("second source: %q, %v; want %q", again, err, v)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".secret-*")); len(leftovers) != 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

func TestFileExisting(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content, want string
		wantErr             bool
	}{
		{name: "trimmed", content: "  0123456789abcdef0123\n", want: "0123456789abcdef0123"},
		{name: "too short", content: "short\n", wantErr: true},
		{name: "empty", content: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			v, err := NewFile(path).Value(context.Background())
			if tt.wantErr {
				if err == nil {
					t.Fatalf("got %q, want an error", v)
				}
				return
			}
			if err != nil || string(v) != tt.want {
				t.Fatalf("got %q, %v; want %q", v, err, tt.want)
			}
		})
	}
}

// Sources racing to create the file agree on one value.
func TestFileConcurrentCreate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pepper")
	var wg sync.WaitGroup
	vals := make([]string, 16)
	for i := range vals {
		wg.Go(func() {
			v, err := NewFile(path).Value(context.Background())
			if err != nil {
				t.Error(err)
			}
			vals[i] = string(v)
		})
	}
	wg.Wait()
	for _, v := range vals {
		if v != vals[0] {
			t.Fatalf("sources disagree: %q vs %q", v, vals[0])
		}
	}
}
