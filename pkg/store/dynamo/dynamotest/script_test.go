package dynamotest_test

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The tests below run scripts/dynamodb-local.sh as on a clean machine: a
// copy (with the scripts/lib.sh it sources) in an empty repository, with
// npm, java and apt-get replaced by scripts that record their calls (the
// real ones would need the network or root). The fake npm packs a tarball shaped like amplify-dynamodb-simulator.

const fakeNPM = `#!/bin/sh
echo "npm $*" >>"$CALLS"
[ "$1" = pack ] || exit 2
mkdir -p package/emulator/DynamoDBLocal_lib
echo jar >package/emulator/DynamoDBLocal.jar
tar -czf amplify-dynamodb-simulator-2.9.30.tgz package
rm -rf package
`

// fakeJava is this test binary in the part of DynamoDB Local: it listens on
// the -port it is given until it is killed (see TestMain).
const fakeJava = `#!/bin/sh
echo "java $*" >>"$CALLS"
FAKE_JAVA=1 exec "$TEST_BINARY" "$@"
`

// fakeAptGet "installs" Java by putting the fake one on PATH.
const fakeAptGet = `#!/bin/sh
echo "apt-get $*" >>"$CALLS"
case "$1" in install) cp "$JAVA_SCRIPT" "$BIN/java" && chmod +x "$BIN/java" ;; esac
`

type scriptEnv struct {
	root, bin, calls string
	env              []string
}

// newScriptEnv copies the script into an empty repository and builds a PATH
// of the fakes plus, when withSystem, the system PATH (without it, only the
// few tools the script needs, so no system java is found).
func newScriptEnv(t *testing.T, withJava, withSystem bool) *scriptEnv {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "scripts", "dynamodb-local.sh"))
	if err != nil {
		t.Fatal(err)
	}
	lib, err := os.ReadFile(filepath.Join(repoRoot(t), "scripts", "lib.sh"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	e := &scriptEnv{root: filepath.Join(dir, "repo"), bin: filepath.Join(dir, "bin"), calls: filepath.Join(dir, "calls")}
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(e.root, "scripts", "dynamodb-local.sh"), string(src))
	write(filepath.Join(e.root, "scripts", "lib.sh"), string(lib))
	write(filepath.Join(e.bin, "npm"), fakeNPM)
	write(filepath.Join(e.bin, "apt-get"), fakeAptGet)
	write(filepath.Join(e.bin, "id"), "#!/bin/sh\necho 0\n") // as root: no sudo
	write(filepath.Join(dir, "java"), fakeJava)              // what the fake apt-get installs
	if withJava {
		write(filepath.Join(e.bin, "java"), fakeJava)
	}
	path := e.bin
	if withSystem {
		path += ":" + os.Getenv("PATH")
	} else {
		for _, tool := range []string{"sh", "bash", "dirname", "mktemp", "tar", "gzip", "cp", "rm", "mv", "mkdir", "chmod", "cat", "sleep", "seq", "nohup"} {
			p, err := exec.LookPath(tool)
			if err != nil {
				t.Skipf("%s not installed", tool)
			}
			if err := os.Symlink(p, filepath.Join(e.bin, tool)); err != nil {
				t.Fatal(err)
			}
		}
	}
	testBinary, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "DYNAMODB_LOCAL_PORT=") {
			e.env = append(e.env, kv)
		}
	}
	e.env = append(e.env, "PATH="+path, "CALLS="+e.calls, "BIN="+e.bin, "JAVA_SCRIPT="+filepath.Join(dir, "java"), "TEST_BINARY="+testBinary)
	return e
}

