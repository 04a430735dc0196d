package api_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps pkg/api free of store implementations and test-only
// libraries: every Lambda binary links it, and each should carry only what
// its own route needs (the store comes in through Deps).
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/policygen/policygen/pkg/api").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	forbidden := []string{
		"go.etcd.io/bbolt",
		"github.com/policygen/policygen/pkg/store/",
		"github.com/policygen/policygen/pkg/backend",
		"github.com/aws/aws-sdk-go-v2/service/dynamodb",
		"github.com/aws/aws-sdk-go-v2/config",
		"go.yaml.in/yaml",
		"github.com/santhosh-tekuri/jsonschema",
		"testing",
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f) && (strings.HasSuffix(f, "/") || strings.HasPrefix(dep, f+"/")) {
				t.Errorf("pkg/api depends on %s", dep)
			}
		}
	}
}
