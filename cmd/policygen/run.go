package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/policygen/policygen/pkg/client"
	"github.com/policygen/policygen/pkg/policy"
)

const usage = `policygen calls the Policygen API.

Usage:
  policygen generate --file REQ.json [-o FILE]     generate a policy (prints the policy JSON,
                                                  or writes its content to FILE)
  policygen list [--limit N] [--cursor C]          your policies, newest first
  policygen get ID [--format markdown|html|text] [-o FILE]
  policygen delete ID
  policygen profile                                your account, key and usage
  policygen bulk --csv clients.csv [--out results.csv]
                                                  one policy per CSV row (see docs/CLI.md)
  policygen detect URL|page.html|page.har          the catalog services a page loads

Environment:
  POLICYGEN_API_KEY    your API key (never a flag: flags land in shell history)
  POLICYGEN_BASE_URL   the API's base URL, e.g. https://api.example.com/v1
                       (default http://127.0.0.1:8080/v1, what make run serves)

Flags:
  --base-url URL       overrides POLICYGEN_BASE_URL
`

// DefaultBaseURL is what `make run` serves.
const DefaultBaseURL = "http://127.0.0.1:8080/v1"

type cli struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	http   *http.Client
	// sleep waits between bulk retries (a test makes it instant).
	sleep func(context.Context, int) error
}

// errUsage marks a command-line mistake: exit status 2.
var errUsage = errors.New("usage")

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr, sleep: sleepSeconds}
	if err := c.run(ctx, args); err != nil {
		fmt.Fprintln(stderr, "policygen:", err)
		if errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	return 0
}

func (c *cli) run(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(c.stdout, usage)
		return nil
	}
	cmds := map[string]func(context.Context, []string) error{
		"generate": c.generate, "list": c.list, "get": c.get, "delete": c.delete,
		"profile": c.profile, "bulk": c.bulk, "detect": c.detect,
	}
	f, ok := cmds[args[0]]
	if !ok {
		return fmt.Errorf("%w: unknown command %q (policygen help lists them)", errUsage, args[0])
	}
	return f(ctx, args[1:])
}

// flags parses args with fs, allowing flags after positional arguments, and
// returns the positional ones.
func (c *cli) flags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func newFlags(name string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	base := fs.String("base-url", "", "API base URL")
	return fs, base
}

// client builds the API client from the environment and --base-url.
func (c *cli) client(baseFlag string) (*client.ClientWithResponses, error) {
	key := c.getenv("POLICYGEN_API_KEY")
	if key == "" {
		return nil, fmt.Errorf("set POLICYGEN_API_KEY to your API key")
	}
	base := baseFlag
	if base == "" {
		base = c.getenv("POLICYGEN_BASE_URL")
	}
	if base == "" {
		base = DefaultBaseURL
	}
	return client.New(base, key, c.http)
}

// apiError turns a non-2xx answer into an error quoting its problem.
func apiError(status int, body []byte) error {
	var p client.Problem
	if json.Unmarshal(body, &p) == nil && p.Code != "" {
		msg := fmt.Sprintf("%d %s: %s", status, p.Code, p.Detail)
		if p.Errors != nil {
			for _, fe := range *p.Errors {
				msg += fmt.Sprintf("\n  %s: %s", fe.Field, fe.Message)
			}
		}
		return errors.New(msg)
	}
	return fmt.Errorf("%d %s", status, strings.TrimSpace(string(body)))
}

func (c *cli) printJSON(body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		_, err = c.stdout.Write(body)
		return err
	}
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func writeOut(path, content string) error {
	return os.WriteFile(path, []byte(content), 0o644)
}

func (c *cli) generate(ctx context.Context, args []string) error {
	fs, base := newFlags("generate")
	file := fs.String("file", "", "JSON request file (- for standard input)")
	out := fs.String("o", "", "write the document's content to this file")
	if _, err := c.flags(fs, args); err != nil {
		return err
	}
	if *file == "" {
		return fmt.Errorf("%w: generate needs --file REQ.json", errUsage)
	}
	var body []byte
	var err error
	if *file == "-" {
		body, err = io.ReadAll(c.stdin)
	} else {
		body, err = os.ReadFile(*file)
	}
	if err != nil {
		return err
	}
	api, err := c.client(*base)
	if err != nil {
		return err
	}
	resp, err := api.GeneratePolicyWithBodyWithResponse(ctx, nil, "application/json", strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	if resp.JSON201 == nil {
		return apiError(resp.StatusCode(), resp.Body)
	}
	if *out != "" {
		if err := writeOut(*out, resp.JSON201.Content); err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "%s %s -> %s\n", resp.JSON201.Id, resp.JSON201.Status, *out)
		return nil
	}
	return c.printJSON(resp.Body)
}

