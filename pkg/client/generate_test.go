package client_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedClientIsCurrent regenerates the client from openapi.yaml
// and compares it with the checked-in client.gen.go (make generate).
func TestGeneratedClientIsCurrent(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "client.gen.go")
	cfg, err := os.ReadFile("oapi-codegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The same configuration, writing elsewhere.
	cfg = bytes.Replace(cfg, []byte("output: client.gen.go"), []byte("output: "+out), 1)
	cfgPath := filepath.Join(dir, "oapi-codegen.yaml")
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "tool", "oapi-codegen", "-config", cfgPath, "../../openapi.yaml")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("pkg/client/client.gen.go is stale: run make generate")
	}
}
