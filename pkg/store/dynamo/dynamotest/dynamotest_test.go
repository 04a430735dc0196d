package dynamotest_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/policygen/policygen/pkg/store/dynamo"
	"github.com/policygen/policygen/pkg/store/dynamo/dynamotest"
)

// TestMain lets the test binary stand in for DynamoDB Local's java in the
// script tests: with FAKE_JAVA=1 it listens on the -port argument until it
// is killed, as DynamoDB Local does.
func TestMain(m *testing.M) {
	if os.Getenv("FAKE_JAVA") == "1" {
		fakeDynamoDBLocal(os.Args[1:])
		return
	}
	os.Exit(m.Run())
}

func fakeDynamoDBLocal(args []string) {
	i := slices.Index(args, "-port")
	if i < 0 || i+1 >= len(args) {
		fmt.Fprintln(os.Stderr, "fake java: no -port")
		os.Exit(2)
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+args[i+1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake java:", err)
		os.Exit(1)
	}
	for {
		c, err := l.Accept()
		if err != nil {
			os.Exit(1)
		}
		c.Close()
	}
}

// TestUnavailableSkipsLocallyAndFailsUnderCI runs a test that needs DynamoDB
// Local in a child process where Java cannot be found: on a laptop it is
// skipped, under CI=true it fails, so CI can never pass by skipping.
func TestUnavailableSkipsLocallyAndFailsUnderCI(t *testing.T) {
	if os.Getenv("DYNAMOTEST_CHILD") == "1" {
		dynamotest.Client(t)
		return
	}
	for _, c := range []struct {
		ci       string
		wantFail bool
		want     string
	}{
		{"", false, "--- SKIP"},
		{"false", false, "--- SKIP"},
		{"true", true, "DynamoDB Local is required under CI=true"},
	} {
		t.Run("CI="+c.ci, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestUnavailableSkipsLocallyAndFailsUnderCI$", "-test.v", "-test.count=1")
			for _, kv := range os.Environ() {
				name, _, _ := strings.Cut(kv, "=")
				switch name {
				case "PATH", "CI", "AWS_ENDPOINT_URL_DYNAMODB":
				default:
					cmd.Env = append(cmd.Env, kv)
				}
			}
			cmd.Env = append(cmd.Env, "DYNAMOTEST_CHILD=1", "PATH="+t.TempDir(), "CI="+c.ci)
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != c.wantFail {
				t.Errorf("child failed = %v (%v), want %v\n%s", failed, err, c.wantFail, out)
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("child output lacks %q:\n%s", c.want, out)
			}
		})
	}
}

// TestStopRemovesJavaTempFiles: DynamoDB Local copies its SQLite library
// into java.io.tmpdir when it first stores a table, and Stop kills it, so
// the JVM never deletes the copy. The process gets a temporary directory of
// its own (under TMPDIR), which holds the copy while it runs and is gone
// once Stop returns. No other test in this package starts DynamoDB Local,
// so this one's TMPDIR is the one it starts with.
func TestStopRemovesJavaTempFiles(t *testing.T) {
	if os.Getenv(dynamo.EndpointEnv) != "" {
		t.Skipf("%s names an external DynamoDB", dynamo.EndpointEnv)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Run("store", func(t *testing.T) {
		client, table := dynamotest.Table(t)
		item := map[string]any{"pk": map[string]string{"S": "k"}, "sk": map[string]string{"S": "k"}}
		if err := client.Do(context.Background(), "PutItem", map[string]any{"TableName": table, "Item": item}, nil); err != nil {
			t.Fatal(err)
		}
	})
	dirs, err := filepath.Glob(filepath.Join(tmp, "policygen-dynamodb-local-*"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("DynamoDB Local's temporary directories under TMPDIR = %v (%v), want one", dirs, err)
	}
	files, err := os.ReadDir(dirs[0])
	if err != nil || len(files) == 0 {
		t.Fatalf("%s holds %d entries (%v): DynamoDB Local did not use it as java.io.tmpdir", dirs[0], len(files), err)
	}
	dynamotest.Stop()
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left behind after Stop: %s", filepath.Join(tmp, e.Name()))
	}
}