func (c *cli) list(ctx context.Context, args []string) error {
	fs, base := newFlags("list")
	limit := fs.Int("limit", 0, "page size, 1-100")
	cursor := fs.String("cursor", "", "nextCursor of the previous page")
	if _, err := c.flags(fs, args); err != nil {
		return err
	}
	api, err := c.client(*base)
	if err != nil {
		return err
	}
	params := &client.ListPoliciesParams{}
	if *limit != 0 {
		params.Limit = limit
	}
	if *cursor != "" {
		params.Cursor = cursor
	}
	resp, err := api.ListPoliciesWithResponse(ctx, params)
	if err != nil {
		return err
	}
	if resp.JSON200 == nil {
		return apiError(resp.StatusCode(), resp.Body)
	}
	return c.printJSON(resp.Body)
}

func (c *cli) get(ctx context.Context, args []string) error {
	fs, base := newFlags("get")
	format := fs.String("format", "", "markdown, html or text (default: as generated)")
	out := fs.String("o", "", "write the document's content to this file")
	pos, err := c.flags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: get needs one policy id", errUsage)
	}
	api, err := c.client(*base)
	if err != nil {
		return err
	}
	resp, err := api.GetPolicyWithResponse(ctx, pos[0], nil)
	if err != nil {
		return err
	}
	if resp.JSON200 == nil {
		return apiError(resp.StatusCode(), resp.Body)
	}
	p := resp.JSON200
	content := p.Content
	if *format != "" && *format != string(p.Format) {
		if content, err = rerender(resp.Body, *format); err != nil {
			return err
		}
	}
	if *out == "" {
		if *format == "" {
			return c.printJSON(resp.Body)
		}
		_, err := io.WriteString(c.stdout, content)
		return err
	}
	if err := writeOut(*out, content); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s -> %s\n", p.Id, *out)
	return nil
}

// rerender renders a stored policy in another format on this machine: the
// stored request under the same template version gives the same document
// (generation is deterministic), so nothing is generated or counted again.
func rerender(body []byte, format string) (string, error) {
	var stored struct {
		policy.Request
		TemplateVersion string `json:"templateVersion"`
	}
	if err := json.Unmarshal(body, &stored); err != nil {
		return "", err
	}
	if stored.TemplateVersion != policy.TemplateVersion {
		return "", fmt.Errorf("the policy was generated as %s with template %s and this policygen has template %s: generate it again with \"format\": %q", stored.Format, stored.TemplateVersion, policy.TemplateVersion, format)
	}
	if !slices.Contains(policy.Formats, format) {
		return "", fmt.Errorf("%w: --format must be markdown, html or text", errUsage)
	}
	stored.Format = format
	res, err := policy.Generate(stored.Request)
	if err != nil {
		return "", err
	}
	return res.Content, nil
}

func (c *cli) delete(ctx context.Context, args []string) error {
	fs, base := newFlags("delete")
	pos, err := c.flags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: delete needs one policy id", errUsage)
	}
	api, err := c.client(*base)
	if err != nil {
		return err
	}
	resp, err := api.DeletePolicyWithResponse(ctx, pos[0])
	if err != nil {
		return err
	}
	if resp.StatusCode() != http.StatusNoContent {
		return apiError(resp.StatusCode(), resp.Body)
	}
	fmt.Fprintf(c.stdout, "deleted %s\n", pos[0])
	return nil
}

func (c *cli) profile(ctx context.Context, args []string) error {
	fs, base := newFlags("profile")
	if _, err := c.flags(fs, args); err != nil {
		return err
	}
	api, err := c.client(*base)
	if err != nil {
		return err
	}
	resp, err := api.GetProfileWithResponse(ctx)
	if err != nil {
		return err
	}
	if resp.JSON200 == nil {
		return apiError(resp.StatusCode(), resp.Body)
	}
	return c.printJSON(resp.Body)
}
