package compliance

// Catalog is every compliance flag the generator can raise, by unique and
// stable code. docs/FLAGS.md is generated from it (TestFlagsDoc). A code
// is never reused for another finding; a retired code is deleted, not
// repurposed. A definition's Types are the document types whose readers
// can act on it (empty: the privacy policy only); docs/SCORING.md says
// why each code has the types it has.
var Catalog = []Definition{
	{
		Code: "cookie_consent_not_collected", Severity: SeverityError,
		Citations: []Citation{
			{Law: "ePrivacy Directive", Cite: "Directive 2002/58/EC Art. 5(3); GDPR Art. 4(11), Art. 7"},
			{Law: "PECR", Cite: "PECR reg. 6(1)-(2)"},
		},
		Message: "The website sets cookies or similar technologies that are not strictly necessary, and the request says it does not ask for consent before setting them (consentBanner is false). They may be set only with the user's prior consent; the policy does not claim a consent mechanism.",
		Fix:     "Install a consent banner that blocks these cookies until the user opts in and lets them withdraw consent as easily, then set consentBanner to true.",
		Types:   []string{"privacy", "cookie"},
	},
	{
		Code: "cookie_consent_required", Severity: SeverityInfo,
		Citations: []Citation{
			{Law: "ePrivacy Directive", Cite: "Directive 2002/58/EC Art. 5(3)"},
			{Law: "PECR", Cite: "PECR reg. 6(1)-(2)"},
		},
		Message: "Non-essential cookies or similar technologies (analytics, advertising or embedded content) are used; the policy says they are set only after consent through the cookie banner.",
		Fix:     "Check that the banner blocks these cookies until the user opts in, offers a reject option as prominent as accept, and lets users withdraw consent as easily.",
		Types:   []string{"privacy", "cookie"},
	},
	{
		Code: "email_tracking_consent", Severity: SeverityInfo,
		Citations: []Citation{
			{Law: "ePrivacy Directive", Cite: "Directive 2002/58/EC Art. 5(3)"},
			{Law: "PECR", Cite: "PECR reg. 6(1)-(2)"},
		},
		Message: "An email marketing or CRM service is used; its emails can carry tracking pixels that read whether an email was opened. Storing or reading information on the recipient's device needs consent, and the policy says so.",
		Fix:     "Ask for consent to open tracking when people sign up, or turn open tracking off in the email service.",
	},
	{
		Code: "joint_controller_arrangement", Severity: SeverityWarning,
		Citations: []Citation{
			{Law: "GDPR", Cite: "GDPR Art. 26(1)-(2); CJEU C-40/17 Fashion ID"},
			{Law: "UK GDPR", Cite: "UK GDPR Art. 26(1)-(2)"},
		},
		Message: "%s makes the business a joint controller with the provider for collecting and transmitting visitors' data. The essence of the arrangement must be made available to visitors; the policy summarises it.",
		Fix:     "Accept the provider's joint-controller terms in its business settings and keep a copy; check the policy's summary against them.",
	},
	{
		Code: "transfer_safeguard_unknown", Severity: SeverityWarning,
		Citations: []Citation{
			{Law: "GDPR", Cite: "GDPR Art. 13(1)(f), Arts. 44-46"},
			{Law: "UK GDPR", Cite: "UK GDPR Art. 13(1)(f), Arts. 44-46"},
		},
		Message: "%s may receive personal data outside the region, and the catalog records no adequacy decision or safeguard the provider relies on; the policy says only that a copy of the safeguard is available on request.",
		Fix:     "Find the transfer mechanism in the provider's data processing terms (for example standard contractual clauses or the UK Addendum) and tell us, or choose a provider in the region.",
	},
	{
		Code: "unknown_service", Severity: SeverityWarning,
		Citations: []Citation{
			{Law: "GDPR", Cite: "GDPR Art. 13(1)(e)-(f)"},
			{Law: "UK GDPR", Cite: "UK GDPR Art. 13(1)(e)-(f)"},
			{Law: "CCPA", Cite: "Cal. Civ. Code § 1798.130(a)(5)(B)(iv), (C)(ii)"},
			{Law: "CalOPPA", Cite: "Cal. Bus. & Prof. Code § 22575(b)(1)"},
		},
		Message: "%s is not in the service catalog: the policy names it as a recipient but cannot say who provides it, what it receives, where, or under which safeguard.",
		Fix:     "Choose the catalog service it corresponds to (GET /v1/catalog), or ask us to add it.",
		Types:   []string{"privacy", "cookie"},
	},
	{
		Code: "implied_uses_analytics", Severity: SeverityWarning,
		Citations: []Citation{
			{Law: "GDPR", Cite: "GDPR Art. 13(1)(c)"},
			{Law: "UK GDPR", Cite: "UK GDPR Art. 13(1)(c)"},
			{Law: "CCPA", Cite: "Cal. Civ. Code § 1798.100(a)(1)"},
			{Law: "CalOPPA", Cite: "Cal. Bus. & Prof. Code § 22575(b)(1)"},
		},
		Message: "usesAnalytics is false, but a requested analytics service implies it; the policy discloses the analytics processing.",
		Fix:     "Set usesAnalytics to true, or remove the analytics service if you do not use it.",
	},
	{
		Code: "implied_collects_payments", Severity: SeverityWarning,
		Citations: []Citation{
			{Law: "GDPR", Cite: "GDPR Art. 13(1)(c)"},
			{Law: "UK GDPR", Cite: "UK GDPR Art. 13(1)(c)"},
			{Law: "CCPA", Cite: "Cal. Civ. Code § 1798.100(a)(1)"},
			{Law: "CalOPPA", Cite: "Cal. Bus. & Prof. Code § 22575(b)(1)"},
		},
		Message: "collectsPayments is false, but a requested payment service implies it; the policy discloses the payment processing.",
		Fix:     "Set collectsPayments to true, or remove the payment service if you do not use it.",
	},
	{
		Code: "ccpa_opt_out_not_offered", Severity: SeverityError,
		Citations: []Citation{{Law: "CCPA", Cite: "Cal. Civ. Code § 1798.135(a), (b)(1); 11 CCR §§ 7013, 7025"}},
		Message:   "Personal information is sold or shared, and the request says the website has no \"Do Not Sell or Share My Personal Information\" link (or alternative opt-out link) and does not process opt-out preference signals. Both are required; the policy says so and offers opt-out by email meanwhile.",
		Fix:       "Add the opt-out link to your homepage and process Global Privacy Control signals, then set optOutLink to true; or stop the sale or sharing.",
	},
	{
		Code: "ccpa_opt_out_link", Severity: SeverityWarning,
		Citations: []Citation{{Law: "CCPA", Cite: "Cal. Civ. Code § 1798.135(a), (c)(2); 11 CCR §§ 7013, 7025, 7026"}},
		Message:   "A requested service receives personal information as a third party (a sale or sharing). The business must offer a \"Do Not Sell or Share My Personal Information\" link (or the alternative opt-out link) and honour opt-out preference signals such as Global Privacy Control; the policy describes them when optOutLink is true.",
		Fix:       "Add the opt-out link to your homepage header or footer and process Global Privacy Control signals, or remove the advertising services.",
	},
	{
		Code: "ccpa_minors_opt_in", Severity: SeverityWarning,
		Citations: []Citation{{Law: "CCPA", Cite: "Cal. Civ. Code § 1798.120(c)-(d); 11 CCR §§ 7070-7071"}},
		Message:   "The request says the business knowingly sells or shares personal information of consumers under 16. That needs the consumer's opt-in consent (for under-13s, a parent's), and the policy describes that opt-in process.",
		Fix:       "Put an opt-in process in place before selling or sharing the personal information of consumers under 16, or stop doing so.",
	},
	{
		Code: "us_md_sensitive_data_sale", Severity: SeverityError,
		Citations: []Citation{{Law: "MODPA", Cite: "Md. Code, Com. Law § 14-4707(a)(2)"}},
		Message:   "The request says the business sells sensitive personal data (sellsSensitiveData or sellsBiometricData). Maryland's law forbids a controller to sell sensitive data at all, even with consent; the policy cannot make that sale lawful for Maryland residents.",
		Fix:       "Stop selling sensitive data of Maryland residents, or leave Maryland (US-MD, US) out of the document's jurisdictions if the law does not apply to you.",
	},
	{
		Code: "ccpa_web_request_method", Severity: SeverityInfo,
		Citations: []Citation{{Law: "CCPA", Cite: "Cal. Civ. Code § 1798.130(a)(1)(B)"}},
		Message:   "A business that maintains a website must make it available for submitting requests. The policy names email (and the other methods the request gives); a web form is not described.",
		Fix:       "If your website has a privacy request form, add its link to the \"How to submit a request\" part of the policy.",
	},
	{
		Code: "ccpa_sensitive_limited_use", Severity: SeverityInfo,
		Citations: []Citation{{Law: "CCPA Regulations", Cite: "11 CCR §§ 7011(e)(1)(K), 7027(m)"}},
		Message:   "The policy states that sensitive personal information (account log-in credentials, payment card numbers with their security codes) is used only for the purposes 11 CCR § 7027(m) permits, so no \"Limit the Use of My Sensitive Personal Information\" link is offered (Cal. Civ. Code § 1798.121).",
		Fix:       "If you use sensitive personal information for other purposes, add the right-to-limit notice and link.",
	},
	{
		Code: "ccpa_not_applicable", Severity: SeverityInfo,
		Citations: []Citation{{Law: "CCPA", Cite: "Cal. Civ. Code § 1798.140(d)(1)"}},
		Message:   "The request says the business meets none of the CCPA thresholds (annual gross revenue above the adjusted threshold, 100,000 or more consumers or households, or half or more of revenue from selling or sharing personal information), so the policy contains the CalOPPA disclosures and no CCPA section.",
		Fix:       "Check the thresholds every year; set ccpaThresholdsMet to true as soon as one is met.",
	},
	{
		Code: "caloppa_do_not_track", Severity: SeverityInfo,
		Citations: []Citation{{Law: "CalOPPA", Cite: "Cal. Bus. & Prof. Code § 22575(b)(5)"}},
		Message:   "The policy says the website does not change its behaviour when a browser sends a Do Not Track signal, which is true of the services it lists unless you configured otherwise.",
		Fix:       "If your website honours Do Not Track signals, say so in the \"Do Not Track\" section.",
	},
	{
		Code: "dpo_not_stated", Severity: SeverityInfo,
		Citations: []Citation{
			{Law: "GDPR", Cite: "GDPR Art. 13(1)(b), Art. 37"},
			{Law: "UK GDPR", Cite: "UK GDPR Art. 13(1)(b), Art. 37"},
		},
		Message: "The request names no data protection officer, so the policy mentions none. A DPO is mandatory only in the cases of Art. 37 (for example large-scale monitoring or special-category data as a core activity).",
		Fix:     "If you designated a DPO, send dpoContact.",
	},
	{
		Code: "automated_decisions_assumed", Severity: SeverityInfo,
		Citations: []Citation{
			{Law: "GDPR", Cite: "GDPR Art. 13(2)(f), Art. 22"},
			{Law: "UK GDPR", Cite: "UK GDPR Art. 13(2)(f), Arts. 22A-22D"},
		},
		Message: "The policy states that no decisions based solely on automated processing with legal or similarly significant effects are made.",
		Fix:     "If you make such decisions (for example automatic credit or fraud refusals), describe the logic involved and its consequences.",
	},
	{
		Code: "no_third_party_services", Severity: SeverityInfo,
		Citations: []Citation{
			{Law: "GDPR", Cite: "GDPR Art. 13(1)(e)"},
			{Law: "UK GDPR", Cite: "UK GDPR Art. 13(1)(e)"},
			{Law: "CCPA", Cite: "Cal. Civ. Code § 1798.130(a)(5)(B)(iv)"},
			{Law: "CalOPPA", Cite: "Cal. Bus. & Prof. Code § 22575(b)(1)"},
		},
		Message: "No third-party service other than the website host was listed, so the policy names the host as the only recipient.",
		Fix:     "List every service that receives personal data (email, payments, analytics, chat) in thirdPartyServices.",
	},
	{
		Code: "sector_hipaa", Severity: SeverityWarning,
		Citations: []Citation{{Law: "HIPAA", Cite: "45 CFR Parts 160 and 164, Subparts A and E"}},
		Message:   "Health-care businesses that are HIPAA covered entities or business associates must also give a HIPAA Notice of Privacy Practices for protected health information (45 CFR § 164.520); this website privacy policy is not that notice.",
		Fix:       "If you are a covered entity or business associate, publish your Notice of Privacy Practices and link it from this policy; keep health information out of analytics and advertising tags.",
	},
	{
		Code: "sector_ferpa", Severity: SeverityWarning,
		Citations: []Citation{{Law: "FERPA", Cite: "20 U.S.C. § 1232g; 34 CFR Part 99"}},
		Message:   "Educational institutions that receive U.S. Department of Education funds must also follow FERPA for education records, including its annual notification of rights (34 CFR § 99.7); this policy does not cover education records.",
		Fix:       "If FERPA applies to you, publish the annual FERPA notice and keep education records out of third-party tags.",
	},
	{
		Code: "sector_coppa", Severity: SeverityWarning,
		Citations: []Citation{{Law: "COPPA", Cite: "15 U.S.C. §§ 6501-6506; 16 CFR Part 312"}},
		Message:   "A website directed to children under 13, or that knowingly collects their personal information, must give a COPPA notice and obtain verifiable parental consent before collecting it (16 CFR §§ 312.4-312.5); this policy is written for adults.",
		Fix:       "Have a children's privacy notice prepared and put verifiable parental consent in place, or do not collect personal information from children under 13.",
	},
	{
		// Issue 8, part j6: raised instead of sector_coppa when the request
		// says the website is directed to children (directedToChildren), so
		// the policy carries the children's notice; it names what a policy
		// cannot do.
		Code: "coppa_practices", Severity: SeverityWarning,
		Citations: []Citation{{Law: "COPPA", Cite: "16 CFR 312.4-312.5, 312.8"}},
		Message:   "The policy includes the notice for parents that 16 CFR 312.4(d) and 312.10 require. COPPA also requires practices no policy can carry out: direct notice to parents and verifiable parental consent before personal information is collected from a child, with a separate consent for disclosures to third parties (16 CFR 312.4(b)-(c), 312.5), a clearly labelled link to this notice where children's personal information is collected (16 CFR 312.4), and a written information security program (16 CFR 312.8). The policy does not say whether children can make personal information public on the website, and does not describe the internal operations for which a persistent identifier is collected without consent (16 CFR 312.4(d)(3), 312.5(c)(7)).",
		Fix:       "Put verifiable parental consent and direct notices in place, link this policy wherever children give personal information, and add to the children's section whether children can make personal information public and any internal operations you rely on. Check whether a listed service is itself an operator that must be named.",
	},
	{
		// Issue 8, review of 2026-11-26: the terms state the offer terms
		// and how to cancel; this names the steps of the sign-up and
		// cancellation that no document can take.
		Code: "ca_arl_practices", Severity: SeverityWarning,
		Citations: []Citation{{Law: "California ARL", Cite: "Cal. Bus. & Prof. Code § 17602(a)(1)-(3), (d)(1)"}},
		Message:   "The document states the automatic renewal offer terms and how to cancel (Cal. Bus. & Prof. Code § 17601(b)). California's Automatic Renewal Law also requires steps no document can take: showing those terms clearly and conspicuously next to the request for consent, getting the consumer's affirmative consent before the first charge, and sending an acknowledgment the consumer can keep, with the terms, the cancellation policy and how to cancel (§ 17602(a)(1)-(3)). A consumer who subscribed online must be able to cancel online, through a prominently located link or button or a ready-made cancellation email that can be sent without adding anything (§ 17602(d)(1)); where the document says subscribers cancel by email, it describes that ready-made email.",
		Fix:       "Check the sign-up: the renewal terms next to the consent checkbox, affirmative consent, the acknowledgment. Offer an online cancellation link or button, or provide the ready-made cancellation email the document describes. Have a lawyer check the amendments in force since 1 July 2025 (AB 2863), such as annual reminders.",
		Types:     []string{"terms", "eula"},
	},
	{
		Code: "sector_glba", Severity: SeverityWarning,
		Citations: []Citation{{Law: "GLBA", Cite: "15 U.S.C. §§ 6801-6809; 12 CFR Part 1016; 16 CFR Parts 313-314"}},
		Message:   "Financial institutions must give consumers a GLBA privacy notice (Regulation P) and keep an information security programme (FTC Safeguards Rule); the CCPA does not apply to information covered by the GLBA (Cal. Civ. Code § 1798.145(e)).",
		Fix:       "If you are a financial institution under the GLBA, publish the GLBA privacy notice and check which data this policy should exclude.",
	},
	{
		Code: "special_category_data", Severity: SeverityWarning,
		Citations: []Citation{
			{Law: "GDPR", Cite: "GDPR Art. 9(1)-(2), Art. 13(1)(c)"},
			{Law: "UK GDPR", Cite: "UK GDPR Art. 9(1)-(2), Art. 13(1)(c); DPA 2018 Sch. 1"},
		},
		Message: "Businesses of this type often handle special categories of personal data (health, religious beliefs). The policy does not describe any: using them needs a condition of Art. 9(2) besides a lawful basis, and the policy must say so.",
		Fix:     "If your website collects such data, have the policy extended with the Art. 9(2) condition you rely on before publishing it.",
	},
	{
		Code: "ccpa_gpc_frictionless", Severity: SeverityInfo,
		Citations: []Citation{{Law: "CCPA Regulations", Cite: "11 CCR § 7011(e)(3)(G)"}},
		Message:   "A business that processes opt-out preference signals in a frictionless manner (11 CCR § 7025(f)) may say so in the policy; the request does not say whether you do.",
		Fix:       "If you process signals without any notice, pop-up or request for more information, add a sentence saying so.",
	},
	{
		Code: "ccpa_minors_opt_in_process", Severity: SeverityInfo,
		Citations: []Citation{{Law: "CCPA Regulations", Cite: "11 CCR § 7011(e)(3)(I)"}},
		Message:   "A business that sells or shares the personal information of consumers under 16 must describe its opt-in process (11 CCR §§ 7070-7071).",
		Fix:       "If you sell or share the personal information of consumers under 16, describe the opt-in process.",
	},
	{
		Code: "ccpa_request_metrics", Severity: SeverityInfo,
		Citations: []Citation{{Law: "CCPA Regulations", Cite: "11 CCR §§ 7011(e)(5), 7102"}},
		Message:   "A business that buys, sells, shares or receives the personal information of 10 million or more consumers a year must publish request metrics in the policy or link to them.",
		Fix:       "If the threshold applies to you, add the metrics of 11 CCR § 7102 or a link to them.",
	},
	{
		Code: "ccpa_financial_incentive", Severity: SeverityInfo,
		Citations: []Citation{
			{Law: "CCPA", Cite: "Cal. Civ. Code § 1798.125(b)(2)"},
			{Law: "CCPA Regulations", Cite: "11 CCR § 7016(c)-(d)"},
		},
		Message: "A business that offers a financial incentive or price difference for personal information (a loyalty discount for an email address, for example) must give a notice of financial incentive.",
		Fix:     "If you offer such incentives, add the notice of financial incentive (11 CCR § 7016) and link it from this policy.",
	},
}
