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
func genCookieTable(b *builder) []Block {
	blocks := genCookies(b)
	if len(blocks) == 0 {
		return nil
	}
	t := blocks[0]
	const at = 4 // after name, provider, purpose and duration
	t.Header = insertCell(t.Header, at, text(b.label("table.party")))
	rows := make([][][]Inline, len(t.Rows))
	for i, r := range t.Rows {
		rows[i] = insertCell(r, at, text(b.label("cookie.party.third")))
	}
	t.Rows = rows
	return []Block{t}
}

func insertCell(row [][]Inline, at int, cell []Inline) [][]Inline {
	out := make([][]Inline, 0, len(row)+1)
	out = append(out, row[:at]...)
	out = append(out, cell)
	return append(out, row[at:]...)
}

// genCookiePolicyUnknown names the services whose use of cookies no source
// confirmed (as @cookiesUnknown does), in the cookie policy's words: it
// says they wait for consent only where the GDPR family applies and the
// website asks for consent (consentBanner true).
func genCookiePolicyUnknown(b *builder) []Block {
	essential, other := b.f.cookiesUnconfirmed()
	var out []Block
	para := func(key string, names []string) {
		out = append(out, Block{Kind: Paragraph, Inlines: b.expand(b.label(key), map[string][]Inline{"services": text(b.join(names))})})
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
	return out
}
