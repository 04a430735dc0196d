package policy

// Generators of the cookie policy (issue 8, t2). The privacy policy's
// @cookies table stays as it is; the cookie policy's table adds a column
// saying who sets and reads each cookie, and its note on services whose
// cookies are not confirmed refers to the policy itself rather than to a
// section of the privacy policy.

// genCookieTable is @cookies with a "first or third party" column. Every
// catalog service is a provider other than the business, so each row is a
// third party's; the catalog does not record a cookie's domain, so the
// column never claims that a cookie is first-party.
func genCookieTable(b *builder) {
	var t table
	b.newTable(&t, cookiePolicyHeader)
	b.cookieRows(&t, b.str(b.label("cookie.party.third")))
	if len(t.rows) > 0 {
		b.emit(t.block())
	}
}

// genCookiePolicyUnknown names the services whose use of cookies no source
// confirmed (as @cookiesUnknown does), in the cookie policy's words: it
// says they wait for consent only where the GDPR family applies and the
// website asks for consent (consentBanner true).
func genCookiePolicyUnknown(b *builder) {
	var eb, ob [16]string
	essential, other := b.f.cookiesUnconfirmed(eb[:0], ob[:0])
	para := func(key string, names []string) {
		b.emit(Block{Kind: Paragraph, Inlines: b.labelInlines(key, extra{phServices, b.join(names)})})
	}
	if len(essential) > 0 {
		para("cookiePolicy.unknown.essential", essential)
	}
	if len(other) > 0 {
		key := "cookiePolicy.unknown.nonEssential"
		if cb := b.f.Request.ConsentBanner; b.f.gdprFamily() && cb != nil && *cb {
			key = "cookiePolicy.unknown.consent"
		}
		para(key, other)
	}
}
