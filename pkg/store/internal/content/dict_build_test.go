package content_test

import (
	"encoding/json"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/policygen/policygen/pkg/policy"
	"github.com/policygen/policygen/pkg/store"
)

// buildDict writes a new preset dictionary to the path given. A dictionary
// is frozen once items are stored with it: never overwrite dict1.txt, add
// dict2.txt (and a new encoding byte in content.go) instead.
var (
	buildDict    = flag.String("build-dict", "", "write a new preset dictionary built from representative documents to this file")
	buildDictFor = flag.String("build-dict-for", "gdpr", "which documents the dictionary is for: gdpr (EU, UK) or ccpa (US-CA)")
)

// corpora are what the dictionaries are built from: requests across the
// business types and inputs people send, one set per family of laws.
var corpora = map[string][]string{"gdpr": {
	`{"type":"privacy","businessName":"Northwind Goods GmbH","websiteUrl":"https://northwind.example","businessType":"ecommerce","jurisdiction":"DE","collectsPayments":true,"collectsUserData":true,"usesAnalytics":true,"thirdPartyServices":["stripe","google-analytics","mailchimp","shopify","meta-pixel"],"contactEmail":"privacy@northwind.example","postalAddress":"Hauptstraße 5, 10115 Berlin","establishedIn":"DE","consentBanner":true}`,
	`{"type":"privacy","businessName":"Alpen Outdoor SE","websiteUrl":"https://alpen.example","businessType":"ecommerce","jurisdiction":"AT","collectsPayments":true,"collectsUserData":true,"usesAnalytics":true,"thirdPartyServices":["paypal","google-analytics","cloudflare","meta-pixel","google-ads"],"contactEmail":"privacy@alpen.example","postalAddress":"Ring 1, 1010 Wien","phone":"+43 1 234567","establishedIn":"AT","hostingProvider":"aws","consentBanner":true,"dpoContact":"dpo@alpen.example"}`,
	`{"type":"privacy","businessName":"Fjord Apps","websiteUrl":"https://fjord.example","businessType":"saas","jurisdiction":"EU","collectsPayments":true,"collectsUserData":true,"usesAnalytics":true,"thirdPartyServices":["paypal","hotjar","sendgrid","aws","intercom"]}`,
	`{"type":"privacy","businessName":"Harbour Tea Ltd","websiteUrl":"https://harbour.example","businessType":"ecommerce","jurisdiction":"UK","collectsPayments":true,"collectsUserData":true,"usesAnalytics":true,"thirdPartyServices":["stripe","google-analytics","klaviyo"],"contactEmail":"privacy@harbour.example","hostingProvider":"shopify","consentBanner":true}`,
	`{"type":"privacy","businessName":"Lumen Studio","websiteUrl":"https://lumen.example","businessType":"saas","jurisdiction":"FR","collectsPayments":true,"collectsUserData":true,"usesAnalytics":true,"thirdPartyServices":["stripe","google-analytics","meta-pixel","hubspot"]}`,
}, "ccpa": {
	`{"type":"privacy","businessName":"Golden Gate Crafts, Inc.","websiteUrl":"https://ggc.example","businessType":"marketplace","jurisdiction":"US-CA","collectsPayments":true,"collectsUserData":true,"usesAnalytics":true,"thirdPartyServices":["stripe","google-analytics","tiktok-pixel","zendesk","mailchimp"],"contactEmail":"privacy@ggc.example","ccpaThresholdsMet":true,"optOutLink":true}`,
	`{"type":"privacy","businessName":"Pacific Notes","websiteUrl":"https://pn.example","businessType":"blog","jurisdiction":"US-CA","collectsPayments":false,"collectsUserData":true,"usesAnalytics":true,"thirdPartyServices":["google-analytics","mailchimp"]}`,
	`{"type":"privacy","businessName":"Bay Fitness LLC","websiteUrl":"https://bayfit.example","businessType":"saas","jurisdiction":"US-CA","collectsPayments":true,"collectsUserData":true,"usesAnalytics":true,"thirdPartyServices":["stripe","google-analytics","meta-pixel","intercom","sendgrid"],"hostingProvider":"aws","contactEmail":"privacy@bayfit.example","postalAddress":"1 Main St, Oakland, CA 94607","tollFreeNumber":"(800) 555-0100","ccpaThresholdsMet":true,"optOutLink":false}`,
	`{"type":"privacy","businessName":"Sierra Outfitters","websiteUrl":"https://sierra.example","businessType":"ecommerce","jurisdiction":"US-CA","collectsPayments":true,"collectsUserData":true,"usesAnalytics":true,"thirdPartyServices":["shopify","klaviyo","google-ads","hotjar"],"ccpaThresholdsMet":false}`,
}}

func TestBuildDictionary(t *testing.T) {
	if *buildDict == "" {
		t.Skip("run with -build-dict=FILE to write a new dictionary")
	}
	var summaries, docs []string
	corpus, ok := corpora[*buildDictFor]
	if !ok {
		t.Fatalf("-build-dict-for %q: want gdpr or ccpa", *buildDictFor)
	}
	for _, body := range corpus {
		req, err := policy.ParseRequest([]byte(body))
		if err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		res, err := policy.Generate(req)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := json.Marshal(store.NewPolicy("acct_x", res, time.Now()).Summary)
		if err != nil {
			t.Fatal(err)
		}
		summaries = append(summaries, string(sum))
		docs = append(docs, res.Content)
	}
	// Lines that recur across documents are worth most; they go last, where
	// DEFLATE's 32 KB window still reaches them late in a document. Two
	// summaries open the dictionary (a summary is short, so it reaches back
	// that far).
	count := map[string]int{}
	var order []string
	for _, d := range docs {
		for _, l := range strings.SplitAfter(d, "\n") {
			if len(strings.TrimSpace(l)) < 8 {
				continue
			}
			if count[l] == 0 {
				order = append(order, l)
			}
			count[l]++
		}
	}
	slices.SortStableFunc(order, func(a, b string) int { return count[a] - count[b] })
	const size = 32 << 10
	var tail []string
	n := len(summaries[0]) + len(summaries[1])
	for i := len(order) - 1; i >= 0 && n+len(order[i]) <= size; i-- {
		tail = append(tail, order[i])
		n += len(order[i])
	}
	slices.Reverse(tail)
	dict := summaries[0] + summaries[1] + strings.Join(tail, "")
	if err := os.WriteFile(*buildDict, []byte(dict), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d bytes", *buildDict, len(dict))
}
