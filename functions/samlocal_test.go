package functions_test

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
)

// TestSAMLocalEnv runs scripts/sam-local-env.sh against DynamoDB Local, then
// runs built functions with exactly the variables its env.json gives (plus
// what SAM CLI itself sets: AWS_SAM_LOCAL=true and a region) through the
// Runtime API, and calls them with the demo key it printed. This is the
// docs/DEPLOY.md walk-through short of Docker.
func TestSAMLocalEnv(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Lambda binaries are linux executables")
	}
	fx := newFixture(t)
	dir := t.TempDir()
	cmd := exec.Command("../scripts/sam-local-env.sh")
	cmd.Env = append(os.Environ(),
		"SAM_LOCAL_HOST_ENDPOINT="+fx.endpoint,
		"SAM_LOCAL_CONTAINER_ENDPOINT="+fx.endpoint, // the functions run on this machine here
		"SAM_LOCAL_TABLE=sam-local-test",
		"SAM_LOCAL_DIR="+dir,
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sam-local-env.sh: %v\n%s", err, out)
	}
	key := regexp.MustCompile(`pol_live_[A-Za-z0-9]+`).FindString(string(out))
	if key == "" {
		t.Fatalf("no key printed:\n%s", out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "env.json"))
	if err != nil {
		t.Fatal(err)
	}
	var envJSON struct{ Parameters map[string]string }
	if err := json.Unmarshal(raw, &envJSON); err != nil {
		t.Fatalf("env.json: %v\n%s", err, raw)
	}
	env := map[string]string{"AWS_SAM_LOCAL": "true", "AWS_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"}
	for k, v := range envJSON.Parameters {
		env[k] = v
	}
	for _, fn := range []struct{ id, dir string }{{"GetProfileFunction", "get-profile"}, {"GeneratePolicyFunction", "generate-policy"}} {
		p := startFunction(t, "policygen-samlocal-"+fn.dir, makeBuild(t, fn.id, runtime.GOARCH), env)
		resp := p.invoke(t, marshalEvent(t, withKey(loadEvent(t, fn.dir), key)))
		want := http.StatusOK
		if fn.dir == "generate-policy" {
			want = http.StatusCreated
		}
		wantStatus(t, resp, want, "application/json")
	}

	// The same variables without AWS_SAM_LOCAL, as in AWS: the function
	// refuses PEPPER and DYNAMODB_ENDPOINT and stops at start.
	delete(env, "AWS_SAM_LOCAL")
	bin := makeBuild(t, "GetProfileFunction", runtime.GOARCH)
	c := exec.Command(bin)
	for k, v := range env {
		c.Env = append(c.Env, k+"="+v)
	}
	c.Env = append(c.Env, "AWS_LAMBDA_RUNTIME_API=127.0.0.1:1")
	msg, err := c.CombinedOutput()
	if err == nil || !regexp.MustCompile(`PEPPER is read only under SAM local emulation`).Match(msg) {
		t.Errorf("outside SAM local: err %v, output %s", err, msg)
	}
}
