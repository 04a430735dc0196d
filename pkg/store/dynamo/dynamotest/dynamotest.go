// Package dynamotest gives tests a real DynamoDB: DynamoDB Local, started
// once per test binary from the repository's .tools/dynamodb-local (installed
// by scripts/dynamodb-local.sh install), or any endpoint named by
// AWS_ENDPOINT_URL_DYNAMODB. Each test gets its own fresh table.
//
// Without Java or the jar, tests skip with a message saying how to install
// it; under CI=true they fail instead, so CI can never pass by skipping.
//
// A package that uses Client should call Main from its TestMain so the
// DynamoDB Local process is stopped when the tests end:
//
//	func TestMain(m *testing.M) { dynamotest.Main(m) }
//
// As a safety net the process is also started with a parent-death signal,
// so it dies with the test binary even if Main is not used or the binary
// is killed.
package dynamotest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/policygen/policygen/pkg/ddb"
	"github.com/policygen/policygen/pkg/store/dynamo"
)

// localDir is where scripts/dynamodb-local.sh installs DynamoDB Local,
// relative to the repository root.
const localDir = ".tools/dynamodb-local"

var local struct {
	once     sync.Once
	endpoint string
	// unavailable is set when Java or the jar is missing: a skip locally.
	unavailable string
	err         error
	cmd         *exec.Cmd
	exited      chan struct{}
}

// Client returns a client for DynamoDB Local (or the endpoint in
// AWS_ENDPOINT_URL_DYNAMODB), starting it on first use. It skips the test
// when DynamoDB Local cannot be run here, unless CI=true.
func Client(t testing.TB) *ddb.Client {
	t.Helper()
	endpoint := os.Getenv(dynamo.EndpointEnv)
	if endpoint == "" {
		local.once.Do(start)
		switch {
		case local.unavailable != "":
			if os.Getenv("CI") == "true" {
				t.Fatalf("DynamoDB Local is required under CI=true: %s", local.unavailable)
			}
			t.Skipf("DynamoDB Local unavailable: %s (or set %s to a running instance)", local.unavailable, dynamo.EndpointEnv)
		case local.err != nil:
			t.Fatalf("DynamoDB Local: %v", local.err)
		}
		endpoint = local.endpoint
	}
	return newClient(endpoint)
}

// Endpoint returns the URL of the DynamoDB that Client uses, for a child
// process (AWS_ENDPOINT_URL_DYNAMODB). It skips or fails like Client.
func Endpoint(t testing.TB) string {
	t.Helper()
	return Client(t).Endpoint()
}

// Table returns a client and the name of a new, empty table (created with
// dynamo.CreateTable), deleted when the test ends.
func Table(t testing.TB) (*ddb.Client, string) {
	t.Helper()
	client := Client(t)
	var b [6]byte
	rand.Read(b[:])
	table := "policygen-test-" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := dynamo.CreateTable(ctx, client, table); err != nil {
		t.Fatalf("create test table: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := client.Do(ctx, "DeleteTable", struct{ TableName string }{table}, nil); err != nil {
			t.Logf("delete test table %s: %v", table, err)
		}
	})
	return client, table
}

// Main runs the package's tests and then stops DynamoDB Local if they
// started it. Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop ends the DynamoDB Local process started by this test binary, if any.
func Stop() {
	if local.cmd == nil || local.cmd.Process == nil {
		return
	}
	local.cmd.Process.Kill()
	<-local.exited
}

// SDKClient is the SDK's own DynamoDB client for the endpoint Client uses,
// for tests that check from outside what pkg/ddb wrote or created.
func SDKClient(t testing.TB) *dynamodb.Client {
	t.Helper()
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		BaseEndpoint: aws.String(Endpoint(t)),
	})
}

func newClient(endpoint string) *ddb.Client {
	return ddb.New(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")}, endpoint)
}

// start runs DynamoDB Local in memory on a free loopback port and waits
// until it answers.
func start() {
	java, err := exec.LookPath("java")
	if err != nil {
		local.unavailable = "java not found in PATH: install a Java 17+ runtime"
		return
	}
	root, err := repoRoot()
	if err != nil {
		local.err = err
		return
	}
	dir := filepath.Join(root, localDir)
	if _, err := os.Stat(filepath.Join(dir, "DynamoDBLocal.jar")); err != nil {
		local.unavailable = dir + "/DynamoDBLocal.jar not found: run scripts/dynamodb-local.sh install"
		return
	}
	// A free port can be taken between our check and Java's bind: try a few.
	for attempt := 0; attempt < 3; attempt++ {
		if local.err = launch(java, dir); local.err == nil {
			return
		}
	}
}

func launch(java, dir string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	// DynamoDB Local copies its SQLite library into java.io.tmpdir on
	// first use, and Stop kills it, so nothing else would delete the copy
	// (about a megabyte per test binary, in /tmp): each process gets a
	// directory of its own, removed when the process has exited. A test
	// binary killed outright leaves it behind, as it leaves the process to
	// its parent-death signal.
	tmp, err := os.MkdirTemp("", "policygen-dynamodb-local-")
	if err != nil {
		return err
	}
	var output bytes.Buffer
	// A test server lives seconds: the quick JIT tier and the serial GC
	// halve the CPU it takes (start-up dominates), which matters on 2 cores.
	// Telemetry is off: tests must not phone home (or wait on a network
	// that CI may not have).
	cmd := exec.Command(java, "-Xmx1g", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Djava.library.path=DynamoDBLocal_lib",
		"-Djava.io.tmpdir="+tmp,
		"-jar", "DynamoDBLocal.jar", "-inMemory", "-sharedDb", "-disableTelemetry", "-port", strconv.Itoa(port))
	cmd.Dir = dir
	cmd.Stdout = &output
	cmd.Stderr = &output
	// Pdeathsig fires when the thread that started the child exits, so the
	// child is started, and waited for, on a thread kept for its lifetime.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	started := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			os.RemoveAll(tmp)
			started <- err
			return
		}
		started <- nil
		cmd.Wait()
		os.RemoveAll(tmp)
		close(exited)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("start DynamoDB Local: %w", err)
	}
	endpoint := "http://127.0.0.1:" + strconv.Itoa(port)
	client := newClient(endpoint)
	deadline := time.Now().Add(90 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := client.Do(ctx, "ListTables", struct{}{}, nil)
		cancel()
		if err == nil {
			local.endpoint, local.cmd, local.exited = endpoint, cmd, exited
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("DynamoDB Local exited during start-up: %s", output.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			return fmt.Errorf("DynamoDB Local did not answer on %s: %v", endpoint, err)
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// repoRoot walks up from the working directory (a package directory under
// go test) to the directory holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the working directory")
		}
		dir = parent
	}
}
