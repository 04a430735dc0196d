package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/policygen/policygen/pkg/account"
	"github.com/policygen/policygen/pkg/api"
	"github.com/policygen/policygen/pkg/compliance"
	"github.com/policygen/policygen/pkg/policy"
	"github.com/policygen/policygen/pkg/store"
)

const specURL = "file:///openapi.json"

// spec validates responses against openapi.yaml: status documented for the
// operation, content type, required headers (and their schemas), and body
// against the response schema with $refs resolved in the document.
type spec struct {
	doc map[string]any

	mu      sync.Mutex
	schemas map[string]*jsonschema.Schema
	// seen records "operationId status" pairs checked, for the coverage test.
	seen map[string]bool
}

var (
	specOnce sync.Once
	theSpec  *spec
	specErr  error
)

func loadSpec(t *testing.T) *spec {
	t.Helper()
	specOnce.Do(func() {
		raw, err := os.ReadFile("../../openapi.yaml")
		if err != nil {
			specErr = err
			return
		}
		var y any
		if err := yaml.Unmarshal(raw, &y); err != nil {
			specErr = fmt.Errorf("openapi.yaml: %w", err)
			return
		}
		// Round-trip through JSON so the document has JSON types only.
		j, err := json.Marshal(y)
		if err != nil {
			specErr = fmt.Errorf("openapi.yaml to JSON: %w", err)
			return
		}
		var doc map[string]any
		if err := json.Unmarshal(j, &doc); err != nil {
			specErr = err
			return
		}
		theSpec = &spec{doc: doc, schemas: map[string]*jsonschema.Schema{}, seen: map[string]bool{}}
	})
	if specErr != nil {
		t.Fatal(specErr)
	}
	return theSpec
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// at returns the node at JSON pointer ptr ("/a/b"), following a $ref at the
// end, and the pointer it finally resolved to.
func (s *spec) at(ptr string) (map[string]any, string, error) {
	var node any = s.doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		m, ok := node.(map[string]any)
		if !ok {
			return nil, ptr, fmt.Errorf("%s: not an object", ptr)
		}
		if node, ok = m[tok]; !ok {
			return nil, ptr, fmt.Errorf("%s: no %q", ptr, tok)
		}
	}
	m, ok := node.(map[string]any)
	if !ok {
		return nil, ptr, fmt.Errorf("%s: not an object", ptr)
	}
	if ref, ok := m["$ref"].(string); ok {
		return s.at(strings.TrimPrefix(ref, "#"))
	}
	return m, ptr, nil
}

