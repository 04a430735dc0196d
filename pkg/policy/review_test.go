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
			checkReviewText(t, res.Content, tt.section, tt.must, tt.mustNot)
		})
	}
}

// TestLawyerReviewIssue8 pins the findings of the privacy and consumer-law
// review of the issue 8 documents (docs/legal/review-2026-11-26.md): each
// case failed on the text of template 2026-11-26.1 before the review.
func TestLawyerReviewIssue8(t *testing.T) {
	t.Parallel()
	// req is a complete request of the given type and jurisdiction with
	// extra JSON fields (without braces) added.
	req := func(typ, jurisdiction, extra string) string {
		body := `{"type": "` + typ + `", "businessName": "Review Co", "websiteUrl": "https://review.example",
			"businessType": "ecommerce", "jurisdiction": "` + jurisdiction + `", "collectsPayments": true,
			"collectsUserData": true, "usesAnalytics": false, "contactEmail": "help@review.example",
			"postalAddress": "1 Main St, Springfield", "effectiveDate": "2026-11-26"`
		if extra != "" {
			body += ", " + extra
		}
		return body + "}"
	}
	analytics := func(body string) string {
		return strings.Replace(body, `"usesAnalytics": false`, `"usesAnalytics": true`, 1)
	}
	const terms = `"governingLaw": "California", "minimumAge": 18, "subscriptions": {"autoRenews": true, "billingPeriod": "month", "cancellation": "email"}`
	const refund = `"refundWindowDays": 30, "returnShippingPaidBy": "customer"`
	tests := []struct {
		name    string
		body    string
		section string // "" for the whole document
		must    []string
		mustNot []string
	}{
		{"FTC Mail Order Rule: a bank card refund is due in seven working days; one billing cycle only where the seller is the creditor (16 CFR 435.1(b))",
			req("shipping", "US", `"shippingRegions": ["US"], "dispatchDays": 1`), "Shipping times and delays (United States)",
			[]string{"We send it within seven working days; for a card payment, we send the credit to your card company within that time.", "credit that we ourselves gave you"},
			[]string{"if you paid by credit card, we credit your account within one billing cycle"}},
		{"the same in the refund policy's paragraph on orders that cannot ship",
			req("refund", "US-CA", refund), "How and when we refund",
			[]string{"We send it within seven working days; for a card payment, we send the credit to your card company within that time."},
			[]string{"If you paid by credit card, we credit your account within one billing cycle."}},
		{"no promise to deliver to every country",
			req("shipping", "US", `"shippingRegions": ["worldwide"], "dispatchDays": 1`), "Where we ship",
			[]string{"our checkout shows whether we deliver to yours"}, []string{"every country"}},
		{"terms: no general claim that liability for negligent personal injury can never be excluded; California's Civil Code § 1668 instead",
			req("terms", "US-CA", terms), "Our responsibility to you",
			[]string{"Nothing in these terms excludes or limits liability that the law does not allow to be excluded or limited.", "California Civil Code section 1668"},
			[]string{"such as liability for death or personal injury caused by negligence"}},
		{"EULA: the same",
			req("eula", "US-CA", terms), "",
			[]string{"Nothing in this licence excludes or limits liability that the law does not allow to be excluded or limited.", "California Civil Code section 1668"},
			[]string{"such as liability for death or personal injury caused by negligence"}},
		{"UK terms keep the statutory rule on negligent death or injury (CRA 2015 s. 65)",
			req("terms", "UK", `"governingLaw": "GB-EAW", "minimumAge": 18`), "Our responsibility to you",
			[]string{"Consumer Rights Act 2015, section 65"}, []string{"California"}},
		{"Canada: a province's laws and the federal laws of Canada that apply there, and its courts (Constitution Act, 1867, s. 92(13))",
			req("terms", "CA", `"governingLaw": "Québec", "minimumAge": 18`), "Law and courts",
			[]string{"These terms are governed by the laws of the Province of Quebec and the federal laws of Canada that apply there, and the courts of Quebec may hear disputes about them."},
			[]string{"the law of Canada", "courts of Canada"}},
		{"Canada: a territory in a licence",
			req("eula", "CA", `"governingLaw": "CA-NT", "minimumAge": 18`), "Law and courts",
			[]string{"This licence and any dispute about it are governed by the laws of the Northwest Territories and the federal laws of Canada that apply there, and the courts of the Northwest Territories may hear disputes about them."},
			nil},
		{"other governing laws keep \"the law of\"",
			req("terms", "UK", `"governingLaw": "Scotland", "minimumAge": 18`), "Law and courts",
			[]string{"These terms are governed by the law of Scotland, and the courts of Scotland may hear disputes about them."}, nil},
		{"California: cancelling by email is a ready-made email the consumer sends without adding anything (B&P Code § 17602(d)(1)(B))",
			req("terms", "US-CA", terms), "Subscriptions",
			[]string{"ready-made cancellation email", "without adding anything"},
			[]string{"Say that you want to cancel"}},
		{"outside California the email cancellation stays as it was",
			req("terms", "UK", `"governingLaw": "GB-EAW", "minimumAge": 18, "subscriptions": {"autoRenews": true, "billingPeriod": "month", "cancellation": "email"}`), "Subscriptions",
			[]string{"Say that you want to cancel"}, []string{"ready-made cancellation email"}},
		{"no cookie purpose for a cookieless analytics tool (the services table says it uses no cookies)",
			analytics(req("privacy", "US", `"thirdPartyServices": ["plausible", "calendly"], "hostingProvider": "aws", "ccpaThresholdsMet": false, "onlineOnly": true, "directedToChildren": false`)), "Cookies and similar technologies",
			nil, []string{"Learning how visitors use our website"}},
		{"an analytics tool that sets cookies is still a cookie purpose",
			analytics(req("privacy", "US", `"thirdPartyServices": ["google-analytics"], "hostingProvider": "aws", "ccpaThresholdsMet": false, "onlineOnly": true, "directedToChildren": false`)), "Cookies and similar technologies",
			[]string{"Learning how visitors use our website"}, nil},
		{"COPPA notice: disclosures to children's data recipients do not exclude those the law requires, which the sharing section describes",
			strings.Replace(req("privacy", "US", `"thirdPartyServices": ["stripe"], "hostingProvider": "aws", "phone": "+1 503 555 0142", "ccpaThresholdsMet": false, "onlineOnly": true, "directedToChildren": true`), `"ecommerce"`, `"childrens_services"`, 1), "Children under 13",
			[]string{"for the purposes given there, which include disclosures the law requires"}, []string{"recipients named in"}},
		{"Australia, no change-of-mind returns: no conditions or postage for returns that are not accepted",
			req("refund", "Australia", `"refundWindowDays": 0, "returnShippingPaidBy": "customer"`), "",
			[]string{"We do not accept change-of-mind returns, so we set no conditions for them.", "so there is no return postage for you to pay"},
			[]string{"If you return an item because you changed your mind", "If you return an item because you have changed your mind, you pay"}},
		{"Australia: the right to reject is lost for damage after delivery only when the supplier is not at fault (ACL s. 262; ACCC)",
			req("refund", "Australia", refund), "Faulty, damaged or wrong items",
			[]string{"thrown away, destroyed, lost or damaged through no fault of ours", "attached to other property"},
			[]string{"or if the goods were lost, destroyed or damaged after delivery"}},
		{"Australia with a change-of-mind window keeps its conditions and postage",
			req("refund", "Australia", refund), "",
			[]string{"If you return an item because you changed your mind, please send it back unused", "you pay the cost of sending it back"},
			[]string{"so we set no conditions for them"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkReviewText(t, generateBody(t, tt.body), tt.section, tt.must, tt.mustNot)
		})
	}
}

