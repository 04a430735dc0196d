package policy

import (
	"strings"
	"testing"
)

// TestLawyerReview pins the defects a privacy lawyer found in the documents
// of template 2026-11-22.2, one case each: every case fails on that text.
func TestLawyerReview(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	base := func(j string, services ...string) Request {
		r := Request{Type: "privacy", BusinessName: "Review Ltd", WebsiteURL: "https://review.example", BusinessType: "ecommerce",
			Language: "en", Jurisdiction: j, Format: "markdown", CollectsPayments: true, CollectsUserData: true,
			ThirdPartyServices: services, ContactEmail: "privacy@review.example"}
		return r
	}
	complete := func(r Request) Request { completeRequest(&r); return r }
	section := func(doc, heading string) string {
		_, after, ok := strings.Cut(doc, "\n## "+heading+"\n")
		if !ok {
			return ""
		}
		if i := strings.Index(after, "\n## "); i >= 0 {
			return after[:i]
		}
		return after
	}
	tests := []struct {
		name    string
		req     Request
		section string // "" for the whole document
		must    []string
		mustNot []string
	}{
		{"CalOPPA: Do Not Track response and tracking by other parties (B&P Code 22575(b)(5)-(6))",
			complete(base("US-CA", "meta-pixel")), "Do Not Track and tracking by others",
			[]string{`"Do Not Track" signal`, "Meta Pixel (Facebook and Instagram ads) may collect personal data about your online activities over time and across different websites"}, nil},
		{"CalOPPA applies below the CCPA thresholds, the CCPA does not",
			func() Request { r := complete(base("US-CA")); r.CCPAThresholdsMet = &no; return r }(), "",
			[]string{"## Do Not Track and tracking by others", "We do not allow other companies"},
			[]string{"California Consumer Privacy Act", "## Your California privacy rights"}},
		{"no claim that no third party receives data: the host always does",
			base("EU"), "Who we share personal data with",
			[]string{"Our website is hosted by"}, []string{"We do not use third-party services"}},
		{"no claim that data stays in the UK while the host or the analytics tool is unknown",
			func() Request { r := base("UK"); r.UsesAnalytics = true; return r }(), "International transfers",
			[]string{"may store or access personal data outside the United Kingdom"}, []string{"We do not transfer"}},
		{"TikTok: access from China named, and the safeguard",
			complete(base("EU", "tiktok-pixel")), "International transfers",
			[]string{"TikTok Pixel", "may also access the data from", "China", "standard contractual clauses adopted by the European Commission"},
			[]string{"data processing terms"}},
		{"EU table names EU mechanisms only",
			complete(base("EU", "stripe", "hubspot")), "International transfers",
			[]string{"EU-U.S. Data Privacy Framework", "standard contractual clauses adopted by the European Commission"},
			[]string{"UK International Data Transfer", "UK Extension"}},
		{"UK table names UK mechanisms only",
			complete(base("UK", "stripe", "hubspot")), "International transfers",
			[]string{"UK Extension to the EU-U.S. Data Privacy Framework", "UK International Data Transfer Addendum"},
			[]string{"adopted by the European Commission (Decision", "Yes: the EU-U.S. Data Privacy Framework"}},
		{"payment providers: independent controllers where their terms say so",
			complete(base("EU", "stripe", "paypal")), "Who we share personal data with",
			[]string{"| Processor (payments); Controller (security) |", "| Controller |"}, nil},
		{"fraud screening rests on legitimate interests, not the contract",
			complete(base("EU", "stripe")), "How we use personal data",
			[]string{"| Keeping our website and services secure and preventing fraud and abuse | Identifiers, Contact details, Payment data",
				"| Taking payments and giving refunds | Contact details, Customer records, Payment data and Purchase history | Our contract with you"}, nil},
		{"Meta Pixel: joint controllers (Art. 26(2), Fashion ID)",
			complete(base("EU", "meta-pixel")), "Who we share personal data with",
			[]string{"For Meta Pixel (Facebook and Instagram ads), we and the provider are joint controllers (Article 26 GDPR)", "You can use your rights with us or with the provider"}, nil},
		{"cookie durations given where known (Planet49)",
			complete(base("EU", "stripe", "cloudflare", "google-ads")), "Cookies and similar technologies",
			[]string{"| \\_\\_stripe\\_mid | Stripe | Fraud prevention: recognises the browser across checkouts | 1 year |", "| \\_gcl\\_au | Google Ads (conversion tracking and remarketing) | Stores ad click and campaign information so that conversions can be attributed to Google ads | 3 months |"},
			[]string{"see the provider's cookie policy"}},
		{"no cookie banner asserted when the request does not say there is one",
			base("EU", "google-analytics"), "Cookies and similar technologies",
			[]string{"[how we ask for consent to cookies: send consentBanner\\]"}, []string{"cookie banner"}},
		{"no consent mechanism claimed when there is no banner",
			func() Request { r := complete(base("EU", "google-analytics")); r.ConsentBanner = &no; return r }(), "",
			[]string{"You can block or delete cookies in your browser settings"}, []string{"cookie banner", "cookie settings on our website"}},
		{"retention: a period where one is given, otherwise said to be the rule that decides it",
			func() Request {
				r := complete(base("EU"))
				r.Retention = map[string]string{"orders": "6 years after the order"}
				return r
			}(), "How long we keep personal data",
			[]string{"Where we cannot give a fixed period, it gives the rule we use to decide.", "| Handling, delivering and supporting your orders | 6 years after the order. |"}, nil},
		{"no Art. 27 representative wording for a business established in the EU",
			func() Request { r := complete(base("EU")); r.EstablishedIn = "DE"; r.EURepresentative = ""; return r }(), "",
			nil, []string{"representative", "Article 27"}},
		{"an Art. 27 representative named for a business established outside the UK",
			complete(base("UK")), "Who we are and how to contact us",
			[]string{"We are not established in the United Kingdom. Our representative there (Article 27 UK GDPR) is Rep UK Ltd"}, nil},
		{"email tracking pixels disclosed (PECR reg. 6)",
			complete(base("UK", "mailchimp")), "Tracking in our emails",
			[]string{"Emails we send with Mailchimp can contain a tracking pixel"}, nil},
		{"no template version in the text consumers read",
			complete(base("EU")), "", nil, []string{"Template version", TemplateVersion}},
		{"no toll-free number asked of an online-only business",
			func() Request { r := complete(base("US-CA")); r.OnlineOnly = &yes; r.TollFreeNumber = ""; return r }(), "Your California privacy rights",
			[]string{"- by email to"}, []string{"toll-free"}},
		{"a transfer with no safeguard the catalog knows is a todo, not a ready document (Art. 13(1)(f))",
			func() Request { r := complete(base("UK", "google-analytics")); r.TransferSafeguards = nil; return r }(), "",
			[]string{"Not recorded in this policy"}, nil},
		{"a safeguard the business states is named",
			func() Request {
				r := complete(base("UK", "google-analytics"))
				r.TransferSafeguards = map[string][]string{"google-analytics": {"uk_addendum"}}
				return r
			}(), "International transfers",
			[]string{"| Google Analytics | United States | No | The UK International Data Transfer Addendum"}, []string{"Not recorded"}},
		{"card data is not kept as an accounting record (PCI DSS forbids keeping the security code)",
			complete(base("EU", "stripe")), "How we use personal data",
			[]string{"| Meeting our legal duties, such as keeping tax and accounting records | Contact details, Customer records and Purchase history |"}, nil},
		{"a blog that collects nothing from people claims no customer records, even from its host",
			func() Request {
				r := complete(base("US-CA"))
				r.CollectsPayments, r.CollectsUserData, r.BusinessType = false, false, "blog"
				r.CCPAThresholdsMet = &no
				return r
			}(), "", []string{"| Identifiers and Usage data |"}, []string{"Customer records", "explains your rights"}},
		{"email tracking consent can be withdrawn",
			complete(base("EU", "mailchimp")), "Tracking in our emails",
			[]string{"you can withdraw your agreement at any time"}, nil},
		{"no opt-out link or signal processing claimed without the input saying the website has them",
			func() Request { r := complete(base("US-CA", "meta-pixel")); r.OptOutLink = &no; return r }(), "Your California privacy rights",
			[]string{"you can tell us not to sell or share your personal data by contacting us at", "does not yet process opt-out preference signals"},
			[]string{"We process opt-out preference signals", "Use the \"Do Not Sell or Share My Personal Information\" link"}},
		{"a summary and a table of contents come first",
			complete(base("EU")), "", []string{"# Privacy Policy\n\n## Summary\n", "## Contents\n\n- [About this policy](<#about-this-policy>)"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Generate(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content
			if tt.section != "" {
				text = section(res.Content, tt.section)
				if text == "" {
					t.Fatalf("no section %q in:\n%s", tt.section, res.Content)
				}
			}
			for _, m := range tt.must {
				if !strings.Contains(text, m) {
					t.Errorf("missing %q in:\n%s", m, text)
				}
			}
			for _, m := range tt.mustNot {
				if strings.Contains(text, m) {
					t.Errorf("must not say %q:\n%s", m, text)
				}
			}
		})
	}
}
