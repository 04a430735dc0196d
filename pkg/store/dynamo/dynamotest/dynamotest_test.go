package dynamotest_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

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