// TestLawyerReviewIssue8Flags pins the flags the review added: a warning
// where a document states what the law requires but cannot do itself.
func TestLawyerReviewIssue8Flags(t *testing.T) {
	t.Parallel()
	body := `{"type": "terms", "businessName": "Review Co", "websiteUrl": "https://review.example",
		"businessType": "ecommerce", "jurisdiction": "US-CA", "collectsPayments": true, "collectsUserData": true,
		"usesAnalytics": false, "contactEmail": "help@review.example", "governingLaw": "California", "minimumAge": 18,
		"subscriptions": {"autoRenews": true, "billingPeriod": "month", "cancellation": "email"}, "effectiveDate": "2026-11-26"}`
	for _, tc := range []struct {
		name, replace, with string
		want                bool
	}{
		{"California, renewing subscriptions: ca_arl_practices (B&P Code § 17602(a), (d))", "", "", true},
		{"California, no subscriptions: no flag", `{"autoRenews": true, "billingPeriod": "month", "cancellation": "email"}`, `false`, false},
		{"outside California: no flag", `"jurisdiction": "US-CA"`, `"jurisdiction": "UK"`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := body
			if tc.replace != "" {
				b = strings.Replace(b, tc.replace, tc.with, 1)
			}
			r, err := ParseRequest([]byte(b))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Generate(r)
			if err != nil {
				t.Fatal(err)
			}
			got := false
			for _, f := range res.Flags {
				if f.Code == "ca_arl_practices" {
					got = true
				}
			}
			if got != tc.want {
				t.Errorf("ca_arl_practices raised: %v, want %v (flags %v)", got, tc.want, res.Flags)
			}
		})
	}
}

