package policy

import (
	"slices"
	"strings"
	"testing"
)

// BenchmarkGenerateLargest finds the largest documents the engine writes
// (every type x jurisdiction and the matrix's multi-jurisdiction lists,
// each with every data practice, one catalog service of each category and
// every optional input) and benchmarks the three largest single-jurisdiction documents
// and the largest multi-jurisdiction one: issue 8 bounds any document at
// 1 ms and 300 KB, a multi-jurisdiction one at 2 ms (docs/BENCHMARKS.md).
func BenchmarkGenerateLargest(b *testing.B) {
	single, multi := largestDocuments(b)
	run := func(label string, d largestDoc) {
		b.Run(label+"/"+strings.ReplaceAll(d.name, ",", "+"), func(b *testing.B) {
			res, err := Generate(d.req)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Generate(d.req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(res.Content)), "doc-bytes")
		})
	}
	for _, d := range single[:min(3, len(single))] {
		run("single", d)
	}
	if len(multi) == 0 {
		return
	}
	// The largest document is chosen by its Markdown; it is also timed in
	// the other formats, whose text is longer (HTML's tags, the text
	// format's indents), since every document in every format is bound.
	run("multi", multi[0])
	for _, format := range Formats {
		if format != multi[0].req.Format {
			d := multi[0]
			d.req.Format = format
			run("multi-"+format, d)
		}
	}
}

// largestDoc is a request of BenchmarkGenerateLargest's with the size of
// its document.
type largestDoc struct {
	name string
	req  Request
	size int
}

// largestDocuments generates every document BenchmarkGenerateLargest
// chooses from and returns the single- and multi-jurisdiction ones,
// each largest first.
func largestDocuments(b *testing.B) (single, multi []largestDoc) {
	c := mustCatalog(b)
	for _, typ := range matrixTypes(c) {
		for _, j := range matrixJurisdictions(c) {
			req := Request{
				Type: typ, BusinessName: "Largest Ltd", WebsiteURL: "https://largest.example",
				BusinessType: "marketplace", Language: "en", Jurisdiction: j, Format: "markdown",
				CollectsPayments: true, CollectsUserData: true, UsesAnalytics: true,
				ThirdPartyServices: serviceMix(c),
			}
			completeRequest(&req)
			res, err := Generate(req)
			if err != nil {
				b.Fatalf("%s/%s: %v", typ, j, err)
			}
			d := largestDoc{typ + "/" + j, req, len(res.Content)}
			if strings.Contains(j, ",") {
				multi = append(multi, d)
			} else {
				single = append(single, d)
			}
		}
	}
	bySize := func(a, b largestDoc) int { return b.size - a.size }
	slices.SortStableFunc(single, bySize)
	slices.SortStableFunc(multi, bySize)
	return single, multi
}

// BenchmarkResultString copies bytes the size of the largest document
// (BenchmarkGenerateLargest's multi) into a new string, as Generate
// copies the rendered text out of its pooled buffer for the Result: what
// the machine charges for the new string alone, which is part of that
// document's time. The bytes copied are the document's own. The string
// lands in memory the collector freed many documents earlier, so the
// figure is mostly the cost of writing to memory out of the caches; the
// same copy into memory just written takes a few microseconds.
func BenchmarkResultString(b *testing.B) {
	_, multi := largestDocuments(b)
	if len(multi) == 0 {
		b.Skip("no multi-jurisdiction document")
	}
	res, err := Generate(multi[0].req)
	if err != nil {
		b.Fatal(err)
	}
	buf := []byte(res.Content)
	b.ReportAllocs()
	for b.Loop() {
		resultSink = string(buf)
	}
	b.ReportMetric(float64(len(buf)), "doc-bytes")
}

// resultSink keeps BenchmarkResultString's strings from being optimised
// away.
var resultSink string

// standardRequest is issue 9's standard document: the EU privacy policy of
// an online shop with four services.
const standardRequest = `{"type":"privacy","businessName":"Brightleaf Books","websiteUrl":"https://brightleaf.example","businessType":"ecommerce",
"jurisdiction":"EU","collectsPayments":true,"collectsUserData":true,"usesAnalytics":true,
"thirdPartyServices":["stripe","google-analytics","mailchimp","cloudflare"],
"contactEmail":"privacy@brightleaf.example","hostingProvider":"aws","establishedIn":"DE","consentBanner":true}`

// BenchmarkGenerateFormats generates the standard document in each output
// format (issue 9, target 1: every format within 1.5 times the cheapest).
func BenchmarkGenerateFormats(b *testing.B) {
	for _, format := range Formats {
		b.Run(format, func(b *testing.B) {
			req, err := ParseRequest([]byte(standardRequest))
			if err != nil {
				b.Fatal(err)
			}
			req.Format = format
			// One document before the timed loop: the process's first
			// also compiles the clause library and the laws (about 35 ms,
			// once per process), which would otherwise land on whichever
			// format runs first and be spread over however many documents
			// the run times.
			if _, err := Generate(req); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Generate(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
