package compliance

// Severity of a compliance flag.
type Severity string

const (
	SeverityError   Severity = "error"   // the document cannot satisfy a legal requirement without more input
	SeverityWarning Severity = "warning" // a likely gap or an elevated risk the business should act on
	SeverityInfo    Severity = "info"    // something the business should know; no action strictly required
)

// Flag is one finding about a generated document, citing the exact law.
type Flag struct {
	Code     string   `json:"code"`
	Severity Severity `json:"severity"`
	Law      string   `json:"law"`
	Citation string   `json:"citation"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix"`
}
