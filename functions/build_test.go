package functions_test

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/policygen/policygen/pkg/store/dynamo/dynamotest"
)

// buildRoot holds every bootstrap the tests build; TestMain removes it.
var buildRoot string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "policygen-functions-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildRoot = dir
	code := m.Run()
	dynamotest.Stop() // the DynamoDB Local that TestFunctionsAnswerEventSamples started
	os.RemoveAll(dir)
	os.Exit(code)
}

// logicalIDs lists the functions in a stable order.
func logicalIDs() []string {
	ids := make([]string, 0, len(wantFunctions))
	for id := range wantFunctions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// builds caches one `make build-<LogicalId>` per (function, arch) for the
// whole test binary: the runtime tests reuse what the build tests built.
var builds = struct {
	sync.Mutex
	done map[string]buildResult
}{done: map[string]buildResult{}}

type buildResult struct {
	bootstrap string
	output    string
	err       error
}

// makeBuild runs the function's Makefile target the way `sam build` does
// (aws-lambda-builders' custom make workflow: `make --makefile <Makefile>
// build-<LogicalId>` in the source tree with ARTIFACTS_DIR in the
// environment). goarch "" leaves the Makefile's default architecture.
// vars are make variables (NAME=value) set on the command line besides
// GOARCH, for builds other than the shipped one (BenchmarkSegmentAlign).
func makeBuild(t testing.TB, logicalID, goarch string, vars ...string) string {
	t.Helper()
	key := strings.Join(append([]string{logicalID, goarch}, vars...), "/")
	builds.Lock()
	defer builds.Unlock()
	r, ok := builds.done[key]
	if !ok {
		r = runMake(t, logicalID, goarch, vars)
		builds.done[key] = r
	}
	if r.err != nil {
		t.Fatalf("make build-%s (GOARCH=%q %s): %v\n%s", logicalID, goarch, strings.Join(vars, " "), r.err, r.output)
	}
	return r.bootstrap
}

func runMake(t testing.TB, logicalID, goarch string, vars []string) buildResult {
	root := repoRoot(t)
	arch := goarch
	if arch == "" {
		arch = "default"
	}
	artifacts := filepath.Join(buildRoot, arch, logicalID)
	if len(vars) > 0 {
		artifacts = filepath.Join(artifacts, strings.Join(vars, ","))
	}
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		return buildResult{err: err}
	}
	args := []string{"--no-print-directory", "--makefile", filepath.Join(root, "Makefile"), "build-" + logicalID}
	if goarch != "" {
		args = append(args, "GOARCH="+goarch)
	}
	args = append(args, vars...)
	cmd := exec.Command("make", args...)
	cmd.Dir = root
	// The caller's GOARCH/GOOS are dropped so that only the command line
	// chooses (TestMakeBuildIgnoresGOARCHFromEnvironment checks the
	// Makefile's side of that).
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOARCH=") && !strings.HasPrefix(kv, "GOOS=") && !strings.HasPrefix(kv, "ARTIFACTS_DIR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "ARTIFACTS_DIR="+artifacts)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return buildResult{bootstrap: filepath.Join(artifacts, "bootstrap"), output: out.String(), err: err}
}

var elfMachine = map[string]elf.Machine{
	"amd64": elf.EM_X86_64,
	"arm64": elf.EM_AARCH64,
}

func checkBootstrap(t *testing.T, path string, want elf.Machine) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no bootstrap: %v", err)
	}
	if fi.Mode()&0o111 == 0 {
		t.Errorf("%s is not executable (mode %v)", path, fi.Mode())
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("bootstrap is not an ELF file: %v", err)
	}
	defer f.Close()
	if f.Machine != want {
		t.Errorf("bootstrap machine = %v, want %v", f.Machine, want)
	}
	if f.Type != elf.ET_EXEC {
		t.Errorf("bootstrap ELF type = %v, want ET_EXEC (static, CGO_ENABLED=0)", f.Type)
	}
	// Lambda's provided.al2023 runtime has no loader for us to rely on.
	if p := f.Section(".interp"); p != nil {
		t.Errorf("bootstrap is dynamically linked (.interp present)")
	}
	checkSegmentsAligned(t, f)
}