func (s *spec) schema(ptr string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.schemas[ptr]; ok {
		return sch, nil
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(specURL, s.doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(specURL + "#" + ptr)
	if err != nil {
		return nil, err
	}
	s.schemas[ptr] = sch
	return sch, nil
}

// operation finds the documented operation for req: its pointer, or "" and
// the fallback component for unknown routes (404) and wrong methods (405).
func operation(req *http.Request) (ptr, opID string, pathKnown bool) {
	for _, r := range api.Routes() {
		if !matchRoute(r.Path, req.URL.EscapedPath()) {
			continue
		}
		pathKnown = true
		if r.Method == req.Method {
			return "/paths/" + escapePointer(specPath(r.Path)) + "/" + strings.ToLower(r.Method), r.Name, true
		}
	}
	return "", "", pathKnown
}

// specPath is a route's path as openapi.yaml writes it: relative to the
// servers' base URL, which includes /v1 (the seed's form, the stack's
// ApiUrl output, the README's BASE and the clients agree).
func specPath(routePath string) string { return strings.TrimPrefix(routePath, "/v1") }

func matchRoute(pattern, p string) bool {
	ps, qs := strings.Split(pattern, "/"), strings.Split(p, "/")
	if len(ps) != len(qs) {
		return false
	}
	for i := range ps {
		if strings.HasPrefix(ps[i], "{") && qs[i] != "" {
			continue
		}
		if ps[i] != qs[i] {
			return false
		}
	}
	return true
}

func (s *spec) check(t *testing.T, req *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	status := strconv.Itoa(rec.Code)
	opPtr, opID, pathKnown := operation(req)
	var respPtr string
	switch {
	case opPtr != "" && s.has(opPtr+"/responses/"+status):
		respPtr = opPtr + "/responses/" + status
	case opPtr == "" && pathKnown && rec.Code == 405:
		respPtr, opID = "/components/responses/MethodNotAllowed", "(method)"
	case opPtr == "" && !pathKnown && rec.Code == 404:
		respPtr, opID = "/components/responses/NotFound", "(route)"
	default:
		t.Errorf("openapi.yaml: %s %s answered %s, which is not documented for it", req.Method, req.URL.Path, status)
		return
	}
	s.mu.Lock()
	s.seen[opID+" "+status] = true
	s.mu.Unlock()

	resp, respPtr, err := s.at(respPtr)
	if err != nil {
		t.Fatal(err)
	}
	if hs, ok := resp["headers"].(map[string]any); ok {
		for name := range hs {
			h, hPtr, err := s.at(respPtr + "/headers/" + escapePointer(name))
			if err != nil {
				t.Fatal(err)
			}
			v, present := rec.Header()[http.CanonicalHeaderKey(name)]
			if !present {
				if required, _ := h["required"].(bool); required {
					t.Errorf("%s %s -> %s: missing required header %s", req.Method, req.URL.Path, status, name)
				}
				continue
			}
			sch, err := s.schema(hPtr + "/schema")
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(v[0]); err != nil {
				t.Errorf("%s %s -> %s: header %s %q: %v", req.Method, req.URL.Path, status, name, v[0], err)
			}
		}
	}
	content, _ := resp["content"].(map[string]any)
	if len(content) == 0 {
		if rec.Body.Len() != 0 {
			t.Errorf("%s %s -> %s: documented without body, got %q", req.Method, req.URL.Path, status, rec.Body)
		}
		return
	}
	mt, _, err := mime.ParseMediaType(rec.Header().Get("Content-Type"))
	if err != nil || content[mt] == nil {
		t.Errorf("%s %s -> %s: Content-Type %q not documented", req.Method, req.URL.Path, status, rec.Header().Get("Content-Type"))
		return
	}
	sch, err := s.schema(respPtr + "/content/" + escapePointer(mt) + "/schema")
	if err != nil {
		t.Fatal(err)
	}
	body, err := jsonschema.UnmarshalJSON(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Errorf("%s %s -> %s: body is not JSON: %v", req.Method, req.URL.Path, status, err)
		return
	}
	if err := sch.Validate(body); err != nil {
		t.Errorf("%s %s -> %s: body does not match openapi.yaml: %v\nbody: %s", req.Method, req.URL.Path, status, err, rec.Body)
	}
}

func (s *spec) has(ptr string) bool {
	_, _, err := s.at(ptr)
	return err == nil
}

// TestOpenAPIRoutes: openapi.yaml documents exactly the route table.
func TestOpenAPIRoutes(t *testing.T) {
	s := loadSpec(t)
	want := map[string]string{}
	for _, r := range api.Routes() {
		want[strings.ToLower(r.Method)+" "+specPath(r.Path)] = r.Name
	}
	got := map[string]string{}
	paths, _ := s.doc["paths"].(map[string]any)
	for p, item := range paths {
		for method, op := range item.(map[string]any) {
			if method == "parameters" {
				continue
			}
			id, _ := op.(map[string]any)["operationId"].(string)
			got[method+" "+p] = id
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("openapi.yaml operations = %v\nroute table = %v", got, want)
	}
}

// TestOpenAPIEnums: the request schema's enumerations are the generator's
// allowed values, in the same order.
func TestOpenAPIEnums(t *testing.T) {
	s := loadSpec(t)
	props, _, err := s.at("/components/schemas/GenerateRequest/properties")
	if err != nil {
		t.Fatal(err)
	}
	list := func(key string, path ...string) []string {
		var node any = props
		for _, p := range path {
			node = node.(map[string]any)[p]
		}
		var out []string
		for _, v := range node.(map[string]any)[key].([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	enum := func(path ...string) []string { return list("enum", path...) }
	// Fields that also accept names and aliases list their canonical values
	// as examples: an enum would make schema validators refuse "GB".
	examples := func(path ...string) []string { return list("examples", path...) }
	tests := []struct {
		name string
		got  []string
		want []string
	}{
		{"type", enum("type"), policy.Types()},
		{"language", enum("language"), policy.Languages()},
		{"jurisdiction", examples("jurisdiction"), policy.Jurisdictions()},
		{"businessType", examples("businessType"), policy.BusinessTypes()},
		{"format", enum("format"), policy.Formats},
	}
	for _, tt := range tests {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("openapi.yaml %s enum = %v\nwant: [%s]", tt.name, tt.got, strings.Join(tt.want, ", "))
		}
	}
	var levels []string
	for score := range 101 {
		if l := compliance.Level(score); !slices.Contains(levels, l) {
			levels = append(levels, l)
		}
	}
	rl, _, _ := s.at("/components/schemas/PolicyFields/properties/riskLevel")
	if got := fmt.Sprint(rl["enum"]); got != fmt.Sprint(levels) {
		t.Errorf("openapi.yaml riskLevel enum = %v, want %v", got, levels)
	}

	var plans []string
	for _, p := range account.Plans {
		plans = append(plans, string(p))
	}
	ps, _, _ := s.at("/components/schemas/Profile/properties/account/properties/plan")
	var got []string
	for _, v := range ps["enum"].([]any) {
		got = append(got, v.(string))
	}
	if !slices.Equal(got, plans) {
		t.Errorf("openapi.yaml plan enum = %v, want %v", got, plans)
	}
}

// TestOpenAPIResponses drives every route through every status it documents
// and validates each response (env.do checks against the spec); then it
// demands that every documented status except 500 was exercised.
func TestOpenAPIResponses(t *testing.T) {
	e := newEnv(t)
	_, key := e.account(account.Agency)
	_, proKey := e.account(account.Pro)
	id := e.mustGenerate(key)
	e.mustGenerate(key)
	oldAcct, oldKey := e.account(account.Agency)
	old := e.seed(oldAcct) // generated with another template version

	for _, r := range []request{
		{method: "POST", path: "/v1/policies/generate", key: key, body: validBody},
		{method: "POST", path: "/v1/policies/generate", key: key, body: `{`},
		{method: "POST", path: "/v1/policies/generate", key: key, body: `{"type":"nope"}`},
		{method: "POST", path: "/v1/policies/generate", key: key, body: `{"x":"` + strings.Repeat("a", api.MaxBodyBytes) + `"}`},
		{method: "POST", path: "/v1/policies/generate", key: key, body: validBody, header: http.Header{"Content-Type": {"text/plain"}}},
		{method: "POST", path: "/v1/policies/generate", body: validBody},
		{method: "POST", path: "/v1/policies/generate", key: proKey, body: validBody},
		{method: "GET", path: "/v1/policies", key: key},
		{method: "GET", path: "/v1/policies?limit=1", key: key},
		{method: "GET", path: "/v1/policies?limit=0", key: key},
		{method: "GET", path: "/v1/policies", key: "pol_live_bad"},
		{method: "GET", path: "/v1/policies", key: proKey},
		{method: "GET", path: "/v1/policies/" + id, key: key},
		{method: "GET", path: "/v1/policies/plc_nope", key: key},
		{method: "GET", path: "/v1/policies/" + id},
		{method: "GET", path: "/v1/policies/" + id, key: proKey},
		{method: "DELETE", path: "/v1/policies/" + id, key: key},
		{method: "DELETE", path: "/v1/policies/" + id, key: key},
		{method: "DELETE", path: "/v1/policies/" + id},
		{method: "DELETE", path: "/v1/policies/" + id, key: proKey},
		{method: "GET", path: "/v1/auth/profile", key: key},
		{method: "GET", path: "/v1/auth/profile"},
		{method: "GET", path: "/v1/auth/profile", key: proKey},
		{method: "GET", path: "/v1/policies/" + id + "?include=evidence", key: key},
		{method: "GET", path: "/v1/policies/" + id + "?include=everything", key: key},
		{method: "GET", path: "/v1/policies/" + old + "?include=evidence", key: oldKey},
		{method: "GET", path: "/v1/catalog", key: key},
		{method: "GET", path: "/v1/catalog", key: proKey},
		{method: "GET", path: "/v1/catalog?x=1", key: key},
		{method: "GET", path: "/v1/catalog"},
		{method: "POST", path: "/v1/policies/bulk", key: key, body: bulkBody(validBody, `{"type":"nope"}`)},
		{method: "POST", path: "/v1/policies/bulk", key: key, body: `{`},
		{method: "POST", path: "/v1/policies/bulk", key: key, body: `{"items":[]}`},
		{method: "POST", path: "/v1/policies/bulk", key: key, body: `{"x":"` + strings.Repeat("a", api.MaxBulkBodyBytes) + `"}`},
		{method: "POST", path: "/v1/policies/bulk", key: key, body: bulkBody(validBody), header: http.Header{"Content-Type": {"text/plain"}}},
		{method: "POST", path: "/v1/policies/bulk", body: bulkBody(validBody)},
		{method: "POST", path: "/v1/policies/bulk", key: proKey, body: bulkBody(validBody)},
		{method: "PUT", path: "/v1/policies/" + id, key: key},
		{method: "GET", path: "/v1/nowhere", key: key},
	} {
		e.do(r)
	}
	// Every route with the policy store down (keys still verified on the
	// working one): 503. TestOutageIs503 measures the real deadline.
	d := e.deps
	d.Store = silentStore(t, 100*time.Millisecond)
	e.h = api.NewServer(d)
	for _, r := range routeRequests(key, id) {
		if rec := e.do(r); rec.Code != http.StatusServiceUnavailable {
			t.Errorf("%s %s with the store down: %d", r.method, r.path, rec.Code)
		}
	}

	// 409 and 429 on a key with small limits: an idempotent request still
	// running, the monthly quota, then every route over the rate.
	lim := newEnv(t)
	lim.spec = e.spec
	lim.setLimits(1, 3)
	limAcct, limKey := lim.account(account.Agency)
	claim := store.IdempotencyClaim{AccountID: limAcct, Key: "running", Owner: "other-request"}
	if _, err := lim.store.BeginIdempotent(t.Context(), claim, fingerprintOf(validBody), lim.clock.Now()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []int{http.StatusConflict, http.StatusCreated, http.StatusTooManyRequests} {
		r := request{method: "POST", path: "/v1/policies/generate", key: limKey, body: validBody}
		if want == http.StatusConflict {
			r.header = http.Header{"Idempotency-Key": {"running"}}
		}
		if rec := lim.do(r); rec.Code != want {
			t.Errorf("limits: %d, want %d: %s", rec.Code, want, rec.Body)
		}
	}
	// The same for bulk: a batch still running (409), and a batch of more
	// valid items than the month has left (429, nothing stored).
	bulk := newEnv(t)
	bulk.spec = e.spec
	bulk.setLimits(1, 10)
	bulkAcct, bulkKey := bulk.account(account.Agency)
	bclaim := store.IdempotencyClaim{AccountID: bulkAcct, Key: "running", Owner: "other-request"}
	two := bulkBody(validBody, validBody)
	if _, err := bulk.store.BeginIdempotent(t.Context(), bclaim, api.Fingerprint("POST", "/v1/policies/bulk", []byte(two)), bulk.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if rec := bulk.do(request{method: "POST", path: "/v1/policies/bulk", key: bulkKey, body: two, header: http.Header{"Idempotency-Key": {"running"}}}); rec.Code != http.StatusConflict {
		t.Errorf("bulk while running: %d", rec.Code)
	}
	if rec := bulk.do(request{method: "POST", path: "/v1/policies/bulk", key: bulkKey, body: two}); rec.Code != http.StatusTooManyRequests {
		t.Errorf("bulk over the quota: %d", rec.Code)
	}
	for _, r := range routeRequests(limKey, id) {
		if rec := lim.do(r); rec.Code != http.StatusTooManyRequests {
			t.Errorf("%s %s over the rate: %d", r.method, r.path, rec.Code)
		}
	}

	var missing []string
	for _, r := range api.Routes() {
		op, _, _ := e.spec.at("/paths/" + escapePointer(specPath(r.Path)) + "/" + strings.ToLower(r.Method) + "/responses")
		for status := range op {
			if status != "500" && !e.spec.seen[r.Name+" "+status] {
				missing = append(missing, r.Name+" "+status)
			}
		}
	}
	for _, k := range []string{"(method) 405", "(route) 404"} {
		if !e.spec.seen[k] {
			missing = append(missing, k)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("documented responses never exercised: %v", missing)
	}
}
