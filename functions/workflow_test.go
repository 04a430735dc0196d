package functions_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// workflow is the part of .github/workflows/deploy.yml the tests read.
type workflow struct {
	Jobs map[string]struct {
		Needs       any               `yaml:"needs"`
		If          string            `yaml:"if"`
		Environment any               `yaml:"environment"`
		Permissions map[string]string `yaml:"permissions"`
		Env         map[string]string `yaml:"env"`
		Steps       []workflowStep    `yaml:"steps"`
	} `yaml:"jobs"`
}

type workflowStep struct {
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

// TestDeployWorkflow checks what actionlint cannot: the order of the
// environments, OIDC per job, what sam build needs on the runner, and that
// only main is ever deployed.
func TestDeployWorkflow(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), ".github", "workflows", "deploy.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("deploy.yml: %v", err)
	}
	test, ok := wf.Jobs["test"]
	if !ok {
		t.Fatal("no test job")
	}
	if test.Env["CI"] != "true" {
		t.Errorf("test job env CI = %q, want \"true\" (DynamoDB tests must fail, not skip)", test.Env["CI"])
	}
	if !slices.ContainsFunc(test.Steps, func(s workflowStep) bool { return strings.TrimSpace(s.Run) == "make test" }) {
		t.Error("test job does not run make test")
	}

	for _, c := range []struct{ job, needs, environment, configEnv string }{
		{"deploy-dev", "test", "dev", "dev"},
		{"deploy-staging", "deploy-dev", "staging", "staging"},
		{"deploy-prod", "deploy-staging", "production", "prod"},
	} {
		t.Run(c.job, func(t *testing.T) {
			j, ok := wf.Jobs[c.job]
			if !ok {
				t.Fatalf("no job %s", c.job)
			}
			if j.Needs != c.needs {
				t.Errorf("needs = %v, want %s", j.Needs, c.needs)
			}
			if j.Environment != c.environment {
				t.Errorf("environment = %v, want %s (its protection rules and the OIDC sub claim)", j.Environment, c.environment)
			}
			if !strings.Contains(j.If, "github.ref == 'refs/heads/main'") {
				t.Errorf("if = %q: a workflow_dispatch of another branch would deploy it", j.If)
			}
			if j.Permissions["id-token"] != "write" {
				t.Errorf("permissions id-token = %q, want write (OIDC)", j.Permissions["id-token"])
			}
			var order []string
			for _, s := range j.Steps {
				switch {
				case strings.HasPrefix(s.Uses, "actions/setup-go@"):
					order = append(order, "go")
				case strings.HasPrefix(s.Uses, "aws-actions/setup-sam@"):
					order = append(order, "sam")
				case strings.HasPrefix(s.Uses, "aws-actions/configure-aws-credentials@"):
					if s.With["role-to-assume"] == "" {
						t.Error("configure-aws-credentials has no role-to-assume")
					}
					if s.With["aws-access-key-id"] != "" {
						t.Error("configure-aws-credentials is given stored keys; use OIDC")
					}
					order = append(order, "credentials")
				case strings.TrimSpace(s.Run) == "sam build":
					order = append(order, "build")
				case strings.HasPrefix(strings.TrimSpace(s.Run), "sam deploy "):
					if !slices.Contains(strings.Fields(s.Run), c.configEnv) || !strings.Contains(s.Run, "--config-env "+c.configEnv) {
						t.Errorf("deploy step %q does not use --config-env %s", s.Run, c.configEnv)
					}
					order = append(order, "deploy")
				}
			}
			// sam build runs make build-<LogicalId>, which needs Go.
			if want := []string{"go", "sam", "credentials", "build", "deploy"}; !slices.Equal(order, want) {
				t.Errorf("steps = %v, want %v", order, want)
			}
		})
	}
}