// TestLawyerReviewSecond pins the findings of the second review of issue 8
// (docs/legal/review2-2026-11-26.md), on documents no golden file shows:
// each case failed on the text of template 2026-11-26.1 before the review.
func TestLawyerReviewSecond(t *testing.T) {
	t.Parallel()
	// req is a complete ecommerce request of the given type and
	// jurisdiction with extra JSON fields (without braces) added.
	req := func(typ, jurisdiction, extra string) string {
		body := `{"type": "` + typ + `", "businessName": "Review Co", "websiteUrl": "https://review.example",
			"businessType": "ecommerce", "jurisdiction": "` + jurisdiction + `", "collectsPayments": true,
			"collectsUserData": true, "usesAnalytics": false, "contactEmail": "help@review.example",
			"postalAddress": "1 Main St, Springfield", "hostingProvider": "aws", "effectiveDate": "2026-11-26"`
		if extra != "" {
			body += ", " + extra
		}
		return body + "}"
	}
	const sub = `"minimumAge": 18, "subscriptions": {"autoRenews": true, "billingPeriod": "month", "cancellation": "online"}`
	const blanketBusiness = "If you use our service for the purposes of a business, we are not liable to you for loss of profit, revenue, business or data."
	tests := []struct {
		name    string
		body    string
		section string // "" for the whole document
		must    []string
		mustNot []string
	}{
		{"U.S. states: advertising data is kept until its cookies expire; no consent the policy never asks for",
			req("privacy", "US-TX, US-MD", `"thirdPartyServices": ["meta-pixel", "youtube"], "optOutLink": true`), "",
			[]string{"Until the ad cookies listed in this policy expire"},
			[]string{"or you withdraw your consent if that is sooner"}},
		{"U.S. federal document: the same",
			req("privacy", "US", `"thirdPartyServices": ["meta-pixel", "youtube"], "optOutLink": true`), "",
			[]string{"Until the ad cookies listed in this policy expire"},
			[]string{"or you withdraw your consent if that is sooner"}},
		{"Australia: a business can be a consumer (ACL s. 3), so the business users' exclusion keeps the consumer guarantees",
			req("terms", "AU", sub+`, "governingLaw": "AU"`), "Our responsibility to you",
			[]string{"except our liability under the consumer guarantees of the Australian Consumer Law", "$100,000 or less (section 3)"},
			[]string{blanketBusiness}},
		{"Australia: the same in a licence",
			req("eula", "AU", sub+`, "governingLaw": "AU"`), "Our responsibility to you",
			[]string{"except our liability under the consumer guarantees of the Australian Consumer Law", "$100,000 or less (section 3)"},
			[]string{"we are not liable to you for loss of profit, revenue, business or data."}},
		{"Brazil: a term that excludes or reduces liability for defects is void (CDC Art. 51, I); no blanket exclusion for business users",
			req("terms", "BR", sub+`, "governingLaw": "BR"`), "Our responsibility to you",
			[]string{"Código de Defesa do Consumidor, Law No. 8,078/1990, Article 51, I", "The limits in this section do not apply to that liability."},
			[]string{blanketBusiness}},
		{"South Africa: no CCPA term of art (Cal. Civ. Code § 1798.140(k)) in the purposes of a document without the CCPA",
			req("privacy", "ZA", `"thirdPartyServices": ["meta-pixel"], "consentBanner": true, "dpoContact": "io@review.example"`), "How we use personal data",
			[]string{"Advertising, including ads based on what you do on our website and on other websites."},
			[]string{"cross-context behavioural advertising"}},
		{"India: the same",
			req("privacy", "IN", `"thirdPartyServices": ["meta-pixel"], "consentBanner": true, "dpoContact": "grievance@review.example"`), "How we use personal data",
			[]string{"Advertising, including ads based on what you do on our website and on other websites."},
			[]string{"cross-context behavioural advertising"}},
		{"India: no retention until consent is withdrawn, where the policy asks for no consent to ad cookies",
			req("privacy", "IN", `"thirdPartyServices": ["meta-pixel"], "consentBanner": true, "dpoContact": "grievance@review.example"`), "How long we keep personal data",
			[]string{"| Advertising | Until the ad cookies listed in this policy expire. |"},
			[]string{"withdraw your consent"}},
		{"South Africa: no ePrivacy rule that strictly necessary cookies need no consent (Directive 2002/58/EC Art. 5(3)) in a POPIA policy",
			req("privacy", "ZA", `"thirdPartyServices": ["meta-pixel"], "consentBanner": true, "dpoContact": "io@review.example"`), "Cookies and similar technologies",
			[]string{"- Strictly necessary: to show the website and keep it secure.\n"},
			[]string{"These do not need your consent."}},
		{"the EU keeps it",
			req("privacy", "EU", `"thirdPartyServices": ["meta-pixel"], "consentBanner": true, "establishedIn": "IE"`), "Cookies and similar technologies",
			[]string{"Strictly necessary: to show the website and keep it secure. These do not need your consent."}, nil},
		{"South Africa: Meta is not called a joint controller (GDPR Art. 26) in a POPIA policy",
			req("privacy", "ZA", `"thirdPartyServices": ["meta-pixel"], "consentBanner": true, "dpoContact": "io@review.example"`), "Who we share personal data with",
			[]string{"| Identifiers, Contact details, Purchase history, Usage data, Device data and Inferences | Controller |"},
			[]string{"Joint controller"}},
		{"the EU keeps joint controllership",
			req("privacy", "EU", `"thirdPartyServices": ["meta-pixel"], "consentBanner": true, "establishedIn": "IE"`), "Who we share personal data with",
			[]string{"Joint controller with us"}, nil},
		{"South Africa: the grounds of POPIA s. 72(1) for a transfer in whole sentences, (d) and (e) as the Act has them",
			req("privacy", "ZA", `"thirdPartyServices": ["meta-pixel"], "consentBanner": true, "dpoContact": "io@review.example"`), "Transfers outside South Africa",
			[]string{"for a contract made in your interest between us and someone else", "it is not reasonably practicable to ask you, and you would be likely to agree"},
			[]string{"Or you agree to the transfer"}},
		{"cookie policy outside the GDPR family: the 'Your consent' section says what the banner does (consentBanner: consent before non-essential cookies)",
			req("cookie", "AU", `"thirdPartyServices": ["google-analytics", "meta-pixel", "stripe"], "consentBanner": true`), "Your consent",
			[]string{"only after you agree to them through the cookie banner on our website", "You can change your choices at any time in the cookie settings on our website."}, nil},
		{"South Africa: no promise of a yearly review, which only the CCPA requires (Cal. Civ. Code § 1798.130(a)(5))",
			req("privacy", "ZA", `"thirdPartyServices": ["meta-pixel"], "consentBanner": true, "dpoContact": "io@review.example"`), "Changes to this policy",
			[]string{"We will update this policy when our practices change."}, []string{"every 12 months"}},
		{"California keeps it",
			req("privacy", "US-CA", `"thirdPartyServices": ["meta-pixel"], "consentBanner": true, "ccpaThresholdsMet": true`), "Changes to this policy",
			[]string{"we review it at least once every 12 months"}, nil},
		{"California keeps the CCPA's term for its business or commercial purposes",
			req("privacy", "US-CA", `"thirdPartyServices": ["meta-pixel"], "consentBanner": true, "ccpaThresholdsMet": true`), "How we use personal data",
			[]string{"Advertising, including cross-context behavioural advertising."}, nil},
		{"elsewhere the business users' exclusion is unchanged",
			req("terms", "JP", sub+`, "governingLaw": "JP"`), "Our responsibility to you",
			[]string{blanketBusiness}, []string{"Australian Consumer Law", "Código de Defesa do Consumidor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkReviewText(t, generateBody(t, tt.body), tt.section, tt.must, tt.mustNot)
		})
	}
}

// docSection is the text of the Markdown section headed heading ("## "),
// without its heading, or "" when doc has none.
func docSection(doc, heading string) string {
	_, after, ok := strings.Cut(doc, "\n## "+heading+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(after, "\n## "); i >= 0 {
		return after[:i]
	}
	return after
}

// generateBody is the document a JSON request body gives.
func generateBody(t *testing.T, body string) string {
	t.Helper()
	r, err := ParseRequest([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Generate(r)
	if err != nil {
		t.Fatal(err)
	}
	return res.Content
}

// checkReviewText checks a review case: the document (or its section
// headed section, when not "") says every must and no mustNot.
func checkReviewText(t *testing.T, doc, section string, must, mustNot []string) {
	t.Helper()
	text := doc
	if section != "" {
		if text = docSection(doc, section); text == "" {
			t.Fatalf("no section %q in:\n%s", section, doc)
		}
	}
	for _, m := range must {
		if !strings.Contains(text, m) {
			t.Errorf("missing %q in:\n%s", m, text)
		}
	}
	for _, m := range mustNot {
		if strings.Contains(text, m) {
			t.Errorf("must not say %q:\n%s", m, text)
		}
	}
}
