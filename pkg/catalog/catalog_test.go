package catalog

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// TestEmbedded loads the real embedded data strictly: a bad edit to
// catalog.json or services.json fails here, not in a request.
func TestEmbedded(t *testing.T) {
	c, err := Load(embedded)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Services) < 20 {
		t.Errorf("catalog has %d services, want at least 20", len(c.Services))
	}
	for _, want := range []string{"analytics", "payments", "email_marketing", "advertising"} {
		n := 0
		for _, s := range c.Services {
			if s.Category == want {
				n++
			}
		}
		if n == 0 {
			t.Errorf("no service in category %s", want)
		}
	}
	for _, j := range []string{"EU", "UK", "US-CA"} {
		if _, ok := c.Jurisdiction(j); !ok {
			t.Errorf("jurisdiction %s missing", j)
		}
	}
	d, err := Default()
	if err != nil || len(d.Services) != len(c.Services) {
		t.Fatalf("Default() = %d services, %v", len(d.Services), err)
	}
	ids := d.ServiceIDs()
	for i := 1; i < len(ids); i++ {
		if ids[i-1] >= ids[i] {
			t.Fatalf("service ids not sorted: %q before %q", ids[i-1], ids[i])
		}
	}
}

const goodService = `{"id":"svc","name":"Svc","category":"analytics","provider":"P Inc.","providerCountry":"US","euEntity":null,
 "purpose":"Measures.","dataCategories":["identifiers"],"setsCookies":true,"cookies":[{"name":"_x","purpose":"id","duration":"1 day"}],
 "privacyPolicyUrl":"https://p.example/privacy","dpaUrl":null,"dataPrivacyFramework":null,"jointController":null,
 "ccpaRole":"service_provider","essential":false,"sources":[{"fact":"f","url":"https://p.example","via":"v"}]}`

func catalogFS(t *testing.T, services string) fs.FS {
	t.Helper()
	base, err := fs.ReadFile(embedded, "data/catalog.json")
	if err != nil {
		t.Fatal(err)
	}
	return fstest.MapFS{
		"data/catalog.json":  {Data: base},
		"data/services.json": {Data: []byte(services)},
	}
}