// segmentAlign is the Makefile's SEGMENT_ALIGN: the size of a page-table
// entry one level above the 4 KB page (2 MB on amd64, and on arm64 with 4 KB
// pages, as Lambda runs it).
const segmentAlign = 2 << 20

// checkSegmentsAligned: every loadable segment starts on a 2 MB boundary,
// in memory and in the file alike (the kernel maps a 2 MB piece of a file
// with one entry only where both agree), so that its whole 2 MB pieces can
// be mapped that way (docs/DECISIONS.md 45). Go's linker aligns them to
// 4 KB (amd64) or 64 KB (arm64) unless told otherwise, so this fails if the
// Makefile's -R flag goes missing.
func checkSegmentsAligned(t *testing.T, f *elf.File) {
	t.Helper()
	n := 0
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		n++
		if p.Align != segmentAlign || p.Vaddr%segmentAlign != 0 || p.Off%segmentAlign != 0 {
			t.Errorf("loadable segment at 0x%x (file offset 0x%x, %s) has alignment 0x%x, want each segment to start on a 0x%x boundary (the Makefile's SEGMENT_ALIGN)",
				p.Vaddr, p.Off, p.Flags, p.Align, segmentAlign)
		}
	}
	if n == 0 {
		t.Errorf("bootstrap has no loadable segment")
	}
}

func TestMakeBuildProducesBootstrapForHostArch(t *testing.T) {
	want, ok := elfMachine[runtime.GOARCH]
	if !ok {
		t.Skipf("no ELF machine known for %s", runtime.GOARCH)
	}
	for _, id := range logicalIDs() {
		t.Run(id, func(t *testing.T) {
			checkBootstrap(t, makeBuild(t, id, runtime.GOARCH), want)
		})
	}
}

func TestMakeBuildDefaultsToArm64(t *testing.T) {
	for _, id := range logicalIDs() {
		t.Run(id, func(t *testing.T) {
			checkBootstrap(t, makeBuild(t, id, ""), elf.EM_AARCH64)
		})
	}
}

// TestMakeBuildIgnoresGOARCHFromEnvironment: a GOARCH exported in the shell
// (say, to cross-compile something else) must not change what `sam build`
// builds, since template.yaml says arm64; only the make command line does.
func TestMakeBuildIgnoresGOARCHFromEnvironment(t *testing.T) {
	root := repoRoot(t)
	artifacts := t.TempDir()
	cmd := exec.Command("make", "--no-print-directory", "--makefile", filepath.Join(root, "Makefile"), "build-FallbackFunction")
	cmd.Dir = root
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOARCH=") && !strings.HasPrefix(kv, "ARTIFACTS_DIR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "ARTIFACTS_DIR="+artifacts, "GOARCH=amd64")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make build-FallbackFunction: %v\n%s", err, out)
	}
	checkBootstrap(t, filepath.Join(artifacts, "bootstrap"), elf.EM_AARCH64)
}

// TestMakeRecipesSeeNoGOARCH: the Makefile's GOARCH (arm64) is for the
// Lambda builds only. Were it exported, a shell that sets GOARCH would make
// `make test`/`run`/`bench` build arm64 test binaries on an x86-64 machine.
func TestMakeRecipesSeeNoGOARCH(t *testing.T) {
	root := repoRoot(t)
	for _, env := range []string{"", "GOARCH=amd64", "GOARCH=arm64"} {
		cmd := exec.Command("make", "--no-print-directory", "-s", "--makefile", filepath.Join(root, "Makefile"),
			"--eval", "print-goarch: ; @echo \"GOARCH=[$$GOARCH]\"", "print-goarch")
		cmd.Dir = root
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "GOARCH=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		if env != "" {
			cmd.Env = append(cmd.Env, env)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make print-goarch (%s): %v\n%s", env, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != "GOARCH=[]" {
			t.Errorf("with %q in the environment, a recipe sees %s, want no GOARCH", env, got)
		}
	}
}
