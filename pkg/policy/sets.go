package policy

// The allowed values below are placeholders until the catalog lands; they
// will be derived from pkg/catalog's embedded data.

// Types lists the document types that can be generated.
func Types() []string { return []string{"privacy"} }

// Languages lists the languages documents can be generated in.
func Languages() []string { return []string{"en"} }

// Jurisdictions lists the legal regimes a document can target.
func Jurisdictions() []string { return []string{"EU", "UK", "US-CA"} }

// BusinessTypes lists the kinds of business the generator knows.
func BusinessTypes() []string { return []string{"ecommerce", "saas", "blog"} }

// ServiceIDs lists the third-party services the catalog describes.
func ServiceIDs() []string { return []string{"google-analytics", "stripe"} }