func TestLoadRejects(t *testing.T) {
	tests := []struct {
		name, services, want string
	}{
		{"unknown field", `[` + strings.Replace(goodService, `"id":"svc"`, `"id":"svc","colour":"red"`, 1) + `]`, "unknown field"},
		{"duplicate id", `[` + goodService + `,` + goodService + `]`, `duplicate id "svc"`},
		{"unknown data category", `[` + strings.Replace(goodService, `["identifiers"]`, `["shoe_size"]`, 1) + `]`, `unknown value "shoe_size"`},
		{"unknown category", `[` + strings.Replace(goodService, `"analytics"`, `"astrology"`, 1) + `]`, `unknown value "astrology"`},
		{"unknown role", `[` + strings.Replace(goodService, `"service_provider"`, `"friend"`, 1) + `]`, `unknown value "friend"`},
		{"http policy url", `[` + strings.Replace(goodService, `https://p.example/privacy`, `http://p.example/privacy`, 1) + `]`, "privacyPolicyUrl"},
		{"cookies without setsCookies", `[` + strings.Replace(goodService, `"setsCookies":true`, `"setsCookies":false`, 1) + `]`, "setsCookies is not true"},
		{"cookies with unknown setsCookies", `[` + strings.Replace(goodService, `"setsCookies":true`, `"setsCookies":null`, 1) + `]`, "setsCookies is not true"},
		{"payment provider as third party", `[` + strings.NewReplacer(`"analytics"`, `"payments"`, `"service_provider"`, `"third_party"`).Replace(goodService) + `]`, "payment provider must have ccpaRole service_provider"},
		{"no sources", `[` + strings.Replace(goodService, `[{"fact":"f","url":"https://p.example","via":"v"}]`, `[]`, 1) + `]`, "no sources"},
		{"bad country", `[` + strings.Replace(goodService, `"US"`, `"USA"`, 1) + `]`, "providerCountry"},
		{"trailing data", `[` + goodService + `] []`, "trailing data"},
		{"alias naming another service", `[` + goodService + `,` + strings.Replace(goodService, `"id":"svc","name":"Svc"`, `"id":"svc2","name":"Svc Two","aliases":["SVC"]`, 1) + `]`, `service ids, names and aliases: duplicate id "svc"`},
	}
	if _, err := Load(catalogFS(t, `[`+goodService+`]`)); err != nil {
		t.Fatalf("good service rejected: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(catalogFS(t, tt.services))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load() error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestSetsCookiesUnknown: null in services.json means "not verified" and
// must stay distinguishable from false.
func TestSetsCookiesUnknown(t *testing.T) {
	noCookies := strings.Replace(goodService, `"cookies":[{"name":"_x","purpose":"id","duration":"1 day"}]`, `"cookies":[]`, 1)
	tests := []struct {
		name, value    string
		known, unknown bool
	}{
		{"true", "true", true, false},
		{"false", "false", false, false},
		{"null", "null", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(catalogFS(t, `[`+strings.Replace(noCookies, `"setsCookies":true`, `"setsCookies":`+tt.value, 1)+`]`))
			if err != nil {
				t.Fatal(err)
			}
			s := c.Services[0]
			if s.SetsCookiesKnown() != tt.known || s.CookiesUnknown() != tt.unknown {
				t.Errorf("SetsCookiesKnown() = %v, CookiesUnknown() = %v; want %v, %v", s.SetsCookiesKnown(), s.CookiesUnknown(), tt.known, tt.unknown)
			}
		})
	}
	// The real data: the services the catalog could not verify.
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"aws", "braintree", "square", "typeform"} {
		if s, ok := d.Service(id); !ok || !s.CookiesUnknown() {
			t.Errorf("service %s: want setsCookies unknown (null)", id)
		}
	}
}

func TestLoadRejectsBadVocabulary(t *testing.T) {
	tests := []struct{ name, file, from, to, want string }{
		{"unknown basis", "catalog.json", `"gdprBasis": "consent"`, `"gdprBasis": "whim"`, `unknown value "whim"`},
		{"unknown purpose in business type", "catalog.json", `"purposes": ["account", "orders"`, `"purposes": ["account", "gossip"`, `unknown value "gossip"`},
		{"jurisdiction id not its file name", "jurisdictions/UK.json", `"id": "UK"`, `"id": "EU"`, `id "EU" does not match the file name`},
		{"alias meaning two jurisdictions", "jurisdictions/US-CA.json", `"aliases": ["California"]`, `"aliases": ["great-britain"]`, `jurisdiction ids and aliases: duplicate id "greatbritain"`},
		{"alias equal to another id", "jurisdictions/US-CA.json", `"aliases": ["California"]`, `"aliases": ["us ca", "UK"]`, `duplicate id "uk"`},
		{"unknown ccpa letter", "catalog.json", `"ccpa": ["K"]`, `"ccpa": ["Z"]`, `unknown value "Z"`},
		{"unknown purpose of a category", "catalog.json", `"sensitive": true, "purposes": ["account"`, `"sensitive": true, "purposes": ["gossip"`, `unknown value "gossip"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{"data/services.json": {Data: []byte(`[` + goodService + `]`)}}
			files, err := fs.Glob(embedded, "data/jurisdictions/*.json")
			if err != nil || len(files) == 0 {
				t.Fatalf("no jurisdiction files: %v", err)
			}
			for _, name := range append(files, "data/catalog.json") {
				b, err := fs.ReadFile(embedded, name)
				if err != nil {
					t.Fatal(err)
				}
				fsys[name] = &fstest.MapFile{Data: b}
			}
			name := "data/" + tt.file
			base := string(fsys[name].Data)
			mod := strings.Replace(base, tt.from, tt.to, 1)
			if mod == base {
				t.Fatalf("test edit %q not found in %s", tt.from, tt.file)
			}
			fsys[name] = &fstest.MapFile{Data: []byte(mod)}
			_, err = Load(fsys)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load() error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestIndexes: the id lookups answer the same for the catalog's own
// strings (found by address) and for copies of them (found by text), and
// -1 for an unknown id.
func TestIndexes(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	hits := 0
	for i, d := range c.DataCategories {
		if got := c.DataCategoryIndex(d.ID); got != i {
			t.Errorf("DataCategoryIndex(%q) = %d, want %d", d.ID, got, i)
		}
		if got := c.DataCategoryIndex(strings.Clone(d.ID)); got != i {
			t.Errorf("DataCategoryIndex(copy of %q) = %d, want %d", d.ID, got, i)
		}
		if _, ok := c.dataCategoryPtrs.get(d.ID); ok {
			hits++
		}
	}
	for i, p := range c.Purposes {
		if got := c.PurposeIndex(p.ID); got != i {
			t.Errorf("PurposeIndex(%q) = %d, want %d", p.ID, got, i)
		}
		if got := c.PurposeIndex(strings.Clone(p.ID)); got != i {
			t.Errorf("PurposeIndex(copy of %q) = %d, want %d", p.ID, got, i)
		}
	}
	// References elsewhere in the catalog are registered too.
	for _, bt := range c.BusinessTypes {
		for _, id := range bt.DataCategories {
			if pos, ok := c.dataCategoryPtrs.get(id); !ok || c.DataCategories[pos].ID != id {
				t.Errorf("business type %s: category %q not registered by address (%d, %v)", bt.ID, id, pos, ok)
			}
		}
		for _, id := range bt.Purposes {
			if pos, ok := c.purposePtrs.get(id); !ok || c.Purposes[pos].ID != id {
				t.Errorf("business type %s: purpose %q not registered by address (%d, %v)", bt.ID, id, pos, ok)
			}
		}
	}
	if hits != len(c.DataCategories) {
		t.Errorf("%d of %d category ids registered by address", hits, len(c.DataCategories))
	}
	if _, ok := c.dataCategoryPtrs.get(strings.Clone(c.DataCategories[0].ID)); ok {
		t.Error("a copy of an id was found by address")
	}
	for i, sv := range c.Services {
		if got := c.ServiceIndex(sv.ID); got != i {
			t.Errorf("ServiceIndex(%q) = %d, want %d", sv.ID, got, i)
		}
		if got := c.ServiceIndex(strings.Clone(sv.ID)); got != i {
			t.Errorf("ServiceIndex(copy of %q) = %d, want %d", sv.ID, got, i)
		}
		if pos, ok := c.servicePtrs.get(c.ServiceIDs()[i]); !ok || pos != i {
			t.Errorf("service %s: id not registered by address (%d, %v)", sv.ID, pos, ok)
		}
	}
	if c.DataCategoryIndex("no-such-category") != -1 || c.PurposeIndex("no-such-purpose") != -1 || c.ServiceIndex("no-such-service") != -1 {
		t.Error("an unknown id has a position")
	}
}