// run runs the script with args and extra environment; it returns stdout
// and fails the test on a non-zero exit.
func (e *scriptEnv) run(t *testing.T, extraEnv []string, args ...string) string {
	t.Helper()
	stdout, stderr, err := e.try(extraEnv, args...)
	if err != nil {
		t.Fatalf("dynamodb-local.sh %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout, stderr)
	}
	return stdout
}

func (e *scriptEnv) try(extraEnv []string, args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command("bash", append([]string{filepath.Join(e.root, "scripts", "dynamodb-local.sh")}, args...)...)
	cmd.Env = append(append([]string{}, e.env...), extraEnv...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// killStarted kills what `start` left running, if anything.
func (e *scriptEnv) killStarted() {
	b, err := os.ReadFile(filepath.Join(e.root, ".tools", "dynamodb-local", "dynamodb-local.pid"))
	if err != nil {
		return
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func freeLoopbackPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func (e *scriptEnv) callLog(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(e.calls)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func TestScriptStartOnCleanMachine(t *testing.T) {
	e := newScriptEnv(t, true, true)
	port := freeLoopbackPort(t)
	portEnv := []string{"DYNAMODB_LOCAL_PORT=" + port}
	dir := filepath.Join(e.root, ".tools", "dynamodb-local")
	pidfile := filepath.Join(dir, "dynamodb-local.pid")
	t.Cleanup(e.killStarted)

	out := e.run(t, portEnv, "start")
	if want := "export AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:" + port; strings.TrimSpace(out) != want {
		t.Errorf("start printed %q, want %q", out, want)
	}
	for _, f := range []string{"DynamoDBLocal.jar", "DynamoDBLocal_lib"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("after start: %v", err)
		}
	}
	if _, err := os.Stat(dir + ".partial"); !os.IsNotExist(err) {
		t.Errorf("a partial install was left behind: %v", err)
	}
	calls := e.callLog(t)
	if !strings.Contains(calls, "npm pack --silent amplify-dynamodb-simulator@") {
		t.Errorf("npm pack was not called:\n%s", calls)
	}
	if !strings.Contains(calls, "-disableTelemetry") || !strings.Contains(calls, "-port "+port) {
		t.Errorf("java was not started with -disableTelemetry on port %s:\n%s", port, calls)
	}

	// Again: already installed and running, so nothing is fetched or started.
	e.run(t, portEnv, "start")
	e.run(t, nil, "install")
	if again := e.callLog(t); again != calls {
		t.Errorf("a second start/install did more work:\n%s", strings.TrimPrefix(again, calls))
	}

	if b, err := os.ReadFile(pidfile); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) }) // in case stop does not
		}
	}
	e.run(t, nil, "stop")
	if _, err := os.Stat(pidfile); !os.IsNotExist(err) {
		t.Errorf("stop left the pid file: %v", err)
	}
}

func TestScriptStartRefusesBusyPort(t *testing.T) {
	e := newScriptEnv(t, true, true)
	t.Cleanup(e.killStarted)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	_, stderr, err := e.try([]string{"DYNAMODB_LOCAL_PORT=" + port}, "start")
	if err == nil {
		t.Fatalf("start on a port in use succeeded:\n%s", stderr)
	}
	if !strings.Contains(stderr, "port "+port+" is already in use") {
		t.Errorf("stderr does not say the port is in use:\n%s", stderr)
	}
	if calls := e.callLog(t); strings.Contains(calls, "java ") {
		t.Errorf("java was started anyway:\n%s", calls)
	}
}

// aptInstall is how scripts/lib.sh installs a package: waiting for dpkg's
// lock if another apt-get holds it, rather than failing.
const aptInstall = "apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "

func TestScriptInstallsJavaOnlyWhenMissing(t *testing.T) {
	for _, withJava := range []bool{true, false} {
		t.Run("java="+strconv.FormatBool(withJava), func(t *testing.T) {
			e := newScriptEnv(t, withJava, false)
			e.run(t, nil, "install")
			calls := e.callLog(t)
			usedApt := strings.Contains(calls, aptInstall)
			if withJava && usedApt {
				t.Errorf("apt-get ran although java is installed:\n%s", calls)
			}
			if !withJava && !strings.Contains(calls, aptInstall+"default-jre-headless") {
				t.Errorf("java is missing but was not installed with apt-get:\n%s", calls)
			}
			if strings.Contains(calls, aptInstall+"npm") {
				t.Errorf("npm is on PATH but was installed with apt-get:\n%s", calls)
			}
			if _, err := os.Stat(filepath.Join(e.root, ".tools", "dynamodb-local", "DynamoDBLocal.jar")); err != nil {
				t.Errorf("after install: %v", err)
			}
		})
	}
}

// repoRoot walks up from the package directory to go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}
